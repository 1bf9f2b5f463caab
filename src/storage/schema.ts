/**
 * Schema migrations. Each entry moves the database from `version - 1` to `version` and runs in
 * one transaction together with the `PRAGMA user_version` bump, so a crash mid-migration leaves
 * the previous version intact. Never edit a released migration: append a new one.
 *
 * Identity: `PRAGMA application_id` marks a file as a Recollect database, so an import of some
 * other SQLite file is refused with a clear error instead of being migrated into ours.
 */
import { v3 } from './schemaV3';
import { v4 } from './schemaV4';
import { v5 } from './schemaV5';
import { v6 } from './schemaV6';
import { v7 } from './schemaV7';
import { v8 } from './schemaV8';
import { reindexLexical, v9, type MigrationProgress } from './schemaV9';
import type { Sql } from '../core/base/sql';
import { v10 } from './schemaV10';
import { stripStoredChatGptMarkup, v11 } from './schemaV11';
import { v12 } from './schemaV12';
import { v13 } from './schemaV13';
import { v14 } from './schemaV14';
import { v15 } from './schemaV15';
import { v17 } from './schemaV17';
import { v18 } from './schemaV18';

export const RECOLLECT_APPLICATION_ID = 0x52434c54; // "RCLT"

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /**
   * Work done in JS after `sql`, in the same transaction (e.g. re-indexing in pages so progress
   * can be reported while a large memory is rebuilt).
   */
  readonly run?: (tx: Sql, onProgress?: MigrationProgress) => Promise<void>;
}

const v1 = /* sql */ `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE conversations (
  id         TEXT PRIMARY KEY,
  title      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  metadata   TEXT NOT NULL DEFAULT '{}'
);

-- Every turn verbatim. pk is the stable integer key used by FTS and vectors; id is client-generated
-- so re-sending a turn is idempotent. Synthesis never rewrites a row here.
CREATE TABLE messages (
  pk              INTEGER PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
  speaker         TEXT NOT NULL,
  content         TEXT NOT NULL,
  occurred_at     INTEGER NOT NULL,
  ingested_at     INTEGER NOT NULL,
  token_count     INTEGER NOT NULL,
  metadata        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX messages_by_conversation ON messages(conversation_id, seq);
CREATE INDEX messages_by_time ON messages(occurred_at);

CREATE VIRTUAL TABLE messages_fts USING fts5(
  content, speaker,
  content = 'messages', content_rowid = 'pk',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content, speaker) VALUES (new.pk, new.content, new.speaker);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content, speaker) VALUES ('delete', old.pk, old.content, old.speaker);
  DELETE FROM vectors WHERE item_kind = 'message' AND item_id = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, speaker ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content, speaker) VALUES ('delete', old.pk, old.content, old.speaker);
  INSERT INTO messages_fts(rowid, content, speaker) VALUES (new.pk, new.content, new.speaker);
END;

-- One vector per (item, model). item_kind: 'message' | 'fact' | 'memcell' | 'memscene'.
-- vector: little-endian float32 (format 'f32') or int8 with a float32 scale prefix ('i8').
CREATE TABLE vectors (
  item_kind  TEXT NOT NULL,
  item_id    TEXT NOT NULL,
  model_id   TEXT NOT NULL,
  dim        INTEGER NOT NULL,
  format     TEXT NOT NULL DEFAULT 'f32',
  vector     BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (item_kind, item_id, model_id)
) WITHOUT ROWID;
CREATE INDEX vectors_by_model ON vectors(model_id, item_kind);

CREATE TABLE memscenes (
  id               TEXT PRIMARY KEY,
  title            TEXT,
  summary          TEXT,
  summary_stale    INTEGER NOT NULL DEFAULT 1,
  centroid         BLOB,
  centroid_model   TEXT,
  member_count     INTEGER NOT NULL DEFAULT 0,
  last_activity_at INTEGER,
  heat             REAL NOT NULL DEFAULT 0,
  edited_by_user   INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);

-- An episode over a contiguous range of one conversation's turns (first_seq..last_seq).
CREATE TABLE memcells (
  id              TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  first_seq       INTEGER NOT NULL,
  last_seq        INTEGER NOT NULL,
  start_at        INTEGER NOT NULL,
  end_at          INTEGER NOT NULL,
  title           TEXT,
  narrative       TEXT,
  status          TEXT NOT NULL DEFAULT 'raw' CHECK (status IN ('raw', 'queued', 'synthesised', 'failed')),
  scene_id        TEXT REFERENCES memscenes(id) ON DELETE SET NULL,
  heat            REAL NOT NULL DEFAULT 0,
  visits          INTEGER NOT NULL DEFAULT 0,
  last_visited_at INTEGER,
  edited_by_user  INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX memcells_by_conversation ON memcells(conversation_id, first_seq);
CREATE INDEX memcells_by_scene ON memcells(scene_id);

CREATE TABLE facts (
  id             TEXT PRIMARY KEY,
  memcell_id     TEXT NOT NULL REFERENCES memcells(id) ON DELETE CASCADE,
  speaker        TEXT NOT NULL,
  content        TEXT NOT NULL,
  occurred_at    INTEGER,
  valid_from     INTEGER,
  valid_to       INTEGER,
  confidence     REAL NOT NULL DEFAULT 1,
  superseded_by  TEXT REFERENCES facts(id) ON DELETE SET NULL,
  edited_by_user INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX facts_by_memcell ON facts(memcell_id);

CREATE TABLE foresights (
  id          TEXT PRIMARY KEY,
  memcell_id  TEXT REFERENCES memcells(id) ON DELETE CASCADE,
  content     TEXT NOT NULL,
  start_at    INTEGER,
  end_at      INTEGER,
  evidence    TEXT NOT NULL DEFAULT '[]',
  status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired', 'dismissed')),
  source      TEXT NOT NULL DEFAULT 'llm' CHECK (source IN ('llm', 'date-parser', 'user')),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX foresights_by_validity ON foresights(status, end_at);

CREATE TABLE profile_items (
  id             TEXT PRIMARY KEY,
  kind           TEXT NOT NULL CHECK (kind IN ('explicit', 'implicit')),
  key            TEXT NOT NULL,
  value          TEXT NOT NULL,
  confidence     REAL NOT NULL DEFAULT 0.5,
  evidence       TEXT NOT NULL DEFAULT '[]',
  status         TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'conflict', 'deleted')),
  edited_by_user INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX profile_items_by_key ON profile_items(key);

-- Every version a profile item has had, plus recorded conflicts (op = 'conflict').
CREATE TABLE profile_item_history (
  id              INTEGER PRIMARY KEY,
  profile_item_id TEXT NOT NULL REFERENCES profile_items(id) ON DELETE CASCADE,
  op              TEXT NOT NULL CHECK (op IN ('add', 'update', 'delete', 'conflict', 'resolve')),
  value           TEXT,
  confidence      REAL,
  evidence        TEXT NOT NULL DEFAULT '[]',
  reason          TEXT,
  changed_at      INTEGER NOT NULL
);
CREATE INDEX profile_item_history_by_item ON profile_item_history(profile_item_id, changed_at);

-- Durable queue: a closed tab or a down endpoint loses nothing; pending jobs resume on open.
CREATE TABLE jobs (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL,
  dedupe_key  TEXT UNIQUE,
  payload     TEXT NOT NULL DEFAULT '{}',
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  run_after   INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX jobs_by_status ON jobs(status, run_after);

-- The cost ledger. Never holds the API key.
CREATE TABLE llm_calls (
  id                INTEGER PRIMARY KEY,
  stage             TEXT NOT NULL,
  model             TEXT NOT NULL,
  prompt_tokens     INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  tokens_estimated  INTEGER NOT NULL DEFAULT 0,
  latency_ms        INTEGER NOT NULL DEFAULT 0,
  outcome           TEXT NOT NULL,
  error             TEXT,
  job_id            INTEGER REFERENCES jobs(id) ON DELETE SET NULL,
  created_at        INTEGER NOT NULL
);
CREATE INDEX llm_calls_by_time ON llm_calls(created_at);

CREATE VIRTUAL TABLE facts_fts USING fts5(
  content, speaker, content = 'facts', content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, content, speaker) VALUES (new.rowid, new.content, new.speaker);
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, speaker) VALUES ('delete', old.rowid, old.content, old.speaker);
  DELETE FROM vectors WHERE item_kind = 'fact' AND item_id = old.id;
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, speaker ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, speaker) VALUES ('delete', old.rowid, old.content, old.speaker);
  INSERT INTO facts_fts(rowid, content, speaker) VALUES (new.rowid, new.content, new.speaker);
END;

CREATE VIRTUAL TABLE memcells_fts USING fts5(
  title, narrative, content = 'memcells', content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memcells_fts_insert AFTER INSERT ON memcells BEGIN
  INSERT INTO memcells_fts(rowid, title, narrative) VALUES (new.rowid, coalesce(new.title, ''), coalesce(new.narrative, ''));
END;
CREATE TRIGGER memcells_fts_delete AFTER DELETE ON memcells BEGIN
  INSERT INTO memcells_fts(memcells_fts, rowid, title, narrative) VALUES ('delete', old.rowid, coalesce(old.title, ''), coalesce(old.narrative, ''));
  DELETE FROM vectors WHERE item_kind = 'memcell' AND item_id = old.id;
END;
CREATE TRIGGER memcells_fts_update AFTER UPDATE OF title, narrative ON memcells BEGIN
  INSERT INTO memcells_fts(memcells_fts, rowid, title, narrative) VALUES ('delete', old.rowid, coalesce(old.title, ''), coalesce(old.narrative, ''));
  INSERT INTO memcells_fts(rowid, title, narrative) VALUES (new.rowid, coalesce(new.title, ''), coalesce(new.narrative, ''));
END;
CREATE TRIGGER memscenes_vectors_delete AFTER DELETE ON memscenes BEGIN
  DELETE FROM vectors WHERE item_kind = 'memscene' AND item_id = old.id;
END;

PRAGMA application_id = ${RECOLLECT_APPLICATION_ID};
`;

/**
 * v2: the turn index for retrieval. A reply is often meaningless alone ("Yes, last Friday!"), so
 * each turn is indexed with its speaker, its image caption (metadata.caption), the text of its
 * neighbouring turns and its date in words; on the LoCoMo dev split neighbour context lifts BM25
 * recall@10 from 0.606 to ≈0.69 (docs/architecture.md, Measured facts). Columns are separate so retrieval can weight them
 * (bm25 column weights) without re-indexing.
 *
 * `turns_fts` is contentless with contentless_delete (SQLite ≥ 3.43): it stores no second copy
 * of any text; rows are (re)computed from `turn_index_source` by triggers on messages. Appending a
 * turn also re-indexes the turns before it (their "after" context changed); deleting one
 * removes its row and re-indexes its neighbours, so deleted text leaves every index in the same
 * transaction. Neighbours are the TURN_CONTEXT_BEFORE / _AFTER nearest turns of the same
 * conversation no more than TURN_CONTEXT_GAP_MS apart in time (a new session is a new context).
 * Window measured on the LoCoMo dev split (recall.turn@10 with the tuned retriever): 1 before /
 * 1 after 77.3%, 2/1 78.1%, 2/2 77.4%, 3/1 77.5%.
 */
export const TURN_CONTEXT_BEFORE = 2;
export const TURN_CONTEXT_AFTER = 1;
export const TURN_CONTEXT_GAP_MS = 6 * 3_600_000;
/** Column order of turns_fts, for bm25() weights. */
export const TURNS_FTS_COLUMNS = ['speaker', 'content', 'caption', 'before', 'after', 'timeline'] as const;

const MONTH_NAME = `CASE strftime('%m', m.occurred_at / 1000, 'unixepoch')
    WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March' WHEN '04' THEN 'April'
    WHEN '05' THEN 'May' WHEN '06' THEN 'June' WHEN '07' THEN 'July' WHEN '08' THEN 'August'
    WHEN '09' THEN 'September' WHEN '10' THEN 'October' WHEN '11' THEN 'November' ELSE 'December' END`;
/** The turn index's timeline column of message `m`: its month and year in words (UTC), "May 2023". */
export const TURN_TIMELINE = `${MONTH_NAME} || ' ' || strftime('%Y', m.occurred_at / 1000, 'unixepoch')`;

/**
 * The turn index's window as a join condition: message `n` is within `before` turns before and
 * `after` turns after message `h` in its conversation, no more than TURN_CONTEXT_GAP_MS apart.
 */
export function turnWindowJoin(n: string, h: string, before: number, after: number): string {
  return `${n}.conversation_id = ${h}.conversation_id
            AND ${n}.seq BETWEEN ${h}.seq - ${before} AND ${h}.seq + ${after}
            AND abs(${n}.occurred_at - ${h}.occurred_at) <= ${TURN_CONTEXT_GAP_MS}`;
}

/** Turns of the same conversation on one side of `ref`, nearest first (SQL for a pk list). */
function neighbourPks(ref: 'new' | 'old', side: 'before' | 'after', n: number): string {
  const cmp = side === 'before' ? '<' : '>';
  const order = side === 'before' ? 'DESC' : 'ASC';
  return `SELECT pk FROM (SELECT pk FROM messages WHERE conversation_id = ${ref}.conversation_id AND seq ${cmp} ${ref}.seq ORDER BY seq ${order} LIMIT ${n})`;
}

function reindex(pkFilter: string): string {
  return `INSERT OR REPLACE INTO turns_fts(rowid, speaker, content, caption, before, after, timeline)
    SELECT pk, speaker, content, caption, before, after, timeline FROM turn_index_source WHERE ${pkFilter};`;
}

/** v2's trigger re-indexing a changed turn and its neighbours (v8 sets it aside while it only rounds times). */
const TURNS_FTS_UPDATE = /* sql */ `CREATE TRIGGER turns_fts_update AFTER UPDATE OF speaker, content, metadata, occurred_at, seq, conversation_id ON messages BEGIN
  DELETE FROM turns_fts WHERE rowid = old.pk;
  ${reindex(`pk = new.pk OR pk IN (${neighbourPks('old', 'before', TURN_CONTEXT_AFTER)}) OR pk IN (${neighbourPks('old', 'after', TURN_CONTEXT_BEFORE)}) OR pk IN (${neighbourPks('new', 'before', TURN_CONTEXT_AFTER)}) OR pk IN (${neighbourPks('new', 'after', TURN_CONTEXT_BEFORE)})`)}
END;`;

const v2 = /* sql */ `
CREATE VIEW turn_index_source AS
SELECT m.pk AS pk,
  m.speaker AS speaker,
  m.content AS content,
  coalesce(json_extract(m.metadata, '$.caption'), '') AS caption,
  coalesce((SELECT group_concat(x.content, ' ') FROM (
    SELECT p.content FROM messages p
     WHERE p.conversation_id = m.conversation_id AND p.seq < m.seq AND p.occurred_at >= m.occurred_at - ${TURN_CONTEXT_GAP_MS}
     ORDER BY p.seq DESC LIMIT ${TURN_CONTEXT_BEFORE}) x), '') AS before,
  coalesce((SELECT group_concat(x.content, ' ') FROM (
    SELECT p.content FROM messages p
     WHERE p.conversation_id = m.conversation_id AND p.seq > m.seq AND p.occurred_at <= m.occurred_at + ${TURN_CONTEXT_GAP_MS}
     ORDER BY p.seq ASC LIMIT ${TURN_CONTEXT_AFTER}) x), '') AS after,
  ${TURN_TIMELINE} AS timeline
FROM messages m;

CREATE VIRTUAL TABLE turns_fts USING fts5(
  speaker, content, caption, before, after, timeline,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO turns_fts(rowid, speaker, content, caption, before, after, timeline)
  SELECT pk, speaker, content, caption, before, after, timeline FROM turn_index_source;

CREATE TRIGGER turns_fts_insert AFTER INSERT ON messages BEGIN
  ${reindex(`pk = new.pk OR pk IN (${neighbourPks('new', 'before', TURN_CONTEXT_AFTER)}) OR pk IN (${neighbourPks('new', 'after', TURN_CONTEXT_BEFORE)})`)}
END;
CREATE TRIGGER turns_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM turns_fts WHERE rowid = old.pk;
  ${reindex(`pk IN (${neighbourPks('old', 'before', TURN_CONTEXT_AFTER)}) OR pk IN (${neighbourPks('old', 'after', TURN_CONTEXT_BEFORE)})`)}
END;
${TURNS_FTS_UPDATE}
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', sql: v1 },
  { version: 2, name: 'turn index with speaker, caption and neighbour context', sql: v2 },
  { version: 3, name: 'episode lifecycle: open cells, encoding scores, date foresight', sql: v3 },
  { version: 4, name: 'heat and job priority', sql: v4 },
  { version: 5, name: 'tombstones: user deletions the pipeline respects', sql: v5 },
  { version: 6, name: 'turn index updated once per appended batch', sql: v6 },
  { version: 7, name: 'memory switches per conversation; theme tombstones as a column', sql: v7 },
  { version: 8, name: 'whole-ms times (repairs fractional times from history imports)', sql: v8(TURNS_FTS_UPDATE) },
  { version: 9, name: 'lexical text in every FTS index: scripts without spaces, combining marks', sql: v9, run: reindexLexical },
  { version: 10, name: 'deleted means gone: FTS secure-delete, date foresight goes with its turn', sql: v10 },
  { version: 11, name: 'no raw ChatGPT citation markup in stored turns', sql: v11, run: stripStoredChatGptMarkup },
  { version: 12, name: 'failed synthesis jobs count their automatic revivals', sql: v12 },
  { version: 13, name: 'projects: conversations grouped with instructions and a memory mode', sql: v13 },
  { version: 14, name: 'imported projects keep their source id', sql: v14 },
  { version: 15, name: 'conversations: pinned, archived, and a model of their own', sql: v15 },
  // v16 was never used (turn versions became v18); the runner skips a number it does not have.
  { version: 17, name: 'sync: the event log (outbox included) and sync state', sql: v17 },
  { version: 18, name: 'versions of a turn: hidden branches kept out of memory', sql: v18 },
];

/** The queued turns' neighbours (within the window) that are not queued themselves. */
function queuedNeighbours(side: 'before' | 'after', n: number): string {
  const cmp = side === 'before' ? '<' : '>';
  const order = side === 'before' ? 'DESC' : 'ASC';
  return Array.from(
    { length: n },
    (_, i) =>
      `SELECT (SELECT p.pk FROM messages p WHERE p.conversation_id = m.conversation_id AND p.seq ${cmp} m.seq ORDER BY p.seq ${order} LIMIT 1 OFFSET ${i})
       FROM turn_index_queue q JOIN messages m ON m.pk = q.pk`,
  ).join(' UNION ');
}

/**
 * Brings the turn index up to date with the turns queued by v6's insert trigger: first the
 * neighbours outside the batch whose context changed (the turns before a queued one see it as
 * "after" context, the turns after it as "before" context), then the queued turns themselves,
 * each indexed once with its final context; then empties the queue. Run in the transaction that
 * inserted the turns (SqliteMemoryStore.appendTurns).
 */
export const TURN_INDEX_FLUSH: readonly string[] = [
  reindex(`pk IN (${queuedNeighbours('before', TURN_CONTEXT_AFTER)} UNION ${queuedNeighbours('after', TURN_CONTEXT_BEFORE)})
       AND pk NOT IN (SELECT pk FROM turn_index_queue)`),
  reindex('pk IN (SELECT pk FROM turn_index_queue)'),
  'DELETE FROM turn_index_queue',
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
