/**
 * v9: every FTS index holds the lexical form of its text (core/base/lexicalUnits), so words of
 * scripts written without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Burmese) are found
 * inside sentences. Under v1–v8, unicode61 kept such a run as one token: known-item recall@10 of
 * a word from a Chinese turn was 0.03.
 *
 * - Every FTS table is fed through the SQL function `lexical_text` (registered on every
 *   connection by WaSqliteDatabase.open): the triggers of messages, facts and memcells call it,
 *   and the turn index view `turn_index_source` applies it to its text columns, so every
 *   existing trigger and TURN_INDEX_FLUSH statement that reads the view indexes lexical text.
 * - messages_fts, facts_fts and memcells_fts become contentless with contentless_delete, like
 *   turns_fts: an external-content table re-tokenizes its source table's text for 'delete',
 *   integrity checks and snippet(), which no longer matches what was indexed (and a later change
 *   of the rule would corrupt the index on delete). Deleting by rowid needs no copy of the
 *   indexed text; snippets are built in JS (core/base/highlight). Contentless also stores no
 *   second copy of any text.
 * - The tokenizer also keeps combining marks inside words (`categories 'L* N* Co M*'`): with the
 *   default categories, Thai vowel and tone marks, Devanagari signs or Arabic harakat split a
 *   word into pieces.
 * - The indexes are rebuilt by `reindexLexical` in pages, with progress, inside the migration's
 *   transaction: a large memory takes seconds, and the caller can show how far it is.
 *
 * The context window numbers below are v2's (2 turns before, 1 after, 6 hours), frozen here.
 */
import type { Sql } from '../core/base/sql';

export type MigrationProgress = (done: number, total: number) => void;

/**
 * `lexical_text(expr)` for text with any non-ASCII character, the text itself otherwise (the
 * function's own ASCII fast path, decided in SQL so plain English never crosses into JS: each
 * crossing costs about as much as indexing a short turn).
 */
const lex = (expr: string) =>
  `CASE WHEN ${expr} GLOB '*[^' || char(1) || '-' || char(127) || ']*' THEN lexical_text(${expr}) ELSE coalesce(${expr}, '') END`;

const TOKENIZE = `tokenize = "porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'"`;
const GAP_MS = 6 * 3_600_000;

const MONTH_NAME = `CASE strftime('%m', m.occurred_at / 1000, 'unixepoch')
    WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March' WHEN '04' THEN 'April'
    WHEN '05' THEN 'May' WHEN '06' THEN 'June' WHEN '07' THEN 'July' WHEN '08' THEN 'August'
    WHEN '09' THEN 'September' WHEN '10' THEN 'October' WHEN '11' THEN 'November' ELSE 'December' END`;

export const v9 = /* sql */ `
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5(
  content, speaker,
  content = '', contentless_delete = 1,
  ${TOKENIZE}
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content, speaker) VALUES (new.pk, ${lex('new.content')}, ${lex('new.speaker')});
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.pk;
  DELETE FROM vectors WHERE item_kind = 'message' AND item_id = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, speaker ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.pk;
  INSERT INTO messages_fts(rowid, content, speaker) VALUES (new.pk, ${lex('new.content')}, ${lex('new.speaker')});
END;

DROP TRIGGER facts_fts_insert;
DROP TRIGGER facts_fts_delete;
DROP TRIGGER facts_fts_update;
DROP TABLE facts_fts;
CREATE VIRTUAL TABLE facts_fts USING fts5(
  content, speaker,
  content = '', contentless_delete = 1,
  ${TOKENIZE}
);
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, content, speaker) VALUES (new.rowid, ${lex('new.content')}, ${lex('new.speaker')});
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
  DELETE FROM facts_fts WHERE rowid = old.rowid;
  DELETE FROM vectors WHERE item_kind = 'fact' AND item_id = old.id;
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, speaker ON facts BEGIN
  DELETE FROM facts_fts WHERE rowid = old.rowid;
  INSERT INTO facts_fts(rowid, content, speaker) VALUES (new.rowid, ${lex('new.content')}, ${lex('new.speaker')});
END;

DROP TRIGGER memcells_fts_insert;
DROP TRIGGER memcells_fts_delete;
DROP TRIGGER memcells_fts_update;
DROP TABLE memcells_fts;
CREATE VIRTUAL TABLE memcells_fts USING fts5(
  title, narrative,
  content = '', contentless_delete = 1,
  ${TOKENIZE}
);
CREATE TRIGGER memcells_fts_insert AFTER INSERT ON memcells BEGIN
  INSERT INTO memcells_fts(rowid, title, narrative) VALUES (new.rowid, ${lex('new.title')}, ${lex('new.narrative')});
END;
CREATE TRIGGER memcells_fts_delete AFTER DELETE ON memcells BEGIN
  DELETE FROM memcells_fts WHERE rowid = old.rowid;
  DELETE FROM vectors WHERE item_kind = 'memcell' AND item_id = old.id;
END;
CREATE TRIGGER memcells_fts_update AFTER UPDATE OF title, narrative ON memcells BEGIN
  DELETE FROM memcells_fts WHERE rowid = old.rowid;
  INSERT INTO memcells_fts(rowid, title, narrative) VALUES (new.rowid, ${lex('new.title')}, ${lex('new.narrative')});
END;

-- The turn index: the view feeds every re-index statement (triggers and TURN_INDEX_FLUSH), so
-- applying the function here covers them all. The triggers name turns_fts and the view only at
-- run time, so they survive the tables being recreated underneath them.
DROP VIEW turn_index_source;
CREATE VIEW turn_index_source AS
SELECT m.pk AS pk,
  ${lex('m.speaker')} AS speaker,
  ${lex('m.content')} AS content,
  ${lex("coalesce(json_extract(m.metadata, '$.caption'), '')")} AS caption,
  coalesce((SELECT group_concat(${lex('x.content')}, ' ') FROM (
    SELECT p.content FROM messages p
     WHERE p.conversation_id = m.conversation_id AND p.seq < m.seq AND p.occurred_at >= m.occurred_at - ${GAP_MS}
     ORDER BY p.seq DESC LIMIT 2) x), '') AS before,
  coalesce((SELECT group_concat(${lex('x.content')}, ' ') FROM (
    SELECT p.content FROM messages p
     WHERE p.conversation_id = m.conversation_id AND p.seq > m.seq AND p.occurred_at <= m.occurred_at + ${GAP_MS}
     ORDER BY p.seq ASC LIMIT 1) x), '') AS after,
  ${MONTH_NAME} || ' ' || strftime('%Y', m.occurred_at / 1000, 'unixepoch') AS timeline
FROM messages m;
DROP TABLE turns_fts;
CREATE VIRTUAL TABLE turns_fts USING fts5(
  speaker, content, caption, before, after, timeline,
  content = '', contentless_delete = 1,
  ${TOKENIZE}
);
`;

/** Rows indexed per statement: small enough that progress moves every fraction of a second. */
const PAGE = 500;

interface Pass {
  readonly count: string;
  readonly range: string;
  /** Inserts the rows with key in (?, ?]. */
  readonly insert: string;
}

const PASSES: readonly Pass[] = [
  {
    count: 'SELECT count(*) AS n FROM messages',
    range: 'SELECT min(pk) AS lo, max(pk) AS hi FROM messages',
    insert: `INSERT INTO messages_fts(rowid, content, speaker)
      SELECT pk, lexical_text(content), lexical_text(speaker) FROM messages WHERE pk > ? AND pk <= ?`,
  },
  {
    count: 'SELECT count(*) AS n FROM messages',
    range: 'SELECT min(pk) AS lo, max(pk) AS hi FROM messages',
    insert: `INSERT INTO turns_fts(rowid, speaker, content, caption, before, after, timeline)
      SELECT pk, speaker, content, caption, before, after, timeline FROM turn_index_source WHERE pk > ? AND pk <= ?`,
  },
  {
    count: 'SELECT count(*) AS n FROM facts',
    range: 'SELECT min(rowid) AS lo, max(rowid) AS hi FROM facts',
    insert: `INSERT INTO facts_fts(rowid, content, speaker)
      SELECT rowid, lexical_text(content), lexical_text(speaker) FROM facts WHERE rowid > ? AND rowid <= ?`,
  },
  {
    count: 'SELECT count(*) AS n FROM memcells',
    range: 'SELECT min(rowid) AS lo, max(rowid) AS hi FROM memcells',
    insert: `INSERT INTO memcells_fts(rowid, title, narrative)
      SELECT rowid, lexical_text(title), lexical_text(narrative) FROM memcells WHERE rowid > ? AND rowid <= ?`,
  },
];

/**
 * Fills the FTS tables v9 recreated empty, in pages of keys, reporting rows done out of rows in
 * all. Keys are walked by range (sparse keys only make some pages smaller).
 */
export async function reindexLexical(tx: Sql, onProgress?: MigrationProgress): Promise<void> {
  const totals: number[] = [];
  for (const p of PASSES) totals.push(Number((await tx.query<{ n: number }>(p.count))[0]?.n ?? 0));
  const total = totals.reduce((a, b) => a + b, 0);
  let done = 0;
  onProgress?.(0, total);
  for (const [i, p] of PASSES.entries()) {
    if (totals[i] === 0) continue;
    const [r] = await tx.query<{ lo: number; hi: number }>(p.range);
    const lo = Number(r?.lo ?? 0);
    const hi = Number(r?.hi ?? 0);
    for (let from = lo - 1; from < hi; from += PAGE) {
      await tx.exec(p.insert, [from, Math.min(hi, from + PAGE)]);
      done += tx.changes();
      onProgress?.(Math.min(done, total), total);
    }
  }
}
