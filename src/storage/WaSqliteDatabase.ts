/**
 * The `Sql` capability over one wa-sqlite connection, plus the whole-file operations the app
 * needs (serialize for export, deserialize and the backup API for import). Shared by the browser
 * worker (OPFSCoopSyncVFS) and Node (in-memory); only how the connection is opened differs.
 *
 * Quirks relied on:
 * - The wa-sqlite builds are compiled without WASM_BIGINT, so every sqlite3_int64 argument of a raw
 *   C call is passed as two i32 halves (lo, hi).
 * - wa-sqlite serialises statement execution per connection only if callers await each call; all
 *   access goes through `#serial` so interleaved async callers (UI + background jobs) never
 *   interleave statements inside one another's transactions.
 * - Preparing is not free: parse + plan, and for an INSERT on `messages` also compiling every
 *   trigger program (the turn index re-indexes neighbours). Single-statement SQL is therefore
 *   prepared once and kept in a small LRU cache keyed by its text (`statements(…, { unscoped })`
 *   leaves the handle to us). Invariants: a cached statement is always reset and its bindings
 *   cleared after use (so it holds no read lock and no parameter leaks into the next call, and an
 *   error does not poison it); one that is still running (a caller overlapping calls inside a
 *   transaction) is never reused — the overlapping call gets a one-off statement; close() and the
 *   whole-file operations finalize every cached statement. Schema changes need nothing:
 *   prepare_v3 statements re-prepare themselves on SQLITE_SCHEMA.
 */
import * as SQLite from '@journeyapps/wa-sqlite';
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import { RecollectError } from '../core/base/errors';
import { lexicalText } from '../core/base/lexicalUnits';
import { clearScrubPending, markScrubPending, MERGE_STEP_PAGES, mergeDeletedTermsStep } from './deletedTerms';

/** Receives each statement's text, start (performance.now()) and duration in ms. */
export type SqlTrace = (sql: string, start: number, ms: number) => void;

/** The parts of the Emscripten module we call directly (exports present in every wa-sqlite build). */
export interface WaSqliteModule {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  _malloc(n: number): number;
  _free(p: number): void;
  _sqlite3_malloc64(lo: number, hi: number): number;
  _sqlite3_free(p: number): void;
  _sqlite3_serialize(db: number, zSchema: number, piSize: number, flags: number): number;
  _sqlite3_deserialize(
    db: number,
    zSchema: number,
    pData: number,
    szLo: number,
    szHi: number,
    bufLo: number,
    bufHi: number,
    flags: number,
  ): number;
  _sqlite3_backup_init(dest: number, zDest: number, src: number, zSrc: number): number;
  _sqlite3_backup_step(b: number, n: number): number | Promise<number>;
  _sqlite3_backup_finish(b: number): number;
  ccall(name: string, ret: 'string', argTypes: ['number'], args: [number]): string;
}

const SQLITE_DESERIALIZE_FREEONCLOSE = 1;
const SQLITE_DESERIALIZE_RESIZEABLE = 2;

/** How long the connection must be idle before a scrub step starts (see #whenQuiet). */
const SCRUB_QUIET_MS = 150;

/** Distinct statements kept prepared per connection (the app has well under 100 distinct SQL texts). */
const STATEMENT_CACHE_SIZE = 128;

interface CachedStatement {
  readonly stmt: number;
  /** Stepping right now: an overlapping call with the same SQL must not share it. */
  busy: boolean;
  /** Dropped from the cache while busy: finalize when released. */
  evicted: boolean;
}

/**
 * The SQL text without trailing semicolons/space, or null when it may hold more than one
 * statement. Conservative: any other `;` (even inside a literal or comment) means "not cached".
 */
function singleStatement(sql: string): string | null {
  const body = sql.replace(/[\s;]+$/, '');
  return body.includes(';') ? null : body;
}

/**
 * Header bytes 18/19 (file format write/read version) are 2 for a database in WAL mode. A file
 * taken out of its directory — an export, an import from another tool — has no log beside it, and
 * SQLite's in-memory databases cannot open WAL-mode images, so snapshots are marked as
 * rollback-journal files (1/1), which every SQLite reads. The pages themselves are unchanged.
 */
function markRollbackJournal(bytes: Uint8Array): void {
  if (bytes.byteLength >= 100 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
}

/** Name of the SQL function every FTS index is fed through (core/base/lexicalUnits `lexicalText`). */
export const LEXICAL_TEXT_FUNCTION = 'lexical_text';

/**
 * Registers `lexical_text(text)` on a connection. The FTS triggers and the turn index view call
 * it, so it must exist on every connection that writes memory: deterministic (usable in
 * triggers and views) and innocuous (allowed when `trusted_schema` is off, as on import).
 */
function registerLexicalText(module: WaSqliteModule, sqlite3: SQLiteAPI, db: number): void {
  // wa-sqlite 2.0.6 keys its JS callbacks of user functions by function NAME for the whole module,
  // and registering a name again drops the previous callback — which breaks the function on every
  // other open connection (live database + import temp, or parallel tests). Our callback is the
  // same pure function everywhere, so the drop is suppressed for this one registration.
  const callbacks = module as unknown as { deleteCallback?: (key: number) => void };
  const drop = callbacks.deleteCallback;
  callbacks.deleteCallback = () => undefined;
  try {
    sqlite3.create_function(
      db,
      LEXICAL_TEXT_FUNCTION,
      1,
      SQLite.SQLITE_UTF8 | SQLite.SQLITE_DETERMINISTIC | SQLite.SQLITE_INNOCUOUS,
      0,
      (context, values) => {
        const value = values[0]!;
        const text = sqlite3.value_type(value) === SQLite.SQLITE_NULL ? '' : sqlite3.value_text(value);
        sqlite3.result_text(context, lexicalText(text));
      },
    );
  } finally {
    callbacks.deleteCallback = drop;
  }
}

export class WaSqliteDatabase implements Sql {
  readonly sqlite3: SQLiteAPI;
  readonly module: WaSqliteModule;
  readonly db: number;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #replacements = 0;
  /** Prepared statements by SQL text, least recently used first (Map keeps insertion order). */
  readonly #statements = new Map<string, CachedStatement>();

  constructor(module: WaSqliteModule, sqlite3: SQLiteAPI, db: number) {
    this.module = module;
    this.sqlite3 = sqlite3;
    this.db = db;
  }

  /** Set when the storage was too full to open the file, and this is a read-only copy in memory. */
  openedReadOnlyBecauseFull = false;

  static async open(module: WaSqliteModule, sqlite3: SQLiteAPI, filename: string, vfs?: string): Promise<WaSqliteDatabase> {
    const db = await sqlite3.open_v2(filename, SQLite.SQLITE_OPEN_CREATE | SQLite.SQLITE_OPEN_READWRITE, vfs);
    const conn = new WaSqliteDatabase(module, sqlite3, db);
    try {
      await conn.exec('PRAGMA foreign_keys = ON');
      // Deleted content is overwritten with zeros, so a freed page or cell no longer holds it from
      // the commit on. That covers the file and an export, not the write-ahead log: its earlier
      // frames still hold the pages as they were until the log is reset, which a transaction that
      // removed content does by a truncating checkpoint after it commits (contentRemoved).
      await conn.exec('PRAGMA secure_delete = ON');
      // Statement journals and sort spills go to memory: on OPFS each would otherwise be a temp
      // file (sync access handle create/write/delete), measured at 3.6× the OPFS writes of ingest.
      await conn.exec('PRAGMA temp_store = MEMORY');
      registerLexicalText(module, sqlite3, db);
    } catch (err) {
      // The first statement is where the OPFS VFS takes the file's access handles; when that fails
      // (a closing tab still holds them) the connection is half open. Close it, or every retried
      // open would leak one.
      await conn.close().catch(() => undefined);
      throw err;
    }
    return conn;
  }

  // ---- Sql -----------------------------------------------------------------------------------

  exec(sql: string, params?: readonly SqlValue[]): Promise<void> {
    return this.#serial(() => this.#run(sql, params, false)).then(() => undefined);
  }

  query<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#serial(() => this.#run(sql, params, true)) as Promise<T[]>;
  }

  changes(): number {
    return this.sqlite3.changes(this.db);
  }

  /** Outside a transaction: the statement just run removed content; the log and its index terms are cleared next. */
  contentRemoved(): void {
    this.#serial(async () => {
      await markScrubPending(this.#inner);
      await this.#truncateLog();
      this.#scheduleScrub();
    }).catch(() => undefined); // closed meanwhile: nothing left to clear
  }

  async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    // The callback gets a handle that bypasses the queue (the transaction holds it), so nested
    // work through `tx` cannot deadlock, and unrelated callers wait until COMMIT/ROLLBACK.
    return this.#serial(async () => {
      await this.#run('BEGIN IMMEDIATE', undefined, false);
      this.#removedContent = false;
      try {
        const result = await fn(this.#inner);
        if (this.#removedContent) await markScrubPending(this.#inner);
        await this.#run('COMMIT', undefined, false);
        if (this.#removedContent) {
          // Before the caller hears that the deletion is done: the rows' own pages as they were
          // leave the log now; their words leave the full-text indexes in steps queued right behind
          // this transaction (deletedTerms.ts), before any call made after this one returns.
          await this.#truncateLog();
          this.#scheduleScrub();
        }
        return result;
      } catch (err) {
        try {
          if (!this.sqlite3.get_autocommit(this.db)) await this.#run('ROLLBACK', undefined, false);
        } catch {
          /* the original error matters more than a failed rollback */
        }
        throw err;
      }
    });
  }

  /** Pages one scrub step merges at most (deletedTerms.ts; tests set it small to see several steps). */
  scrubStepPages = MERGE_STEP_PAGES;

  /** The scrub under way (merging deleted terms out of the indexes), or null. */
  #scrub: Promise<void> | null = null;
  /** A deletion committed while a scrub ran: it goes round again once it ends. */
  #scrubAgain = false;

  /**
   * Resolves once the words of every deletion committed so far have left the full-text indexes'
   * pages and the write-ahead log (or the scrub stopped on a failure, reported in the console).
   */
  whenScrubbed(): Promise<void> {
    return this.#scrub ?? Promise.resolve();
  }

  /**
   * Called inside a serial task that just committed a deletion: runs the scrub's steps one at a
   * time, each only once nothing else waits for the connection (#whenQuiet), so what the person
   * asked for next (the list without the deleted conversation, a search, a send) is answered before
   * the scrub goes on, and waits at most one step. The step that finds nothing left to merge
   * truncates the log in the same task: no reader sees the scrub done with pages still there.
   */
  #scheduleScrub(): void {
    if (this.#scrub) {
      this.#scrubAgain = true;
      return;
    }
    const step = () =>
      this.#serial(async () => {
        await this.#run('BEGIN IMMEDIATE', undefined, false);
        let outcome: Awaited<ReturnType<typeof mergeDeletedTermsStep>>;
        try {
          outcome = await mergeDeletedTermsStep(this.#inner, this.scrubStepPages);
          if (outcome === 'done') await clearScrubPending(this.#inner);
          await this.#run('COMMIT', undefined, false);
        } catch (err) {
          if (!this.sqlite3.get_autocommit(this.db)) await this.#run('ROLLBACK', undefined, false).catch(() => undefined);
          throw err;
        }
        if (outcome !== 'merged') await this.#truncateLog();
        return outcome;
      });
    const scrub = (async () => {
      for (let steps = 0; ; steps++) {
        await this.#whenQuiet();
        const outcome = await step();
        if (outcome === 'failed') return;
        if (outcome === 'done' && !this.#scrubAgain) return;
        this.#scrubAgain = false;
        // A bound on a loop SQLite ends by itself (each step writes up to MERGE_STEP_PAGES pages of
        // a finite index): 100,000 steps is 200 GB of index.
        if (steps > 100_000) throw new Error('the full-text merge did not finish');
      }
    })()
      .catch((err: unknown) => {
        if (!this.#closed)
          console.warn(
            'Recollect: the words of deleted text could not be merged out of the full-text indexes yet; the next deletion tries again.',
            err,
          );
      })
      .finally(() => {
        if (this.#scrub !== scrub) return;
        this.#scrub = null;
        // A deletion that committed between the last step and here.
        if (this.#scrubAgain && !this.#closed) {
          this.#scrubAgain = false;
          this.#scheduleScrub();
        }
      });
    this.#scrub = scrub;
  }

  /** Sql handle used inside a running transaction: runs directly, nested transactions join. */
  readonly #inner: Sql = {
    exec: async (sql, params) => {
      await this.#run(sql, params, false);
    },
    query: async <T extends SqlRow>(sql: string, params?: readonly SqlValue[]) => (await this.#run(sql, params, true)) as T[],
    transaction: (fn) => fn(this.#inner),
    changes: () => this.changes(),
    contentRemoved: () => {
      this.#removedContent = true;
    },
  };

  /** Set by `contentRemoved` inside the running transaction; read after its COMMIT. */
  #removedContent = false;

  /**
   * Copies the write-ahead log into the database file and truncates the log to zero bytes
   * (sqlite.org/pragma.html#pragma_wal_checkpoint), so no frame of a page as it was before a
   * deletion is left in the `-wal` file; with secure_delete the pages copied back hold zeros where
   * the content was. Without a log (rollback journal, memory) SQLite does nothing. A checkpoint that
   * fails (a full disk: the file may need to grow) leaves the deletion committed and the log as it
   * was, to be cleared by the next deletion or automatic checkpoint: the deletion must not be
   * reported as failed, and must work when storage is full.
   */
  async #truncateLog(): Promise<void> {
    try {
      const [r] = await this.#run('PRAGMA wal_checkpoint(TRUNCATE)', undefined, true);
      if (Number(r?.busy ?? 0) !== 0) console.warn('Recollect: the write-ahead log could not be cleared after a deletion (busy).');
    } catch (err) {
      console.warn('Recollect: the write-ahead log could not be cleared after a deletion.', err);
    }
  }

  // ---- whole-database operations ---------------------------------------------------------------

  /**
   * A consistent copy of the whole database file. It waits for the scrub of deletions committed
   * before it: an export never carries the words of a deletion the person already saw done.
   */
  async serialize(): Promise<Uint8Array> {
    await this.whenScrubbed();
    return this.#serial(async () => {
      // Hold a read transaction so the VFS has its access handle and the snapshot is consistent
      // (sqlite3_serialize returns NULL on OPFSCoopSyncVFS without one).
      const own = this.sqlite3.get_autocommit(this.db) !== 0;
      if (own) await this.#run('BEGIN', undefined, false);
      try {
        await this.#run('SELECT count(*) FROM sqlite_schema', undefined, true);
        const m = this.module;
        const zMain = this.#cString('main');
        const piSize = m._malloc(8);
        try {
          const p = m._sqlite3_serialize(this.db, zMain, piSize, 0);
          if (!p) throw new RecollectError('SQL_ERROR', 'Could not read the database for export (sqlite3_serialize failed).');
          const size = m.HEAP32[piSize >> 2]!;
          const out = m.HEAPU8.slice(p, p + size);
          m._sqlite3_free(p);
          markRollbackJournal(out);
          return out;
        } finally {
          m._free(piSize);
          m._free(zMain);
        }
      } finally {
        if (own) await this.#run('COMMIT', undefined, false);
      }
    });
  }

  /** Replaces this connection's "main" with an in-memory copy of `bytes` (Node / temp databases). */
  deserialize(bytes: Uint8Array): Promise<void> {
    return this.#serial(async () => {
      await this.#finalizeStatements();
      this.#replacements++;
      const m = this.module;
      const p = m._sqlite3_malloc64(bytes.byteLength, 0);
      if (!p) throw new RecollectError('SQL_ERROR', 'Out of memory while loading the database.');
      m.HEAPU8.set(bytes, p);
      markRollbackJournal(m.HEAPU8.subarray(p, p + bytes.byteLength));
      const zMain = this.#cString('main');
      try {
        const rc = m._sqlite3_deserialize(
          this.db,
          zMain,
          p,
          bytes.byteLength,
          0,
          bytes.byteLength,
          0,
          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE,
        );
        if (rc !== SQLite.SQLITE_OK) throw new RecollectError('SQL_ERROR', `Could not load the database (sqlite3_deserialize rc=${rc}).`);
      } finally {
        m._free(zMain);
      }
    });
  }

  /**
   * Copies every page of `source` over this database with the SQLite backup API. The copy is one
   * write transaction on the destination: a crash part-way leaves the old content intact.
   */
  replaceWith(source: WaSqliteDatabase): Promise<void> {
    return this.#serial(async () => {
      await this.#finalizeStatements();
      this.#replacements++;
      const m = this.module;
      if (source.module !== m) throw new RecollectError('INTERNAL', 'Backup needs both connections in one SQLite module.');
      const zMain = this.#cString('main');
      try {
        const b = m._sqlite3_backup_init(this.db, zMain, source.db, zMain);
        if (!b)
          throw new RecollectError(
            'SQL_ERROR',
            `Could not start replacing the database (${m.ccall('sqlite3_errmsg', 'string', ['number'], [this.db])}).`,
          );
        const stepRc = await m._sqlite3_backup_step(b, -1);
        const finishRc = m._sqlite3_backup_finish(b);
        if (stepRc !== SQLite.SQLITE_DONE || finishRc !== SQLite.SQLITE_OK) {
          throw new RecollectError('SQL_ERROR', `Replacing the database failed (backup rc=${stepRc}/${finishRc}).`);
        }
      } finally {
        m._free(zMain);
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#serial(async () => {
      this.#closed = true;
      // sqlite3_close fails with SQLITE_BUSY while any statement is unfinalized.
      await this.#finalizeStatements();
      await this.sqlite3.close(this.db);
    });
  }

  /** Times the content was replaced whole (Sql.replacements). */
  get replacements(): number {
    return this.#replacements;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Number of statements currently kept prepared (for tests). */
  get cachedStatementCount(): number {
    return this.#statements.size;
  }

  // ---- internals ---------------------------------------------------------------------------

  #serial<T>(task: () => Promise<T>): Promise<T> {
    this.#waiting++;
    const run = this.#queue.then(() => {
      this.#waiting--;
      this.#started++;
      if (this.#closed) throw new RecollectError('SQL_ERROR', 'The database is closed.');
      return task();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Tasks queued on the connection that have not started yet. */
  #waiting = 0;
  /** Tasks started on the connection so far (a quiet window is one in which this did not move). */
  #started = 0;

  /**
   * Resolves once the connection has had nothing to do for SCRUB_QUIET_MS: the page's next calls
   * after a deletion (its events reach the page, which asks for the list again — a few messages
   * between threads) are answered before a scrub step takes the connection.
   */
  async #whenQuiet(): Promise<void> {
    for (;;) {
      await this.#queue;
      const started = this.#started;
      await new Promise((resolve) => setTimeout(resolve, SCRUB_QUIET_MS));
      if (this.#waiting === 0 && this.#started === started) return;
    }
  }

  async #run(sql: string, params: readonly SqlValue[] | undefined, collect: boolean): Promise<SqlRow[]> {
    // A benchmark's probe (bench/deleteProfile.ts sets it in the worker): each statement's start and
    // duration. One property read per statement when unset.
    const trace = (globalThis as { __recollectSqlTrace?: SqlTrace }).__recollectSqlTrace;
    if (!trace) return this.#runStatement(sql, params, collect);
    const start = performance.now();
    try {
      return await this.#runStatement(sql, params, collect);
    } finally {
      trace(sql, start, performance.now() - start);
    }
  }

  async #runStatement(sql: string, params: readonly SqlValue[] | undefined, collect: boolean): Promise<SqlRow[]> {
    try {
      const single = singleStatement(sql);
      if (single === null) return await this.#runScript(sql, params, collect);
      const entry = await this.#acquire(single);
      if (!entry) return [];
      try {
        if (params && params.length > 0) this.sqlite3.bind_collection(entry.stmt, params as unknown as SQLiteCompatibleType[]);
        return await this.#step(entry.stmt, collect);
      } finally {
        await this.#release(single, entry);
      }
    } catch (err) {
      if (err instanceof RecollectError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      if (
        isStorageFull(err) ||
        (this.openedReadOnlyBecauseFull && ((err as { code?: number }).code ?? 0) % 256 === SQLite.SQLITE_READONLY)
      ) {
        throw new RecollectError('STORAGE_FULL', STORAGE_FULL_MESSAGE, `${message}: ${sql.trim().slice(0, 300)}`);
      }
      // The cause stays attached: opening tells a file still held by a closing tab (a DOMException
      // from the VFS) from other failures (openWhenReleased).
      throw new RecollectError('SQL_ERROR', `Database error: ${message}`, sql.trim().slice(0, 500), { cause: err });
    }
  }

  /** Several statements (migrations, scripts): prepared one at a time, each finalized after use. */
  async #runScript(sql: string, params: readonly SqlValue[] | undefined, collect: boolean): Promise<SqlRow[]> {
    const rows: SqlRow[] = [];
    let bound = false;
    for await (const stmt of this.sqlite3.statements(this.db, sql)) {
      if (params && params.length > 0) {
        if (bound) throw new RecollectError('INVALID_INPUT', 'Parameters can only be bound to a single statement.');
        this.sqlite3.bind_collection(stmt, params as unknown as SQLiteCompatibleType[]);
        bound = true;
      }
      rows.push(...(await this.#step(stmt, collect)));
    }
    return rows;
  }

  async #step(stmt: number, collect: boolean): Promise<SqlRow[]> {
    const rows: SqlRow[] = [];
    let columns: string[] | undefined;
    while ((await this.sqlite3.step(stmt)) === SQLite.SQLITE_ROW) {
      if (!collect) continue;
      columns ??= this.sqlite3.column_names(stmt);
      const values = this.sqlite3.row(stmt);
      const row: SqlRow = {};
      for (let i = 0; i < columns.length; i++) row[columns[i]!] = (values[i] ?? null) as SqlValue;
      rows.push(row);
    }
    return rows;
  }

  /** The cached statement for `sql` (marked busy), a one-off one if that is busy, or null for empty SQL. */
  async #acquire(sql: string): Promise<CachedStatement | null> {
    const cached = this.#statements.get(sql);
    if (cached && !cached.busy) {
      this.#statements.delete(sql); // move to the most recently used end
      this.#statements.set(sql, cached);
      cached.busy = true;
      return cached;
    }
    const stmt = await this.#prepare(sql);
    if (!stmt) return null;
    const entry: CachedStatement = { stmt, busy: true, evicted: cached !== undefined };
    if (!cached) {
      this.#statements.set(sql, entry);
      for (const [key, old] of this.#statements) {
        if (this.#statements.size <= STATEMENT_CACHE_SIZE) break;
        this.#statements.delete(key);
        if (old.busy) old.evicted = true;
        else await this.sqlite3.finalize(old.stmt);
      }
    }
    return entry;
  }

  /** Makes the statement reusable (reset + clear bindings), or finalizes it if it is not cached. */
  async #release(sql: string, entry: CachedStatement): Promise<void> {
    entry.busy = false;
    if (entry.evicted || this.#statements.get(sql) !== entry) {
      await this.sqlite3.finalize(entry.stmt);
      return;
    }
    try {
      // After a failed step, reset returns (and wa-sqlite throws) that step's error: already reported.
      await this.sqlite3.reset(entry.stmt);
    } catch {
      /* the statement is reset regardless */
    }
    this.sqlite3.clear_bindings(entry.stmt);
  }

  async #prepare(sql: string): Promise<number> {
    let stmt = 0;
    // Only the first statement: singleStatement() guarantees nothing follows but space.
    for await (const s of this.sqlite3.statements(this.db, sql, { unscoped: true })) {
      stmt = s;
      break;
    }
    return stmt;
  }

  async #finalizeStatements(): Promise<void> {
    const entries = [...this.#statements.values()];
    this.#statements.clear();
    for (const entry of entries) {
      if (entry.busy) entry.evicted = true;
      else await this.sqlite3.finalize(entry.stmt);
    }
  }

  #cString(s: string): number {
    const bytes = new TextEncoder().encode(s);
    const p = this.module._malloc(bytes.byteLength + 1);
    this.module.HEAPU8.set(bytes, p);
    this.module.HEAPU8[p + bytes.byteLength] = 0;
    return p;
  }
}

export const STORAGE_FULL_MESSAGE =
  'Recollect could not save this: the storage this browser gives the site is full (or the disk is). Nothing stored before is lost, and your memory can still be read, searched and exported. ' +
  "To make room, export your memory (Export), delete conversations you do not need, or free disk space or other sites' data; then try again.";

/**
 * SQLITE_FULL, or an I/O error while writing: the OPFS file system reports an exhausted quota as a
 * failed write (QuotaExceededError inside the VFS), which SQLite turns into "disk I/O error".
 */
function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'number') return false;
  const primary = code & 0xff;
  if (primary === SQLite.SQLITE_FULL) return true;
  // SQLITE_IOERR_WRITE (3), _FSYNC (4), _TRUNCATE (6) and the plain IOERR some VFS paths return.
  return primary === SQLite.SQLITE_IOERR && [0, 3, 4, 6].includes(code >> 8);
}
