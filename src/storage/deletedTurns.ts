/**
 * Every deletion of turns goes through here, so a deleted turn leaves nothing derived from it that
 * is kept: its FTS rows (deleted for search at once; their terms leave the file when the segment
 * is merged, see schemaV10.ts) and vectors go by trigger (schema.ts), its date foresight by trigger
 * (schemaV10.ts), and the copies stored answers keep of it — the exact requests sent ("what was
 * sent") and citation labels in their metadata — are redacted in the same transaction, and a
 * conversation title made from them is remade from the turns that remain (deletedTitles.ts). With
 * `PRAGMA secure_delete` on every connection (WaSqliteDatabase.open), the freed bytes are zeroed,
 * and the transaction is marked as one that removed content (Sql.contentRemoved), so the
 * write-ahead log's older frames, which still hold the pages as they were, are cleared after it
 * commits.
 */
import type { Sql, SqlValue } from '../core/base/sql';
import { deletedText, probes, redactValue, type DeletedText } from '../core/base/redaction';
import { retitleAfterDeletion } from './deletedTitles';

/** meta key of the speaker list as last counted, with the newest turn it saw (messageRepo.speakers). */
export const SPEAKERS_META_KEY = 'speakers.top';

/**
 * Deletes the turns `where` selects (a condition on `messages`), redacts their copies, returns their
 * ids. `keepDerived`: Forget, where the user chose item by item what of the episode goes.
 */
export async function deleteTurnsWhere(tx: Sql, where: string, params: readonly SqlValue[], options: { keepDerived?: boolean } = {}): Promise<string[]> {
  const rows = await tx.query<{ id: string; pk: number; content: string; conversation_id: string; seq: number; role: string }>(
    `DELETE FROM messages WHERE ${where} RETURNING id, pk, content, conversation_id, seq, role`, params);
  if (rows.length === 0) return [];
  tx.contentRemoved?.();
  // The speaker list kept for the next open may name someone whose turns are gone now.
  await tx.exec('DELETE FROM meta WHERE key = ?', [SPEAKERS_META_KEY]);
  await redactStoredCopies(tx, rows.map((r) => r.content), Math.min(...rows.map((r) => Number(r.pk))));
  await retitleAfterDeletion(tx, rows.map((r) => ({ conversationId: String(r.conversation_id), role: String(r.role), seq: Number(r.seq), content: String(r.content) })));
  if (!options.keepDerived) await dropDerived(tx, rows.map((r) => ({ id: String(r.id), conversationId: String(r.conversation_id), seq: Number(r.seq) })));
  return rows.map((r) => String(r.id));
}

/**
 * What an episode's synthesis derived from deleted turns goes with them. Facts carry no link to
 * the turn they came from, so every fact the pipeline wrote for the episode goes (the user's own
 * edits stay) together with its narrative and title, which may quote the turn; a plan goes when
 * every turn it cites was deleted (or it cites none). The episode becomes raw again, so the
 * consolidation policy re-derives it from the remaining turns, and `lost_turns` tells the explorer
 * why. Its theme's title and summary, which may quote the turn too, are cleared for rewriting
 * (a title the user gave stays).
 */
async function dropDerived(tx: Sql, turns: readonly { id: string; conversationId: string; seq: number }[]): Promise<void> {
  const byCell = new Map<string, { ids: Set<string>; sceneId: string | null; edited: boolean }>();
  for (const t of turns) {
    const cells = await tx.query<{ id: string; scene_id: string | null; edited_by_user: number }>(
      'SELECT id, scene_id, edited_by_user FROM memcells WHERE conversation_id = ? AND ? BETWEEN first_seq AND last_seq', [t.conversationId, t.seq]);
    for (const c of cells) {
      const entry = byCell.get(c.id) ?? { ids: new Set<string>(), sceneId: c.scene_id, edited: Number(c.edited_by_user) === 1 };
      entry.ids.add(t.id);
      byCell.set(c.id, entry);
    }
  }
  for (const [cellId, { ids, sceneId, edited }] of byCell) {
    const plans = await tx.query<{ id: string; evidence: string }>("SELECT id, evidence FROM foresights WHERE memcell_id = ? AND source = 'llm'", [cellId]);
    for (const p of plans) {
      let evidence: string[] = [];
      try {
        const parsed: unknown = JSON.parse(p.evidence);
        if (Array.isArray(parsed)) evidence = parsed.map(String);
      } catch {
        /* no readable evidence: treated as resting on the whole episode */
      }
      const left = evidence.filter((e) => !ids.has(e));
      if (left.length === 0) await tx.exec('DELETE FROM foresights WHERE id = ?', [p.id]);
      else if (left.length < evidence.length) await tx.exec('UPDATE foresights SET evidence = ? WHERE id = ?', [JSON.stringify(left), p.id]);
    }
    await tx.exec('DELETE FROM facts WHERE memcell_id = ? AND edited_by_user = 0', [cellId]);
    await tx.exec(`UPDATE memcells SET status = 'raw', lost_turns = lost_turns + ?,
        title = CASE WHEN edited_by_user = 1 THEN title ELSE NULL END, narrative = CASE WHEN edited_by_user = 1 THEN narrative ELSE NULL END
      WHERE id = ?`, [ids.size, cellId]);
    if (!edited) await tx.exec("DELETE FROM vectors WHERE item_kind = 'memcell' AND item_id = ?", [cellId]);
    await tx.exec("DELETE FROM jobs WHERE dedupe_key = ? AND status = 'pending'", [`memcell:${cellId}`]);
    if (sceneId) {
      await tx.exec(`UPDATE memscenes SET summary_stale = 1, summary = CASE WHEN edited_by_user = 1 THEN summary ELSE NULL END,
          title = CASE WHEN edited_by_user = 1 THEN title ELSE NULL END WHERE id = ?`, [sceneId]);
      await tx.exec("DELETE FROM vectors WHERE item_kind = 'memscene' AND item_id = ?", [sceneId]);
    }
  }
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
    } catch { // metadata that is not JSON holds no quoted text to redact
      continue;
    }
    const out = redactValue(parsed, texts);
    if (!out.changed) continue;
    await tx.exec('UPDATE messages SET metadata = ? WHERE pk = ?', [JSON.stringify(out.value), r.pk]);
    changed++;
  }
  return changed;
}
