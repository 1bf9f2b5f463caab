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
 * So a transaction that removed the person's content (Sql.contentRemoved) merges, before it
 * commits, every index that holds a tombstone page: `optimize` rewrites the index into one segment
 * without the tombstoned rows, and with `PRAGMA secure_delete` the pages it frees are zeroed. Its
 * cost grows with the index, not with what was deleted: measured in Node on a file database of
 * 10,000 turns of ≈1,300 characters (28 MB), 0.7–0.9 s per deletion for the message and turn
 * indexes together, a few ms for facts and episodes (the probe in test/storage/deletedFromLog.test.ts
 * shows the effect, not the time).
 *
 * The merge runs under a savepoint: if it fails (storage full — the merged segment needs room
 * before the old ones are freed), it is undone and the deletion still commits; the terms then
 * leave with the next deletion's merge. A deletion must work when storage is full.
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
  const present = new Set(
    (
      await sql.query<{ name: string }>(
        `SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN (${FTS_TABLES.map(() => '?').join(', ')})`,
        [...FTS_TABLES],
      )
    ).map((r) => r.name),
  );
  const out: string[] = [];
  for (const t of FTS_TABLES) {
    if (!present.has(t)) continue;
    const [row] = await sql.query<{ n: number }>(`SELECT EXISTS (SELECT 1 FROM ${t}_data WHERE id >= ${FIRST_TOMBSTONE_ROWID}) AS n`);
    if (Number(row?.n ?? 0) === 1) out.push(t);
  }
  return out;
}

/**
 * Inside a write transaction: merges every index holding deleted terms, so they leave the file with
 * this commit. Returns the indexes merged; a merge that failed is undone and reported, never thrown.
 */
export async function mergeDeletedTerms(tx: Sql): Promise<string[]> {
  const merged: string[] = [];
  for (const t of await indexesWithDeletedTerms(tx)) {
    await tx.exec('SAVEPOINT merge_deleted_terms');
    try {
      await tx.exec(`INSERT INTO ${t}(${t}) VALUES ('optimize')`);
      await tx.exec('RELEASE merge_deleted_terms');
      merged.push(t);
    } catch (err) {
      await tx.exec('ROLLBACK TO merge_deleted_terms').catch(() => undefined);
      await tx.exec('RELEASE merge_deleted_terms').catch(() => undefined);
      console.warn(`Recollect: the words of deleted text could not be merged out of ${t} yet; the next deletion tries again.`, err);
    }
  }
  return merged;
}
