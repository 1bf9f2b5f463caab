/**
 * Deleting and forgetting in the memory explorer (SQL behind core's ExplorerStore): a fact, an
 * episode (with or without its turns), a profile item, and Forget's list of items of every kind.
 *
 * Invariants: every delete writes its tombstones in the SAME transaction; tombstones hold a hash
 * of the forgotten text, never the text. FTS rows and vectors of deleted messages, facts,
 * episodes and scenes go with the rows (schema triggers). A scene that loses a member has its
 * LLM summary cleared (it may quote what was forgotten) and is re-summarised by the engine. What
 * a transaction removed is redacted from stored answers once (storedCopies.ts).
 */
import { forgetInHidden } from './turnVersions';
import type { Sql } from '../core/base/sql';
import type { ForgetKind, ForgetResult } from '../core/explorer/explorer';
import { RecollectError } from '../core/base/errors';
import { tombstoneHash } from '../core/explorer/explorerText';
import { forgetMatcher } from '../core/explorer/forgetMatch';
import { forgottenTitle } from './forgetCandidates';
import { renameConversation } from './conversationRepo';
import { deleteTurnsWhere } from './deletedTurns';
import { itemTexts, redactDeletedItems, type DeletedItem } from './storedCopies';
import { jsonList, num, str, strOrNull } from './explorerRows';

export async function tombstone(
  tx: Sql,
  t: {
    kind: 'fact' | 'foresight' | 'profile' | 'memcell';
    itemId: string;
    text?: string;
    memcellId?: string | null;
    range?: { conversationId: string; firstSeq: number; lastSeq: number };
    reason?: 'deleted' | 'edited' | 'dismissed';
  },
  now: number,
): Promise<void> {
  await tx.exec(
    `INSERT INTO tombstones (kind, item_id, text_hash, memcell_id, conversation_id, first_seq, last_seq, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      t.kind,
      t.itemId,
      t.text === undefined ? null : tombstoneHash(t.text),
      t.memcellId ?? null,
      t.range?.conversationId ?? null,
      t.range?.firstSeq ?? null,
      t.range?.lastSeq ?? null,
      t.reason ?? 'deleted',
      now,
    ],
  );
}

/** After a scene lost members: recount, drop it when empty, else clear an LLM title and summary (they may quote what was forgotten). */
export async function sceneLostMembers(tx: Sql, sceneId: string, now: number): Promise<boolean> {
  const [r] = await tx.query('SELECT count(*) AS n, max(end_at) AS last FROM memcells WHERE scene_id = ?', [sceneId]);
  if (num(r?.n) === 0) {
    await tx.exec('DELETE FROM memscenes WHERE id = ?', [sceneId]);
    return false;
  }
  await tx.exec(
    `UPDATE memscenes SET member_count = ?, last_activity_at = ?, summary_stale = 1,
      summary = CASE WHEN edited_by_user = 1 THEN summary ELSE NULL END, title = CASE WHEN edited_by_user = 1 THEN title ELSE NULL END,
      updated_at = ? WHERE id = ?`,
    [num(r?.n), num(r?.last), now, sceneId],
  );
  return true;
}

/**
 * A transaction of deletions: `fn` adds what it removed to `gone`, which is then redacted from
 * stored answers once (storedCopies.ts).
 */
function deleting<T>(sql: Sql, fn: (tx: Sql, gone: DeletedItem[]) => Promise<T>): Promise<T> {
  return sql.transaction(async (tx) => {
    const gone: DeletedItem[] = [];
    const result = await fn(tx, gone);
    await redactDeletedItems(tx, gone);
    return result;
  });
}

export function deleteFact(sql: Sql, id: string, now: number): Promise<boolean> {
  return deleting(sql, (tx, gone) => deleteFactTx(tx, id, now, gone));
}

/** The *Tx deletions add what they removed to `gone`; their transaction (#deleting) redacts it from stored answers once. */
async function deleteFactTx(tx: Sql, id: string, now: number, gone: DeletedItem[]): Promise<boolean> {
  const [f] = await tx.query('SELECT content, memcell_id FROM facts WHERE id = ?', [id]);
  if (!f) return false;
  await tombstone(tx, { kind: 'fact', itemId: id, text: str(f.content), memcellId: str(f.memcell_id) }, now);
  await tx.exec('DELETE FROM facts WHERE id = ?', [id]);
  gone.push({ kind: 'fact', id, texts: itemTexts.fact(str(f.content)) });
  tx.contentRemoved?.();
  return true;
}

/**
 * Forgetting an episode that still has facts or plans the user did not list: only its own text
 * goes (title, narrative and their vector), and it is marked edited so re-synthesis does not
 * write a narrative again. Returns false when nothing else hangs on it (delete it whole).
 */
async function forgetNarrativeTx(tx: Sql, id: string, now: number, gone: DeletedItem[]): Promise<boolean> {
  const [left] = await tx.query(
    'SELECT (SELECT count(*) FROM facts WHERE memcell_id = ?1) + (SELECT count(*) FROM foresights WHERE memcell_id = ?1) AS n',
    [id],
  );
  if (!left || num(left.n) === 0) return false;
  const [cell] = await tx.query('SELECT title, narrative FROM memcells WHERE id = ?', [id]);
  gone.push({ kind: 'episode', id, texts: itemTexts.episode(strOrNull(cell?.title), strOrNull(cell?.narrative)) });
  await tx.exec('UPDATE memcells SET title = NULL, narrative = NULL, edited_by_user = 1, updated_at = ? WHERE id = ?', [now, id]);
  await tx.exec("DELETE FROM vectors WHERE item_kind = 'memcell' AND item_id = ?", [id]);
  tx.contentRemoved?.();
  return true;
}

export function deleteMemCell(
  sql: Sql,
  id: string,
  options: { turns: boolean },
  now: number,
): Promise<{ sceneId: string | null; deletedTurnIds: string[] } | null> {
  return deleting(sql, (tx, gone) => deleteCellTx(tx, id, options.turns, now, gone));
}

async function deleteCellTx(
  tx: Sql,
  id: string,
  turns: boolean,
  now: number,
  gone: DeletedItem[],
): Promise<{ sceneId: string | null; deletedTurnIds: string[] } | null> {
  const [c] = await tx.query('SELECT id, conversation_id, first_seq, last_seq, scene_id, title, narrative FROM memcells WHERE id = ?', [
    id,
  ]);
  if (!c) return null;
  tx.contentRemoved?.();
  gone.push({ kind: 'episode', id, texts: itemTexts.episode(strOrNull(c.title), strOrNull(c.narrative)) });
  for (const f of await tx.query('SELECT id, content FROM facts WHERE memcell_id = ?', [id])) {
    await tombstone(tx, { kind: 'fact', itemId: str(f.id), text: str(f.content), memcellId: id }, now);
    gone.push({ kind: 'fact', id: str(f.id), texts: itemTexts.fact(str(f.content)) });
  }
  for (const f of await tx.query('SELECT id, content FROM foresights WHERE memcell_id = ?', [id])) {
    await tombstone(tx, { kind: 'foresight', itemId: str(f.id), text: str(f.content), memcellId: id }, now);
    gone.push({ kind: 'foresight', id: str(f.id), texts: itemTexts.foresight(str(f.content)) });
  }
  const range = { conversationId: str(c.conversation_id), firstSeq: num(c.first_seq), lastSeq: num(c.last_seq) };
  let deletedTurnIds: string[] = [];
  if (turns) {
    deletedTurnIds = await deleteTurnsWhere(tx, 'conversation_id = ? AND seq BETWEEN ? AND ?', [
      range.conversationId,
      range.firstSeq,
      range.lastSeq,
    ]);
  } else {
    // The turns stay (verbatim chat history), but their range must not become an episode again.
    await tombstone(tx, { kind: 'memcell', itemId: id, memcellId: id, range }, now);
  }
  await tx.exec("DELETE FROM jobs WHERE dedupe_key = ? AND status <> 'running'", [`memcell:${id}`]);
  await tx.exec('DELETE FROM facts WHERE memcell_id = ?', [id]);
  await tx.exec('DELETE FROM foresights WHERE memcell_id = ?', [id]);
  await tx.exec('DELETE FROM memcells WHERE id = ?', [id]);
  // Evidence links to the episode go too; the items themselves stay (they rest on scene summaries).
  for (const p of await tx.query('SELECT id, evidence FROM profile_items WHERE evidence LIKE ?', [`%${id}%`])) {
    await tx.exec('UPDATE profile_items SET evidence = ? WHERE id = ?', [
      JSON.stringify(jsonList(p.evidence).filter((e) => e !== id)),
      str(p.id),
    ]);
  }
  const sceneId = strOrNull(c.scene_id);
  const sceneKept = sceneId ? await sceneLostMembers(tx, sceneId, now) : false;
  return { sceneId: sceneKept ? sceneId : null, deletedTurnIds };
}

export function deleteProfileItem(sql: Sql, id: string, now: number): Promise<void> {
  return deleting(sql, async (tx, gone) => {
    if (!(await deleteProfileTx(tx, id, now, gone))) throw new RecollectError('NOT_FOUND', 'This profile item no longer exists.');
  });
}

async function deleteProfileTx(tx: Sql, id: string, now: number, gone: DeletedItem[]): Promise<boolean> {
  const [r] = await tx.query('SELECT key, value FROM profile_items WHERE id = ?', [id]);
  if (!r) return false;
  // Every value it had may have been sent: the history keeps the earlier ones.
  const earlier = await tx.query('SELECT value FROM profile_item_history WHERE profile_item_id = ? AND value IS NOT NULL', [id]);
  gone.push({ kind: 'profile', id, texts: itemTexts.profile(str(r.key), [str(r.value), ...earlier.map((h) => str(h.value))]) });
  // Forgotten for good: the row and its history go; the tombstone blocks the key from coming back.
  await tombstone(tx, { kind: 'profile', itemId: id, text: str(r.key) }, now);
  await tx.exec('DELETE FROM profile_items WHERE id = ?', [id]);
  tx.contentRemoved?.();
  return true;
}

export function forget(
  sql: Sql,
  items: readonly { kind: ForgetKind; id: string }[],
  now: number,
  about?: string,
): Promise<ForgetResult & { sceneIds: string[]; deletedTurnIds: string[] }> {
  const matcher = about === undefined ? null : forgetMatcher(about);
  return deleting(sql, async (tx, gone) => {
    const deleted: Record<ForgetKind, number> = { fact: 0, episode: 0, turn: 0, foresight: 0, profile: 0, scene: 0, title: 0 };
    const sceneIds = new Set<string>();
    const deletedTurnIds: string[] = [];
    // Exactly the listed items, each counted once: items that others would take along (an
    // episode's facts and plans, a message's date plan) go first under their own kind, and an
    // episode or message then takes nothing that was not listed.
    const order: Record<ForgetKind, number> = { fact: 0, foresight: 0, profile: 0, scene: 0, title: 0, episode: 1, turn: 2 };
    const sorted = [...new Map(items.map((i) => [`${i.kind}:${i.id}`, i])).values()].sort((a, b) => order[a.kind] - order[b.kind]);
    for (const { kind, id } of sorted) {
      switch (kind) {
        case 'fact':
          if (await deleteFactTx(tx, id, now, gone)) deleted.fact++;
          break;
        case 'episode': {
          if (await forgetNarrativeTx(tx, id, now, gone)) {
            deleted.episode++;
            break;
          }
          const r = await deleteCellTx(tx, id, false, now, gone);
          if (r) {
            deleted.episode++;
            if (r.sceneId) sceneIds.add(r.sceneId);
          }
          break;
        }
        case 'turn': {
          // A plan read from this message that was not listed stays (it no longer points at it).
          await tx.exec("UPDATE foresights SET source_message_id = NULL WHERE source_message_id = ? AND source = 'date-parser'", [id]);
          const ids = await deleteTurnsWhere(tx, 'id = ?', [id], { keepDerived: true });
          deleted.turn += ids.length;
          deletedTurnIds.push(...ids);
          break;
        }
        case 'foresight': {
          const [r] = await tx.query('SELECT content, memcell_id FROM foresights WHERE id = ?', [id]);
          if (!r) break;
          await tombstone(tx, { kind: 'foresight', itemId: id, text: str(r.content), memcellId: strOrNull(r.memcell_id) }, now);
          await tx.exec('DELETE FROM foresights WHERE id = ?', [id]);
          gone.push({ kind: 'foresight', id, texts: itemTexts.foresight(str(r.content)) });
          tx.contentRemoved?.();
          deleted.foresight++;
          break;
        }
        case 'profile':
          if (await deleteProfileTx(tx, id, now, gone)) deleted.profile++;
          break;
        case 'scene': {
          // A scene is a grouping; forgetting it clears the text the model wrote about it and
          // marks the summary forgotten (its tombstone), so no later synthesis writes one again.
          await tx.exec(
            'UPDATE memscenes SET title = NULL, summary = NULL, summary_stale = 0, edited_by_user = 0, summary_forgotten = 1, updated_at = ? WHERE id = ?',
            [now, id],
          );
          const found = tx.changes() > 0; // counted by the scene row, not by whether it had a vector
          await tx.exec("DELETE FROM vectors WHERE item_kind = 'memscene' AND item_id = ?", [id]);
          if (found) {
            tx.contentRemoved?.();
            deleted.scene++;
            sceneIds.add(id);
          }
          break;
        }
        case 'title': {
          // Renamed as the user's own title, so neither the first message nor the endpoint
          // names the conversation again (either could bring the word back).
          const [r] = await tx.query('SELECT title FROM conversations WHERE id = ?', [id]);
          if (!r) break;
          await renameConversation(tx, id, forgottenTitle(matcher, str(r.title)), now, 'user');
          tx.contentRemoved?.(); // the old title stays in the write-ahead log until it is cleared
          deleted.title++;
          break;
        }
      }
    }
    // The words also leave the hidden versions of turns (an edit's or a regeneration's earlier text).
    if (matcher)
      deleted.turn += await forgetInHidden(
        tx,
        (t) => matcher.matches(t),
        (t) => matcher.redact(t),
      );
    return { deleted, sceneIds: [...sceneIds], deletedTurnIds };
  });
}
