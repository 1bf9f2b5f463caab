/**
 * Every deletion of turns goes through here, so a deleted turn leaves nothing derived from it that
 * is kept: its FTS rows and vectors go by trigger (schema.ts), its date foresight by trigger
 * (schemaV10.ts), and the copies stored answers keep of it — the exact requests sent ("what was
 * sent") and citation labels in their metadata — are redacted in the same transaction. With
 * `PRAGMA secure_delete` on every connection (WaSqliteDatabase.open), the freed bytes are zeroed.
 */
import type { Sql, SqlValue } from '../core/base/sql';
import { deletedText, probes, redactValue, type DeletedText } from '../core/base/redaction';

/** Deletes the turns `where` selects (a condition on `messages`), redacts their copies, returns their ids. */
export async function deleteTurnsWhere(tx: Sql, where: string, params: readonly SqlValue[]): Promise<string[]> {
  const rows = await tx.query<{ id: string; pk: number; content: string }>(`DELETE FROM messages WHERE ${where} RETURNING id, pk, content`, params);
  if (rows.length === 0) return [];
  await redactStoredCopies(tx, rows.map((r) => r.content), Math.min(...rows.map((r) => Number(r.pk))));
  return rows.map((r) => String(r.id));
}

/**
 * Redacts `contents` from the metadata of stored answers. Only answers stored after the oldest
 * deleted turn (pk order is insertion order) can hold a copy of it, and only answers with requests
 * or citations hold copies at all; rows are parsed only when the metadata contains a probe.
 */
export async function redactStoredCopies(tx: Sql, contents: readonly string[], sincePk: number): Promise<number> {
  const texts: DeletedText[] = contents.map(deletedText).filter((d) => d.collapsed.length > 0);
  if (texts.length === 0) return 0;
  const probeList = [...new Set(texts.flatMap(probes))];
  const rows = await tx.query<{ pk: number; metadata: string }>(
    `SELECT pk, metadata FROM messages
      WHERE pk > ? AND role = 'assistant' AND metadata <> '{}'
        AND EXISTS (SELECT 1 FROM json_each(?) p WHERE instr(messages.metadata, p.value) > 0)`,
    [sincePk, JSON.stringify(probeList)]);
  let changed = 0;
  for (const r of rows) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(r.metadata);
    } catch {
      continue;
    }
    const out = redactValue(parsed, texts);
    if (!out.changed) continue;
    await tx.exec('UPDATE messages SET metadata = ? WHERE pk = ?', [JSON.stringify(out.value), r.pk]);
    changed++;
  }
  return changed;
}
