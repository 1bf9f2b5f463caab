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
 * index that holds a tombstone page is merged until none is left: the merge rewrites the index
 * without the tombstoned rows, and with `PRAGMA secure_delete` the pages it frees are zeroed. Its
 * cost grows with the index, not with what was deleted (every deletion rewrites the whole index,
 * since the previous one left it one segment): at 5,000 real-length turns ≈ 9 MB of index pages,
 * ≈ 0.2–0.5 s of merging and 0.6–1 s of commit in a browser profile on disk, 15–20 s of commit in
 * Playwright's in-memory OPFS (bench/deleteDuringIndexing.ts); it grows linearly with the memory
 * (bench/deleteMerge.ts). So the merge runs in steps of MERGE_STEP_PAGES pages, each its own
 * transaction (`'merge', -N`: an incremental optimize that continues where the last step stopped),
 * and nothing waits for all of it but the caller of `whenScrubbed()`: reads go between steps.
 *
 * A step that fails (storage full — the merged segment needs room before the old ones are freed)
 * is undone and the scrub stops there; the terms then leave with the next deletion's scrub or the
 * next open's. A deletion must work when storage is full.
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
 * Pages one scrub step merges at most ('merge', -N writes roughly N leaf pages): ≈ 0.8 MB of index,
 * whatever the size of the memory. A read that arrives during a step waits for it: 500 pages were
 * 0.1–0.35 s on a real profile (bench/deleteMerge.ts) but 2.7–6.8 s of COMMIT in Playwright's
 * in-memory OPFS, where each 4 KB write is ≈ 1.5 ms (bench/results/delete-profile-2026-11-28.md).
 */
export const MERGE_STEP_PAGES = 200;

/**
 * The meta key that says a deletion's scrub has not finished: written in the deletion's own
 * transaction, removed by the step that finds nothing left to merge. An open resumes the scrub
 * only when it is there: the turn index re-indexes a turn's neighbours on every append, which
 * leaves deleted-row pages too, and merging those at every open rewrote whole indexes (seconds
 * of writes at each reload of a 5,000-turn memory) for no deleted text.
 */
export const SCRUB_PENDING_KEY = 'fts.scrubPending';

/** Marks a scrub pending (inside the deletion's transaction); a database without a meta table has nothing to resume. */
export async function markScrubPending(tx: Sql): Promise<void> {
  try {
    await tx.exec("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", [SCRUB_PENDING_KEY]);
  } catch {
    // no meta table (a bare database): nothing reads the mark there
  }
}

/** Clears the mark (inside the step that found nothing left to merge). */
export async function clearScrubPending(tx: Sql): Promise<void> {
  try {
    await tx.exec('DELETE FROM meta WHERE key = ?', [SCRUB_PENDING_KEY]);
  } catch {
    // no meta table: nothing was marked
  }
}

/** Whether a deletion's scrub was cut short (the tab closed between its steps). */
export async function scrubPending(sql: Sql): Promise<boolean> {
  try {
    const [row] = await sql.query<{ n: number }>('SELECT count(*) AS n FROM meta WHERE key = ?', [SCRUB_PENDING_KEY]);
    return Number(row?.n ?? 0) > 0;
  } catch {
    return false;
  }
}

/**
 * Inside a write transaction: one step of merging the deleted terms out of the first index that
 * holds some. Returns 'done' when no index holds deleted terms (nothing was merged), 'merged' after
 * a step, 'failed' when the step failed (undone, reported, never thrown).
 */
export async function mergeDeletedTermsStep(tx: Sql, pages = MERGE_STEP_PAGES): Promise<'done' | 'merged' | 'failed'> {
  const [t] = await indexesWithDeletedTerms(tx);
  if (!t) return 'done';
  await tx.exec('SAVEPOINT merge_deleted_terms');
  try {
    await tx.exec(`INSERT INTO ${t}(${t}, rank) VALUES ('merge', ?)`, [-pages]);
    await tx.exec('RELEASE merge_deleted_terms');
    return 'merged';
  } catch (err) {
    await tx.exec('ROLLBACK TO merge_deleted_terms').catch(() => undefined);
    await tx.exec('RELEASE merge_deleted_terms').catch(() => undefined);
    console.warn(`Recollect: the words of deleted text could not be merged out of ${t} yet; the next deletion tries again.`, err);
    return 'failed';
  }
}

/**
 * Inside a write transaction: merges every index holding deleted terms in one go (`optimize`), so
 * they leave the file with this commit. Returns the indexes merged; a merge that failed is undone
 * and reported, never thrown. For a one-off clean-up (and the benchmark's "before"); deletions
 * scrub in steps (WaSqliteDatabase).
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

/** At open: a deletion's scrub cut short goes on (the mark says so); true when one was resumed. */
export async function resumeCutShortScrub(db: Sql & { contentRemoved(): void }): Promise<boolean> {
  if (!(await scrubPending(db))) return false;
  db.contentRemoved();
  return true;
}
