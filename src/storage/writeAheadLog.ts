/**
 * The journal of a persistent database: write-ahead logging in exclusive locking mode (the
 * browser's OPFS file, and Node files opened with `journal: 'wal'` for tests of what the log
 * keeps). The OPFS VFS has no shared memory, which WAL needs only for several connections;
 * Recollect has exactly one (EngineHost holds a Web Lock for as long as the file is open, and
 * closes it before handing over to another tab). A commit then appends the changed pages to the
 * log and flushes it once, instead of writing a rollback journal, flushing it, writing the pages
 * and flushing again; `synchronous` stays FULL, so a committed turn survives a power cut as well as
 * a killed tab. Measured on the LoCoMo dev split's browser ingest
 * (bench/results/locomo-dev-browser.md): capture 814 → 1,141 turns/s.
 *
 * What the log keeps: every committed page is appended, so its frames hold pages as they were
 * before later commits, deletions included, until a checkpoint resets it. A transaction that
 * removes the person's content therefore ends with a truncating checkpoint
 * (WaSqliteDatabase.contentRemoved), and `journal_size_limit` bounds what a reset log keeps.
 */
import type { Sql } from '../core/base/sql';

/** Exclusive locking first: without it SQLite would need the shared memory this VFS lacks. */
export async function useWriteAheadLog(db: Sql): Promise<void> {
  await db.query('PRAGMA locking_mode = EXCLUSIVE');
  const [row] = await db.query<{ journal_mode: string }>('PRAGMA journal_mode = WAL');
  // Not fatal: the rollback journal is just as safe, only slower.
  if (String(row?.journal_mode).toLowerCase() !== 'wal')
    console.warn(`Recollect: write-ahead logging unavailable; journal mode is ${String(row?.journal_mode)}.`);
  // A page cache of 16 MB instead of SQLite's 2 MB: inserting a batch of turns rewrites the
  // full-text indexes' b-tree pages, and each page that fell out of a small cache is read back
  // from OPFS (a synchronous read on the worker) before it is changed.
  await db.query('PRAGMA cache_size = -16384');
  // The log is reused from its start after each checkpoint, but keeps its largest size, and the
  // frames past the reused part — pages as they once were — stay in the file. Cut back to 4 MiB
  // when it is reset (a large import can grow it far beyond the ~4 MB the automatic checkpoint at
  // 1,000 pages keeps it to). Deletions clear it entirely (WaSqliteDatabase.contentRemoved).
  await db.query(`PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
}

/** Bytes the write-ahead log is cut back to when it is reset. */
export const JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024;
