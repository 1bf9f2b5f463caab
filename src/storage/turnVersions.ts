/**
 * Versions of a turn in storage (schemaV18.ts). A branch is "the turns after `after_id`" in one
 * conversation. Hiding a branch stores its turns as JSON in turn_versions and deletes them from
 * `messages` through deleteTurnsWhere, so their FTS rows, vectors and derived episode content go
 * exactly as a deletion's do; showing it again inserts the same turns (same ids, times, metadata)
 * through insertMessage, so the insert triggers index them again. Must run inside a transaction.
 */
import type { Sql } from '../core/base/sql';
import type { Message } from '../core/base/types';
import type { TurnVersionPosition } from '../core/base/store';
import { RecollectError } from '../core/base/errors';
import { deleteTurnsWhere } from './deletedTurns';
import { insertMessage, listMessages } from './messageRepo';

/** The turn before `messageId` in its conversation ('' for the first), and the live turns from it on. */
async function branchAt(tx: Sql, conversationId: string, messageId: string): Promise<{ afterId: string; branch: Message[] }> {
  const turns = await listMessages(tx, conversationId);
  const at = turns.findIndex((t) => t.id === messageId);
  if (at < 0) throw new RecollectError('NOT_FOUND', 'That message is no longer stored.');
  return { afterId: at > 0 ? turns[at - 1]!.id : '', branch: turns.slice(at) };
}

async function liveAfter(tx: Sql, conversationId: string, afterId: string): Promise<Message[]> {
  const turns = await listMessages(tx, conversationId);
  if (afterId === '') return turns;
  const at = turns.findIndex((t) => t.id === afterId);
  if (at < 0) throw new RecollectError('NOT_FOUND', 'That part of the conversation is not shown now.');
  return turns.slice(at + 1);
}

/** Moves `branch` out of `messages` into the version row `version` (kept, not shown). */
async function hide(tx: Sql, conversationId: string, afterId: string, version: number, branch: readonly Message[]): Promise<void> {
  await tx.exec(
    `INSERT INTO turn_versions (conversation_id, after_id, version, shown, turns) VALUES (?, ?, ?, 0, ?)
     ON CONFLICT(conversation_id, after_id, version) DO UPDATE SET shown = 0, turns = excluded.turns`,
    [conversationId, afterId, version, JSON.stringify(branch)],
  );
  if (branch.length === 0) return;
  const ids = branch.map((t) => t.id);
  await deleteTurnsWhere(tx, `id IN (${ids.map(() => '?').join(', ')})`, ids);
}

async function positionRows(tx: Sql, conversationId: string, afterId: string): Promise<{ version: number; shown: number }[]> {
  const rows = await tx.query<{ version: number; shown: number }>(
    'SELECT version, shown FROM turn_versions WHERE conversation_id = ? AND after_id = ? ORDER BY version',
    [conversationId, afterId],
  );
  return rows.map((r) => ({ version: Number(r.version), shown: Number(r.shown) }));
}

/**
 * Starts a new version at `messageId`'s position: its branch is hidden as the version shown so far
 * (version 1 if the position had none), and a new empty version is marked shown, for the caller to
 * fill (the edited message, or the regenerated answer). Returns the hidden turns' ids.
 */
export async function startVersion(tx: Sql, conversationId: string, messageId: string): Promise<string[]> {
  const { afterId, branch } = await branchAt(tx, conversationId, messageId);
  const rows = await positionRows(tx, conversationId, afterId);
  const current = rows.find((r) => r.shown === 1)?.version ?? 1;
  const next = rows.length === 0 ? 2 : Math.max(...rows.map((r) => r.version)) + 1;
  await hide(tx, conversationId, afterId, current, branch);
  await tx.exec('INSERT INTO turn_versions (conversation_id, after_id, version, shown) VALUES (?, ?, ?, 1)', [
    conversationId,
    afterId,
    next,
  ]);
  return branch.map((t) => t.id);
}

/** Shows version `version` at the position after `afterId`; returns the ids hidden and the turns shown. */
export async function showVersion(
  tx: Sql,
  conversationId: string,
  afterId: string,
  version: number,
  now: number,
): Promise<{ hidden: string[]; shown: Message[] }> {
  const rows = await positionRows(tx, conversationId, afterId);
  const target = rows.find((r) => r.version === version);
  if (!target) throw new RecollectError('NOT_FOUND', `There is no version ${version} here.`);
  const current = rows.find((r) => r.shown === 1);
  if (current?.version === version) return { hidden: [], shown: [] };
  const [stored] = await tx.query<{ turns: string }>(
    'SELECT turns FROM turn_versions WHERE conversation_id = ? AND after_id = ? AND version = ?',
    [conversationId, afterId, version],
  );
  const turns = JSON.parse(stored?.turns ?? '[]') as Message[];
  const live = await liveAfter(tx, conversationId, afterId);
  await hide(tx, conversationId, afterId, current?.version ?? 1, live);
  const shown: Message[] = [];
  for (const t of turns) {
    const { message } = await insertMessage(
      tx,
      { id: t.id, conversationId, role: t.role, speaker: t.speaker, content: t.content, occurredAt: t.occurredAt, metadata: t.metadata },
      now,
    );
    shown.push(message);
  }
  await tx.exec("UPDATE turn_versions SET shown = 1, turns = '[]' WHERE conversation_id = ? AND after_id = ? AND version = ?", [
    conversationId,
    afterId,
    version,
  ]);
  return { hidden: live.map((t) => t.id), shown };
}

/** Every position of a conversation that has more than one version. */
export async function versionsOf(sql: Sql, conversationId: string): Promise<TurnVersionPosition[]> {
  const rows = await sql.query<{ after_id: string; shown: number; n: number }>(
    `SELECT after_id, max(CASE WHEN shown = 1 THEN version END) AS shown, count(*) AS n
     FROM turn_versions WHERE conversation_id = ? GROUP BY after_id`,
    [conversationId],
  );
  return rows.map((r) => ({ afterId: String(r.after_id), shown: Number(r.shown ?? 1), count: Number(r.n) }));
}

/**
 * Forget by word reaches hidden versions too: a hidden turn that mentions the word is dropped from
 * its version, and the word is redacted from what the other hidden turns keep (an answer's "what
 * was sent"). Returns how many hidden turns went.
 */
/** The ids of a conversation's turns kept in hidden versions. */
export async function hiddenTurnIds(sql: Sql, conversationId: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    "SELECT json_extract(t.value, '$.id') AS id FROM turn_versions v, json_each(v.turns) t WHERE v.conversation_id = ? AND v.shown = 0",
    [conversationId],
  );
  return rows.map((r) => r.id).filter((id): id is string => typeof id === 'string');
}

export async function forgetInHidden(tx: Sql, matches: (text: string) => boolean, redact: (text: string) => string): Promise<number> {
  const rows = await tx.query<{ conversation_id: string; after_id: string; version: number; turns: string }>(
    "SELECT conversation_id, after_id, version, turns FROM turn_versions WHERE shown = 0 AND turns <> '[]'",
  );
  let dropped = 0;
  for (const r of rows) {
    const turns = JSON.parse(r.turns) as Message[];
    const kept = turns.filter((t) => !matches(t.content));
    dropped += turns.length - kept.length;
    const json = JSON.stringify(kept);
    const cleaned = matches(json) ? redact(json) : json;
    if (cleaned === r.turns) continue;
    await tx.exec('UPDATE turn_versions SET turns = ? WHERE conversation_id = ? AND after_id = ? AND version = ?', [
      cleaned,
      r.conversation_id,
      r.after_id,
      r.version,
    ]);
    tx.contentRemoved?.();
  }
  return dropped;
}

/**
 * Deleting the message a place of versions starts with deletes every version there, and the places
 * inside those versions: the other versions of a deleted message are deleted with it.
 */
export async function dropVersionsAt(tx: Sql, messageId: string): Promise<void> {
  const [place] = await tx.query<{ conversation_id: string; after: string }>(
    `SELECT m.conversation_id, coalesce((SELECT b.id FROM messages b WHERE b.conversation_id = m.conversation_id AND b.seq < m.seq
       ORDER BY b.seq DESC LIMIT 1), '') AS after FROM messages m WHERE m.id = ?`,
    [messageId],
  );
  if (!place) return;
  const conversationId = String(place.conversation_id);
  const hidden = await tx.query<{ id: string }>(
    "SELECT json_extract(t.value, '$.id') AS id FROM turn_versions v, json_each(v.turns) t WHERE v.conversation_id = ? AND v.after_id = ?",
    [conversationId, String(place.after)],
  );
  await tx.exec('DELETE FROM turn_versions WHERE conversation_id = ? AND after_id = ?', [conversationId, String(place.after)]);
  if (tx.changes() === 0) return;
  const inner = hidden.map((r) => String(r.id));
  if (inner.length)
    await tx.exec(`DELETE FROM turn_versions WHERE conversation_id = ? AND after_id IN (${inner.map(() => '?').join(', ')})`, [
      conversationId,
      ...inner,
    ]);
  tx.contentRemoved?.();
}

/** Turns deleted on another device (sync) leave the hidden versions that kept a copy of them here. */
export async function dropHiddenTurns(tx: Sql, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const wanted = new Set(ids);
  const rows = await tx.query<{ conversation_id: string; after_id: string; version: number; turns: string }>(
    `SELECT conversation_id, after_id, version, turns FROM turn_versions v WHERE shown = 0 AND EXISTS
       (SELECT 1 FROM json_each(v.turns) t WHERE json_extract(t.value, '$.id') IN (${ids.map(() => '?').join(', ')}))`,
    [...ids],
  );
  for (const r of rows) {
    const kept = (JSON.parse(r.turns) as Message[]).filter((t) => !wanted.has(t.id));
    await tx.exec('UPDATE turn_versions SET turns = ? WHERE conversation_id = ? AND after_id = ? AND version = ?', [
      JSON.stringify(kept),
      r.conversation_id,
      r.after_id,
      r.version,
    ]);
    tx.contentRemoved?.();
  }
}
