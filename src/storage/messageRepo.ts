/** SQL for messages: append (idempotent), list, get, delete, and BM25 full-text search. */
import { CHATS_IN_PROJECT } from './projectScope';
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type { Message, MessageWindow, MessageWindowRequest, NewTurn, SearchHit } from '../core/base/types';
import { highlightSnippet } from '../core/base/highlight';
import { markdownText } from '../core/base/markdownText';
import { RecollectError } from '../core/base/errors';
import { validateNewTurn } from '../core/base/limits';
import { charsOverFour } from '../core/base/tokens';
import { ftsTerms, toFtsQuery } from './ftsQuery';
import { deleteTurnsWhere, SPEAKERS_META_KEY } from './deletedTurns';
import { TURN_INDEX_FLUSH } from './schema';

interface MessageRow extends SqlRow {
  pk: number;
  id: string;
  conversation_id: string;
  seq: number;
  role: string;
  speaker: string;
  content: string;
  occurred_at: number;
  ingested_at: number;
  token_count: number;
  metadata: string;
}

const COLUMNS =
  'm.pk, m.id, m.conversation_id, m.seq, m.role, m.speaker, m.content, m.occurred_at, m.ingested_at, m.token_count, m.metadata';

export function toMessage(r: MessageRow): Message {
  let metadata: Record<string, unknown> = {};
  try {
    metadata = JSON.parse(r.metadata) as Record<string, unknown>;
  } catch {
    /* metadata is advisory; a damaged value must not hide the turn */
  }
  return {
    id: r.id,
    conversationId: r.conversation_id,
    seq: Number(r.seq),
    role: r.role as Message['role'],
    speaker: r.speaker,
    content: r.content,
    occurredAt: Number(r.occurred_at),
    ingestedAt: Number(r.ingested_at),
    tokenCount: Number(r.token_count),
    metadata,
  };
}

export async function getMessage(sql: Sql, id: string): Promise<Message | null> {
  const [row] = await sql.query<MessageRow>(`SELECT ${COLUMNS} FROM messages m WHERE m.id = ?`, [id]);
  return row ? toMessage(row) : null;
}

export async function listMessages(sql: Sql, conversationId: string): Promise<Message[]> {
  const rows = await sql.query<MessageRow>(`SELECT ${COLUMNS} FROM messages m WHERE m.conversation_id = ? ORDER BY m.seq`, [
    conversationId,
  ]);
  return rows.map(toMessage);
}

/** Turns shown before the one a window is opened around (it sits near the top, with its lead-in). */
export const WINDOW_LEAD = 10;
const MAX_WINDOW = 5_000;

/**
 * A window of a conversation's turns (MessageWindowRequest), read through the (conversation_id,
 * seq) index: the cost follows the window, not the conversation (counting its turns is an index
 * scan).
 */
export async function listMessageWindow(sql: Sql, conversationId: string, request: MessageWindowRequest): Promise<MessageWindow> {
  const limit = Math.max(1, Math.min(MAX_WINDOW, Math.floor(request.limit)));
  const [count] = await sql.query<{ n: number }>('SELECT count(*) AS n FROM messages WHERE conversation_id = ?', [conversationId]);
  const total = Number(count?.n ?? 0);
  const [anchor] =
    request.around === undefined
      ? []
      : await sql.query<{ seq: number }>('SELECT seq FROM messages WHERE id = ? AND conversation_id = ?', [request.around, conversationId]);
  if (anchor) {
    // The window starts `lead` turns before the anchor (fewer near the start).
    const lead = Math.max(0, Math.min(MAX_WINDOW, Math.floor(request.lead ?? WINDOW_LEAD)));
    const [start] = await sql.query<{ seq: number | null; before: number }>(
      `SELECT ${lead === 0 ? '?2' : `(SELECT seq FROM messages WHERE conversation_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT 1 OFFSET ${lead - 1})`} AS seq,
        (SELECT count(*) FROM messages WHERE conversation_id = ?1 AND seq < ?2) AS before`,
      [conversationId, anchor.seq],
    );
    const before = Number(start?.before ?? 0);
    const from = start?.seq ?? null;
    const rows = await sql.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages m WHERE m.conversation_id = ? AND m.seq >= ? ORDER BY m.seq LIMIT ?`,
      [conversationId, from ?? Number.MIN_SAFE_INTEGER, limit],
    );
    return { messages: rows.map(toMessage), total, offset: from === null ? 0 : before - lead };
  }
  const rows = await sql.query<MessageRow>(`SELECT ${COLUMNS} FROM messages m WHERE m.conversation_id = ? ORDER BY m.seq DESC LIMIT ?`, [
    conversationId,
    limit,
  ]);
  return { messages: rows.reverse().map(toMessage), total, offset: total - rows.length };
}

const INSERT_RETURNING = `INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count, metadata)
  VALUES (?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE conversation_id = ?), ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT(id) DO NOTHING
  RETURNING pk, id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count, metadata`;

/** Indexes the turns inserted in this transaction (schemaV6.ts); call before it commits. */
export async function flushTurnIndex(tx: Sql): Promise<void> {
  for (const statement of TURN_INDEX_FLUSH) await tx.exec(statement);
}

/** Turns queued for the turn index (appended with the index deferred, or in a large memory). */
export async function queuedTurnIndex(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: number }>('SELECT count(*) AS n FROM turn_index_queue');
  return Number(row?.n ?? 0);
}

/**
 * Indexes the `max` oldest queued turns (a trailing indexer's step, so one step stays short):
 * the rest of the queue is set aside, the flush runs on what is left, and the rest goes back.
 * Neighbours of the indexed turns that are still queued get a row now with their context so far
 * and their final one when their own step comes. Run in one transaction; returns the turns still queued.
 */
export async function flushTurnIndexPart(tx: Sql, max: number): Promise<number> {
  const rest = await tx.query<{ pk: number }>(
    'DELETE FROM turn_index_queue WHERE pk > (SELECT pk FROM turn_index_queue ORDER BY pk LIMIT 1 OFFSET ?) RETURNING pk',
    [Math.max(0, max - 1)],
  );
  await flushTurnIndex(tx);
  if (rest.length)
    await tx.exec('INSERT INTO turn_index_queue (pk) SELECT value FROM json_each(?)', [JSON.stringify(rest.map((r) => Number(r.pk)))]);
  return rest.length;
}

/** The highest turn key: the number of turns the memory has held (an upper bound of what it holds). */
export async function maxTurnKey(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: number | null }>('SELECT max(pk) AS n FROM messages');
  return Number(row?.n ?? 0);
}

/** An already stored turn with this id, as `insertMessage` reports it (or throws if it belongs elsewhere). */
async function existingTurn(tx: Sql, turn: NewTurn): Promise<{ message: Message; created: false } | null> {
  const existing = await getMessage(tx, turn.id);
  if (!existing) return null;
  if (existing.conversationId !== turn.conversationId) {
    throw new RecollectError('INVALID_INPUT', 'A message with this id already exists in another conversation.');
  }
  return { message: existing, created: false };
}

/**
 * Inserts the turn unless its id is already stored. Must run inside a transaction (seq is
 * max+1 within the conversation). Returns the stored message and whether it was new.
 *
 * A new turn costs one statement (INSERT … ON CONFLICT DO NOTHING RETURNING); only when nothing
 * was inserted, or the input is invalid, is the id looked up — a re-sent id returns the stored
 * turn even if the re-sent content would no longer pass validation, as it always has.
 */
export async function insertMessage(tx: Sql, turn: NewTurn, now: number): Promise<{ message: Message; created: boolean }> {
  if (typeof turn.id !== 'string' || turn.id.length === 0 || turn.id.length > 200) {
    throw new RecollectError('INVALID_INPUT', 'A message needs an id (1–200 characters).');
  }
  let params: SqlValue[];
  try {
    params = insertParams(turn, now);
  } catch (err) {
    const existing = await existingTurn(tx, turn);
    if (existing) return existing;
    throw err;
  }
  const [row] = await tx.query<MessageRow>(INSERT_RETURNING, params);
  if (row) return { message: toMessage(row), created: true };
  const existing = await existingTurn(tx, turn);
  if (!existing) throw new RecollectError('INTERNAL', 'The message was not stored.');
  return existing;
}

/** Validated INSERT_RETURNING parameters for a new turn (throws INVALID_INPUT). */
function insertParams(turn: NewTurn, now: number): SqlValue[] {
  const { role, speaker, content, occurredAt } = validateNewTurn(turn, now);
  return [
    turn.id,
    turn.conversationId,
    turn.conversationId,
    role,
    speaker,
    content,
    occurredAt,
    now,
    charsOverFour(content),
    JSON.stringify(turn.metadata ?? {}),
  ];
}

/**
 * Deletes the turn; triggers remove its FTS row, every vector and its date foresight, and stored
 * answers' copies of it are redacted (deletedTurns.ts). Must run inside a transaction.
 */
export async function deleteMessage(tx: Sql, id: string): Promise<boolean> {
  return (await deleteTurnsWhere(tx, 'id = ?', [id])).length > 0;
}

/** Sync's in-place edit (MemoryStore.replaceMessageContent): FTS rows follow by trigger; the vectors go. */
export async function replaceMessageContent(tx: Sql, id: string, content: string): Promise<boolean> {
  await tx.exec('UPDATE messages SET content = ?, token_count = ? WHERE id = ?', [content, charsOverFour(content), id]);
  if (tx.changes() === 0) return false;
  await tx.exec("DELETE FROM vectors WHERE item_kind = 'message' AND item_id = ?", [id]);
  tx.contentRemoved?.();
  return true;
}

export async function countMessages(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: number }>('SELECT count(*) AS n FROM messages');
  return Number(row?.n ?? 0);
}

/** Connections whose temporary speaker counts are built (since their last page replacement). */
const countsBuilt = new WeakSet<Sql>();

/**
 * Each speaker's number of turns, kept by the connection itself: a TEMP table and TEMP triggers
 * (connection-local, never part of the file or of an export) that every insert and delete of a
 * turn updates, so the list stays exact through sends, imports and deletions without a scan.
 */
const SPEAKER_COUNTS = `
CREATE TEMP TABLE IF NOT EXISTS speaker_counts (speaker TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL);
CREATE TEMP TRIGGER IF NOT EXISTS speaker_counts_insert AFTER INSERT ON main.messages BEGIN
  INSERT OR IGNORE INTO speaker_counts (speaker, n) VALUES (new.speaker, 0);
  UPDATE speaker_counts SET n = n + 1 WHERE speaker = new.speaker;
END;
CREATE TEMP TRIGGER IF NOT EXISTS speaker_counts_delete AFTER DELETE ON main.messages BEGIN
  UPDATE speaker_counts SET n = n - 1 WHERE speaker = old.speaker;
END;
CREATE TEMP TRIGGER IF NOT EXISTS speaker_counts_update AFTER UPDATE OF speaker ON main.messages BEGIN
  UPDATE speaker_counts SET n = n - 1 WHERE speaker = old.speaker;
  INSERT OR IGNORE INTO speaker_counts (speaker, n) VALUES (new.speaker, 0);
  UPDATE speaker_counts SET n = n + 1 WHERE speaker = new.speaker;
END;`;

/** How many names recall is given: the most frequent speakers. */
const TOP_SPEAKER_NAMES = 50;
const TOP_SPEAKERS = `SELECT speaker FROM temp.speaker_counts WHERE n > 0 ORDER BY n DESC, speaker LIMIT ${TOP_SPEAKER_NAMES}`;

/**
 * Distinct speaker names of stored turns, most frequent first (at most 50). Counting them scans
 * every turn (≈ 290 ms at 100k turns warm, 0.4–1.1 s on a cold 100k-turn file), and every recall
 * asks — the recall of each answer right after its question was stored. So it is counted once
 * per connection and then kept by the connection's own triggers (SPEAKER_COUNTS). The list and
 * every speaker's count are also kept in `meta` with the newest turn they include, for the next
 * open: its first search takes the list as it is while no turn was added since, and counting again
 * reads only the turns added since (every deletion drops what is kept, deletedTurns.ts). Keeping
 * it there is best effort: a database that cannot be written (storage full) still answers.
 */
export async function speakers(sql: Sql): Promise<string[]> {
  if (countsBuilt.has(sql)) return (await sql.query<{ speaker: string }>(TOP_SPEAKERS)).map((r) => r.speaker);
  const [row] = await sql.query<{ newest: number | null }>('SELECT max(pk) AS newest FROM messages');
  const newest = Number(row?.newest ?? 0);
  const [value] = await sql.query<{ value: string }>('SELECT value FROM meta WHERE key = ?', [SPEAKERS_META_KEY]);
  const kept = keptSpeakers(value?.value);
  if (kept?.newest === newest) return [...kept.names];
  try {
    // One transaction: no turn may be written between the count and the triggers taking over.
    await sql.transaction(async (tx) => {
      await tx.exec(SPEAKER_COUNTS);
      await tx.exec('DELETE FROM temp.speaker_counts');
      // Kept counts (exact up to their newest turn: every deletion drops them) plus the turns
      // added since, which are read by key; otherwise every turn.
      const base = kept?.counts && kept.newest < newest ? kept : null;
      const rows = await tx.query<{ speaker: string; n: number }>(
        base
          ? 'SELECT speaker, count(*) AS n FROM messages WHERE pk > ? GROUP BY speaker'
          : 'SELECT speaker, count(*) AS n FROM messages GROUP BY speaker',
        base ? [base.newest] : [],
      );
      const counts = new Map(Object.entries(base?.counts ?? {}));
      for (const r of rows) counts.set(r.speaker, (counts.get(r.speaker) ?? 0) + Number(r.n));
      await tx.exec('INSERT INTO temp.speaker_counts (speaker, n) SELECT key, value FROM json_each(?)', [
        JSON.stringify(Object.fromEntries(counts)),
      ]);
    });
    countsBuilt.add(sql);
  } catch {
    // A connection that cannot take a write transaction (the disk is full) still answers, by scanning.
    return (
      await sql.query<{ speaker: string }>(
        `SELECT speaker FROM messages GROUP BY speaker ORDER BY count(*) DESC, speaker LIMIT ${TOP_SPEAKER_NAMES}`,
      )
    ).map((r) => r.speaker);
  }
  const counted = (await sql.query<{ speaker: string }>(TOP_SPEAKERS)).map((r) => r.speaker);
  try {
    // The counts and the newest turn read together: a turn stored between them would be counted
    // twice by the next open.
    await sql.transaction(async (tx) => {
      const [last] = await tx.query<{ newest: number | null }>('SELECT max(pk) AS newest FROM messages');
      const all = await tx.query<{ speaker: string; n: number }>(
        'SELECT speaker, n FROM temp.speaker_counts WHERE n > 0 ORDER BY n DESC, speaker',
      );
      const counts = all.length <= MAX_KEPT_COUNTS ? Object.fromEntries(all.map((r) => [r.speaker, Number(r.n)])) : undefined;
      await tx.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [
        SPEAKERS_META_KEY,
        JSON.stringify({
          newest: Number(last?.newest ?? 0),
          names: all.slice(0, TOP_SPEAKER_NAMES).map((r) => r.speaker),
          ...(counts ? { counts } : {}),
        }),
      ]);
    });
  } catch {
    // Not kept for the next open; this answer is still right.
  }
  return counted;
}

/** More distinct speakers than this are not kept with their counts (the next open counts them all). */
const MAX_KEPT_COUNTS = 5_000;

interface KeptSpeakers {
  /** The newest turn when they were counted. */
  readonly newest: number;
  /** The TOP_SPEAKER_NAMES most frequent then, most frequent first. */
  readonly names: readonly string[];
  /** Every speaker's number of turns then (absent in lists kept by older versions). */
  readonly counts?: Readonly<Record<string, number>>;
}

/** The list kept in `meta`, or null when there is none or it is damaged. */
function keptSpeakers(value: string | undefined): KeptSpeakers | null {
  if (!value) return null;
  try {
    const kept = JSON.parse(value) as { newest?: unknown; names?: unknown; counts?: unknown };
    if (typeof kept.newest !== 'number' || !Array.isArray(kept.names) || !kept.names.every((n) => typeof n === 'string')) return null;
    const counts =
      kept.counts !== null &&
      typeof kept.counts === 'object' &&
      !Array.isArray(kept.counts) &&
      Object.values(kept.counts).every((n) => Number.isInteger(n) && (n as number) > 0)
        ? (kept.counts as Record<string, number>)
        : undefined;
    return { newest: kept.newest, names: kept.names as string[], ...(counts ? { counts } : {}) };
  } catch {
    // a damaged cache is as good as none: the caller counts again
    return null;
  }
}

/** After the connection's pages were replaced (a restored memory file): count again on the next call. */
export function forgetSpeakers(sql: Sql): void {
  countsBuilt.delete(sql);
}

/**
 * BM25 full-text search (OR over sanitised terms). Returns [] for text with no searchable term.
 *
 * Unscoped, the top `limit` rows are ranked inside the FTS table first and only they are joined to
 * `messages`: in one statement SQLite joined every matching row before sorting, most of a
 * search's time in a large database (the scale benchmark's profile). Snippets are built in JS from the turn's own text
 * (core/base/highlight): the index holds lexical text, not the turn.
 */
export async function searchMessages(
  sql: Sql,
  text: string,
  options: { limit?: number; conversationId?: string; project?: string | null } = {},
): Promise<SearchHit[]> {
  const terms = ftsTerms(text);
  const match = toFtsQuery(text);
  if (!match) return [];
  const limit = Math.max(1, Math.min(options.limit ?? 20, 500));
  // Scoped to a conversation or a project's chats: the scope is applied inside the ranking, so a
  // small project still gets its `limit` best rows rather than what is left of the global top.
  const scope = options.conversationId
    ? { sql: 'm.conversation_id = ?', params: [options.conversationId] }
    : options.project !== undefined
      ? { sql: `m.conversation_id IN (${CHATS_IN_PROJECT})`, params: [options.project] }
      : null;
  const top = scope
    ? await sql.query<{ pk: number; rank: number }>(
        `SELECT messages_fts.rowid AS pk, bm25(messages_fts, 1.0, 0.3) AS rank
         FROM messages_fts JOIN messages m ON m.pk = messages_fts.rowid
        WHERE messages_fts MATCH ? AND ${scope.sql} ORDER BY rank, m.pk LIMIT ?`,
        [match, ...scope.params, limit],
      )
    : await sql.query<{ pk: number; rank: number }>(
        'SELECT rowid AS pk, bm25(messages_fts, 1.0, 0.3) AS rank FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank, rowid LIMIT ?',
        [match, limit],
      );
  if (top.length === 0) return [];
  const rows = await sql.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages m WHERE m.pk IN (${top.map(() => '?').join(', ')})`,
    top.map((t) => t.pk),
  );
  const byPk = new Map(rows.map((r) => [Number(r.pk), r]));
  return top.flatMap((t) => {
    const r = byPk.get(Number(t.pk));
    if (!r) return [];
    const message = toMessage(r);
    // Assistant turns are Markdown: the snippet is cut from their words, without the markup.
    return [
      {
        message,
        score: -Number(t.rank),
        snippet: highlightSnippet(message.role === 'assistant' ? markdownText(message.content) : message.content, terms),
      },
    ];
  });
}
