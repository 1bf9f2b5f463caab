/**
 * Where turns sit in their conversation, for sync (core/engine/syncWrites.ts): which turn each one
 * follows and whether it opened a version there (turn_versions, schemaV18.ts), and room made among
 * a conversation's turns for turns another device wrote into the same chat while the two were cut
 * off, so every device shows one order.
 *
 * Making room moves the later turns' seq up, and the episodes over them with them: an episode after
 * the place moves whole, an episode across it grows by the inserted turns (they become its members),
 * and a deleted episode's kept range (tombstones, schemaV5.ts) moves like an episode.
 */
import type { Sql } from '../core/base/sql';
import { RecollectError } from '../core/base/errors';

/** For each stored turn of `ids`: the turn before it ('' for the first) and whether a version starts there. */
export async function turnPlaces(sql: Sql, ids: readonly string[]): Promise<Map<string, { after: string; version: boolean }>> {
  const out = new Map<string, { after: string; version: boolean }>();
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    const rows = await sql.query<{ id: string; after: string; version: number }>(
      `SELECT p.id, p.after, EXISTS (SELECT 1 FROM turn_versions v WHERE v.conversation_id = p.conversation_id AND v.after_id = p.after) AS version
       FROM (SELECT m.id, m.conversation_id,
               coalesce((SELECT b.id FROM messages b WHERE b.conversation_id = m.conversation_id AND b.seq < m.seq ORDER BY b.seq DESC LIMIT 1), '') AS after
             FROM messages m WHERE m.id IN (${part.map(() => '?').join(', ')})) p`,
      part,
    );
    for (const r of rows) out.set(String(r.id), { after: String(r.after), version: Number(r.version) === 1 });
  }
  return out;
}

/** The ids of a conversation's turns in order. */
export async function turnIdsOf(sql: Sql, conversationId: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>('SELECT id FROM messages WHERE conversation_id = ? ORDER BY seq', [conversationId]);
  return rows.map((r) => String(r.id));
}

/**
 * Frees seq for `count` turns right after turn `afterId` ('' = the start of the conversation);
 * returns the first free seq. Must run inside a transaction.
 */
export async function makeRoomAfter(tx: Sql, conversationId: string, afterId: string, count: number): Promise<number> {
  let at = 0;
  if (afterId !== '') {
    const [row] = await tx.query<{ seq: number }>('SELECT seq FROM messages WHERE id = ? AND conversation_id = ?', [
      afterId,
      conversationId,
    ]);
    if (!row) throw new RecollectError('NOT_FOUND', 'The turn to place synced turns after is no longer stored.');
    at = Number(row.seq);
  }
  const args = [count, conversationId, at];
  // Highest first, so no two turns share a seq at any point of the update.
  await tx.exec(
    'UPDATE messages SET seq = seq + ?1 WHERE pk IN (SELECT pk FROM messages WHERE conversation_id = ?2 AND seq > ?3 ORDER BY seq DESC)',
    args,
  );
  await tx.exec(
    'UPDATE memcells SET first_seq = first_seq + ?1, last_seq = last_seq + ?1 WHERE conversation_id = ?2 AND first_seq > ?3',
    args,
  );
  await tx.exec('UPDATE memcells SET last_seq = last_seq + ?1 WHERE conversation_id = ?2 AND first_seq <= ?3 AND last_seq > ?3', args);
  await tx.exec(
    `UPDATE tombstones SET first_seq = first_seq + ?1, last_seq = last_seq + ?1 WHERE kind = 'memcell' AND conversation_id = ?2 AND first_seq > ?3`,
    args,
  );
  await tx.exec(
    `UPDATE tombstones SET last_seq = last_seq + ?1 WHERE kind = 'memcell' AND conversation_id = ?2 AND first_seq <= ?3 AND last_seq > ?3`,
    args,
  );
  return at + 1;
}

/** Moves a just-inserted turn into the room made for it. */
export async function placeTurn(tx: Sql, id: string, seq: number): Promise<void> {
  await tx.exec('UPDATE messages SET seq = ? WHERE id = ?', [seq, id]);
}
