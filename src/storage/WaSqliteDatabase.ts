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
 */
import * as SQLite from '@journeyapps/wa-sqlite';
import type { Sql, SqlRow, SqlValue } from '../core/sql';
import { RecollectError } from '../core/errors';

/** The parts of the Emscripten module we call directly (exports present in every wa-sqlite build). */
export interface WaSqliteModule {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  _malloc(n: number): number;
  _free(p: number): void;
  _sqlite3_malloc64(lo: number, hi: number): number;
  _sqlite3_free(p: number): void;
  _sqlite3_serialize(db: number, zSchema: number, piSize: number, flags: number): number;
  _sqlite3_deserialize(db: number, zSchema: number, pData: number, szLo: number, szHi: number, bufLo: number, bufHi: number, flags: number): number;
  _sqlite3_backup_init(dest: number, zDest: number, src: number, zSrc: number): number;
  _sqlite3_backup_step(b: number, n: number): number | Promise<number>;
  _sqlite3_backup_finish(b: number): number;
  ccall(name: string, ret: 'string', argTypes: ['number'], args: [number]): string;
}

const SQLITE_DESERIALIZE_FREEONCLOSE = 1;
const SQLITE_DESERIALIZE_RESIZEABLE = 2;

export class WaSqliteDatabase implements Sql {
  readonly sqlite3: SQLiteAPI;
  readonly module: WaSqliteModule;
  readonly db: number;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(module: WaSqliteModule, sqlite3: SQLiteAPI, db: number) {
    this.module = module;
    this.sqlite3 = sqlite3;
    this.db = db;
  }

  static async open(module: WaSqliteModule, sqlite3: SQLiteAPI, filename: string, vfs?: string): Promise<WaSqliteDatabase> {
    const db = await sqlite3.open_v2(filename, SQLite.SQLITE_OPEN_CREATE | SQLite.SQLITE_OPEN_READWRITE, vfs);
    const conn = new WaSqliteDatabase(module, sqlite3, db);
    await conn.exec('PRAGMA foreign_keys = ON');
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

  async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    // The callback gets a handle that bypasses the queue (the transaction holds it), so nested
    // work through `tx` cannot deadlock, and unrelated callers wait until COMMIT/ROLLBACK.
    return this.#serial(async () => {
      await this.#run('BEGIN IMMEDIATE', undefined, false);
      try {
        const result = await fn(this.#inner);
        await this.#run('COMMIT', undefined, false);
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

  /** Sql handle used inside a running transaction: runs directly, nested transactions join. */
  readonly #inner: Sql = {
    exec: async (sql, params) => {
      await this.#run(sql, params, false);
    },
    query: async <T extends SqlRow>(sql: string, params?: readonly SqlValue[]) => (await this.#run(sql, params, true)) as T[],
    transaction: (fn) => fn(this.#inner),
    changes: () => this.changes(),
  };

  // ---- whole-database operations ---------------------------------------------------------------

  /** A consistent copy of the whole database file. */
  serialize(): Promise<Uint8Array> {
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
      const m = this.module;
      const p = m._sqlite3_malloc64(bytes.byteLength, 0);
      if (!p) throw new RecollectError('SQL_ERROR', 'Out of memory while loading the database.');
      m.HEAPU8.set(bytes, p);
      const zMain = this.#cString('main');
      try {
        const rc = m._sqlite3_deserialize(this.db, zMain, p, bytes.byteLength, 0, bytes.byteLength, 0,
          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
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
      const m = this.module;
      if (source.module !== m) throw new RecollectError('INTERNAL', 'Backup needs both connections in one SQLite module.');
      const zMain = this.#cString('main');
      try {
        const b = m._sqlite3_backup_init(this.db, zMain, source.db, zMain);
        if (!b) throw new RecollectError('SQL_ERROR', `Could not start replacing the database (${m.ccall('sqlite3_errmsg', 'string', ['number'], [this.db])}).`);
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
      await this.sqlite3.close(this.db);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  // ---- internals ---------------------------------------------------------------------------

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#closed) throw new RecollectError('SQL_ERROR', 'The database is closed.');
      return task();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #run(sql: string, params: readonly SqlValue[] | undefined, collect: boolean): Promise<SqlRow[]> {
    const rows: SqlRow[] = [];
    try {
      let bound = false;
      for await (const stmt of this.sqlite3.statements(this.db, sql)) {
        if (params && params.length > 0) {
          if (bound) throw new RecollectError('INVALID_INPUT', 'Parameters can only be bound to a single statement.');
          this.sqlite3.bind_collection(stmt, params as unknown as SQLiteCompatibleType[]);
          bound = true;
        }
        let columns: string[] | undefined;
        while ((await this.sqlite3.step(stmt)) === SQLite.SQLITE_ROW) {
          if (!collect) continue;
          columns ??= this.sqlite3.column_names(stmt);
          const values = this.sqlite3.row(stmt);
          const row: SqlRow = {};
          for (let i = 0; i < columns.length; i++) row[columns[i]!] = (values[i] ?? null) as SqlValue;
          rows.push(row);
        }
      }
    } catch (err) {
      if (err instanceof RecollectError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new RecollectError('SQL_ERROR', `Database error: ${message}`, sql.trim().slice(0, 500));
    }
    return rows;
  }

  #cString(s: string): number {
    const bytes = new TextEncoder().encode(s);
    const p = this.module._malloc(bytes.byteLength + 1);
    this.module.HEAPU8.set(bytes, p);
    this.module.HEAPU8[p + bytes.byteLength] = 0;
    return p;
  }
}
