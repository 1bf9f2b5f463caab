/**
 * A deleted row's words leave the full-text indexes' pages, not only their search results.
 *
 * Every FTS5 index here is contentless with `contentless_delete = 1` (schemaV9.ts). Deleting from
 * such a table does not touch the segment that holds the row's terms: it adds the rowid to that
 * segment's tombstone list, and the terms (single words, lowercased and stemmed) stay in the
 * database file until the segment is merged. FTS5's `secure-delete` option, set on all four
 * indexes since v10, applies only to deletions that name the old values (content tables and the
 * 'delete' command, which contentless_delete tables refuse), so it does nothing here — measured on
 * this build (SQLite 3.53): a marker word deleted from a turn was still in the file's bytes.
 *
 * So after a transaction that removed the person's content (Sql.contentRemoved) commits, every
 * index that holds a tombstone page is merged into one segment without the tombstoned rows, and
 * with `PRAGMA secure_delete` the pages it frees are zeroed; the deletion's promise resolves only
 * then. Its cost grows with the index, not with what was deleted (≈1.2–1.7 s at 30,000 turns of
 * ≈1,000 characters, Node), so the merge runs in steps of MERGE_STEP_PAGES pages, each its own
 * short write transaction, and other reads and writes run between the steps (a recall during a
 * deletion waits ≈50 ms, not the whole merge). A crash between the deletion's commit and the
 * merge's end leaves tombstones; the next open finishes the merge.
 *
 * Each step runs under a savepoint: if it fails (storage full — the merged segment needs room
 * before the old ones are freed), it is undone and the deletion stays committed; the terms then
 * leave with the next deletion's or open's merge. A deletion must work when storage is full.
 */
import type { Sql } from '../core/base/sql';

/** Every full-text index of the schema. */
export const FTS_TABLES = ['messages_fts', 'turns_fts', 'facts_fts', 'memcells_fts'] as const;

/**
 * The lowest rowid of a tombstone page in an FTS5 `%_data` table: fts5_index.c numbers them
 * `FTS5_TOMBSTONE_ROWID(segid, pg) = (segid + 2^16) << 37 | pg`, above every leaf and doclist-index
 * page (whose segment ids are below 2^16).
 */
const FIRST_TOMBSTONE_ROWID = '9007199254740992'; // 2^16 << 37 = 2^53

/** The indexes that hold a tombstone, i.e. terms of a deleted row. */
export async function indexesWithDeletedTerms(sql: Sql): Promise<string[]> {
  const present = new Set((await sql.query<{ name: string }>(
    `SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN (${FTS_TABLES.map(() => '?').join(', ')})`, [...FTS_TABLES])).map((r) => r.name));
  const out: string[] = [];
  for (const t of FTS_TABLES) {
    if (!present.has(t)) continue;
    const [row] = await sql.query<{ n: number }>(`SELECT EXISTS (SELECT 1 FROM ${t}_data WHERE id >= ${FIRST_TOMBSTONE_ROWID}) AS n`);
    if (Number(row?.n ?? 0) === 1) out.push(t);
  }
  return out;
}

/** Index pages one merge step rewrites: ≈50 ms a step on a 30,000-turn memory (Node). */
export const MERGE_STEP_PAGES = 100;

/**
 * One step of the merge of `table` (FTS5's incremental 'merge' with a negative page count works
 * toward one segment as 'optimize' does, `pages` at a time), inside a write transaction; a step
 * that failed (storage full) is undone. Returns whether merging may go on (false: the step failed,
 * or found nothing to do though a tombstone is left).
 */
export async function mergeStep(tx: Sql, table: string, pages = MERGE_STEP_PAGES): Promise<boolean> {
  // The index's structure record (rowid 10 of %_data) changes with every step that did work.
  const structure = async () => (await tx.query<{ s: string }>(`SELECT hex(block) AS s FROM ${table}_data WHERE id = 10`))[0]?.s ?? '';
  await tx.exec('SAVEPOINT merge_deleted_terms');
  try {
    const before = await structure();
    await tx.exec(`INSERT INTO ${table}(${table}, rank) VALUES ('merge', ?)`, [-pages]);
    let cleared = true;
    // A step that found nothing to merge while a tombstone is left: the whole merge, at once (and
    // if even that leaves one, stop rather than loop).
    if ((await structure()) === before) {
      await tx.exec(`INSERT INTO ${table}(${table}) VALUES ('optimize')`);
      cleared = !(await indexesWithDeletedTerms(tx)).includes(table);
    }
    await tx.exec('RELEASE merge_deleted_terms');
    return cleared;
  } catch (err) {
    await tx.exec('ROLLBACK TO merge_deleted_terms').catch(() => undefined);
    await tx.exec('RELEASE merge_deleted_terms').catch(() => undefined);
    console.warn(`Recollect: the words of deleted text could not be merged out of ${table} yet; the next deletion or open tries again.`, err);
    return false;
  }
}
