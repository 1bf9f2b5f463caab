/**
 * Every deletion of turns goes through here, so a deleted turn leaves nothing derived from it that
 * is kept: its FTS rows (deleted for search at once; their terms leave the file when the index is
 * merged before the transaction commits, deletedTerms.ts) and vectors go by trigger (schema.ts), its date foresight by trigger
 * (schemaV10.ts), and the copies stored answers keep of it — the exact requests sent ("what was
 * sent") and citation labels in their metadata — are redacted in the same transaction, and a
 * conversation title made from them is remade from the turns that remain (deletedTitles.ts). With
 * `PRAGMA secure_delete` on every connection (WaSqliteDatabase.open), the freed bytes are zeroed,
 * and the transaction is marked as one that removed content (Sql.contentRemoved), so the
 * write-ahead log's older frames, which still hold the pages as they were, are cleared after it
 * commits.
 */
import type { Sql, SqlValue } from '../core/base/sql';
import { itemTexts, redactDeletedItems, redactStoredCopies, type DeletedItem } from './storedCopies';
import { retitleAfterDeletion } from './deletedTitles';
import { ASKED_IN_MESSAGE, messageEvidence, MESSAGE_EVIDENCE } from '../core/synthesis/knowledge';

/** meta key of the speaker list as last counted, with the newest turn it saw (messageRepo.speakers). */
export const SPEAKERS_META_KEY = 'speakers.top';

/**
 * Deletes the turns `where` selects (a condition on `messages`), redacts their copies, returns their
 * ids. `keepDerived`: Forget, where the user chose item by item what of the episode goes.
 */
export async function deleteTurnsWhere(
  tx: Sql,
  where: string,
  params: readonly SqlValue[],
  options: { keepDerived?: boolean } = {},
): Promise<string[]> {
  const rows = await tx.query<{ id: string; pk: number; content: string; conversation_id: string; seq: number; role: string }>(
    `DELETE FROM messages WHERE ${where} RETURNING id, pk, content, conversation_id, seq, role`,
    params,
  );
  if (rows.length === 0) return [];
  tx.contentRemoved?.();
  // The speaker list kept for the next open may name someone whose turns are gone now.
  await tx.exec('DELETE FROM meta WHERE key = ?', [SPEAKERS_META_KEY]);
  await redactStoredCopies(
    tx,
    rows.map((r) => r.content),
    Math.min(...rows.map((r) => Number(r.pk))),
  );
  await retitleAfterDeletion(
    tx,
    rows.map((r) => ({ conversationId: String(r.conversation_id), role: String(r.role), seq: Number(r.seq), content: String(r.content) })),
  );
  if (!options.keepDerived) {
    const gone = await dropDerived(
      tx,
      rows.map((r) => ({ id: String(r.id), conversationId: String(r.conversation_id), seq: Number(r.seq) })),
    );
    gone.push(
      ...(await dropAskedIn(
        tx,
        rows.map((r) => String(r.id)),
      )),
    );
    await redactDeletedItems(tx, gone);
  }
  return rows.map((r) => String(r.id));
}

/**
 * What an episode's synthesis derived from deleted turns goes with them. Facts carry no link to
 * the turn they came from, so every fact the pipeline wrote for the episode goes (the user's own
 * edits stay) together with its narrative and title, which may quote the turn; a plan goes when
 * every turn it cites was deleted (or it cites none). The episode becomes raw again, so the
 * consolidation policy re-derives it from the remaining turns, and `lost_turns` tells the explorer
 * why. Its theme's title and summary, which may quote the turn too, are cleared for rewriting
 * (a title the user gave stays). Returns what went, for redacting stored answers (storedCopies.ts).
 */
async function dropDerived(tx: Sql, turns: readonly { id: string; conversationId: string; seq: number }[]): Promise<DeletedItem[]> {
  const gone: DeletedItem[] = [];
  const byCell = new Map<string, { ids: Set<string>; sceneId: string | null; edited: boolean }>();
  for (const t of turns) {
    const cells = await tx.query<{ id: string; scene_id: string | null; edited_by_user: number }>(
      'SELECT id, scene_id, edited_by_user FROM memcells WHERE conversation_id = ? AND ? BETWEEN first_seq AND last_seq',
      [t.conversationId, t.seq],
    );
    for (const c of cells) {
      const entry = byCell.get(c.id) ?? { ids: new Set<string>(), sceneId: c.scene_id, edited: Number(c.edited_by_user) === 1 };
      entry.ids.add(t.id);
      byCell.set(c.id, entry);
    }
  }
  for (const [cellId, { ids, sceneId, edited }] of byCell) {
    const plans = await tx.query<{ id: string; evidence: string; content: string }>(
      "SELECT id, evidence, content FROM foresights WHERE memcell_id = ? AND source = 'llm'",
      [cellId],
    );
    for (const p of plans) {
      const evidence = evidenceList(p.evidence); // none readable: it rests on the whole episode
      const left = evidence.filter((e) => !ids.has(e));
      if (left.length === 0) {
        await tx.exec('DELETE FROM foresights WHERE id = ?', [p.id]);
        gone.push({ kind: 'foresight', id: String(p.id), texts: itemTexts.foresight(String(p.content)) });
      } else if (left.length < evidence.length)
        await tx.exec('UPDATE foresights SET evidence = ? WHERE id = ?', [JSON.stringify(left), p.id]);
    }
    const facts = await tx.query<{ id: string; content: string }>(
      'DELETE FROM facts WHERE memcell_id = ? AND edited_by_user = 0 RETURNING id, content',
      [cellId],
    );
    for (const f of facts) gone.push({ kind: 'fact', id: String(f.id), texts: itemTexts.fact(String(f.content)) });
    if (!edited) {
      const [cell] = await tx.query<{ title: string | null; narrative: string | null }>(
        'SELECT title, narrative FROM memcells WHERE id = ?',
        [cellId],
      );
      // A raw episode (no title, no narrative: synthesis off) was never sent as more than its turns.
      if (cell && (cell.title || cell.narrative))
        gone.push({ kind: 'episode', id: cellId, texts: itemTexts.episode(cell.title, cell.narrative) });
    }
    await tx.exec(
      `UPDATE memcells SET status = 'raw', lost_turns = lost_turns + ?,
        title = CASE WHEN edited_by_user = 1 THEN title ELSE NULL END, narrative = CASE WHEN edited_by_user = 1 THEN narrative ELSE NULL END
      WHERE id = ?`,
      [ids.size, cellId],
    );
    if (!edited) await tx.exec("DELETE FROM vectors WHERE item_kind = 'memcell' AND item_id = ?", [cellId]);
    await tx.exec("DELETE FROM jobs WHERE dedupe_key = ? AND status = 'pending'", [`memcell:${cellId}`]);
    if (sceneId) {
      await tx.exec(
        `UPDATE memscenes SET summary_stale = 1, summary = CASE WHEN edited_by_user = 1 THEN summary ELSE NULL END,
          title = CASE WHEN edited_by_user = 1 THEN title ELSE NULL END WHERE id = ?`,
        [sceneId],
      );
      await tx.exec("DELETE FROM vectors WHERE item_kind = 'memscene' AND item_id = ?", [sceneId]);
    }
  }
  gone.push(...(await dropProfileFrom(tx, [...byCell.keys()])));
  return gone;
}

/**
 * Profile items the pipeline drew from an episode that lost turns go with them, with their history:
 * they were written from its theme's summary, which may quote the deleted words (and is cleared
 * above), and their evidence names the episode. No tombstone: the profile update puts back what
 * the remaining memory still supports once the episode and its theme are synthesised again. An
 * item the user edited or wrote keeps its value (their words) but loses the link to the episode
 * and every earlier version its history kept from the pipeline; a conflict it held, which came
 * from the pipeline, is dropped with them.
 */
export async function dropProfileFrom(tx: Sql, cellIds: readonly string[]): Promise<DeletedItem[]> {
  const gone: DeletedItem[] = [];
  const cells = new Set(cellIds);
  const seen = new Set<string>();
  for (const cellId of cellIds) {
    const items = await tx.query<{ id: string; key: string; value: string; evidence: string; edited_by_user: number }>(
      'SELECT id, key, value, evidence, edited_by_user FROM profile_items WHERE instr(evidence, ?) > 0',
      [JSON.stringify(cellId)],
    );
    for (const item of items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      const evidence = evidenceList(item.evidence);
      if (!evidence.some((e) => cells.has(e))) continue;
      const earlier = await tx.query<{ value: string }>(
        'SELECT value FROM profile_item_history WHERE profile_item_id = ? AND value IS NOT NULL AND value <> ?',
        [item.id, item.value],
      );
      if (Number(item.edited_by_user) !== 1) {
        gone.push({ kind: 'profile', id: item.id, texts: itemTexts.profile(item.key, [item.value, ...earlier.map((h) => h.value)]) });
        await tx.exec('DELETE FROM profile_items WHERE id = ?', [item.id]); // its history cascades
        continue;
      }
      if (earlier.length)
        gone.push({
          kind: 'profile',
          id: item.id,
          texts: itemTexts.profile(
            item.key,
            earlier.map((h) => h.value),
          ),
        });
      await tx.exec('DELETE FROM profile_item_history WHERE profile_item_id = ? AND value IS NOT NULL AND value <> ?', [
        item.id,
        item.value,
      ]);
      await tx.exec(
        "UPDATE profile_items SET evidence = ?, status = CASE WHEN status = 'conflict' THEN 'active' ELSE status END WHERE id = ?",
        [JSON.stringify(evidence.filter((e) => !cells.has(e))), item.id],
      );
    }
  }
  return gone;
}

/**
 * Memories a message asked for ("remember that…", core/engine/savedMemories.ts) go with it: they
 * are its words. An item named by several messages loses only the deleted ones' links, and goes
 * when none is left; an item written by hand that a message later repeated keeps its value (only
 * the link goes). Returns what went, for redacting stored answers.
 */
async function dropAskedIn(tx: Sql, turnIds: readonly string[]): Promise<DeletedItem[]> {
  const gone: DeletedItem[] = [];
  for (const turnId of turnIds) {
    const link = messageEvidence(turnId);
    const items = await tx.query<{ id: string; key: string; value: string; evidence: string }>(
      'SELECT id, key, value, evidence FROM profile_items WHERE instr(evidence, ?) > 0',
      [JSON.stringify(link)],
    );
    for (const item of items) {
      const evidence = evidenceList(item.evidence).filter((e) => e !== link);
      const [asked] = await tx.query<{ x: number }>(
        "SELECT 1 AS x FROM profile_item_history WHERE profile_item_id = ? AND op = 'add' AND reason = ? LIMIT 1",
        [item.id, ASKED_IN_MESSAGE],
      );
      if (asked && !evidence.some((e) => e.startsWith(MESSAGE_EVIDENCE))) {
        const values = await tx.query<{ value: string }>(
          'SELECT value FROM profile_item_history WHERE profile_item_id = ? AND value IS NOT NULL',
          [item.id],
        );
        gone.push({ kind: 'profile', id: item.id, texts: itemTexts.profile(item.key, [item.value, ...values.map((h) => h.value)]) });
        await tx.exec('DELETE FROM profile_items WHERE id = ?', [item.id]); // its history cascades
      } else await tx.exec('UPDATE profile_items SET evidence = ? WHERE id = ?', [JSON.stringify(evidence), item.id]);
    }
  }
  return gone;
}

function evidenceList(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}
