/**
 * Browser entry to storage (engine worker only): the synchronous wa-sqlite build over
 * OPFSCoopSyncVFS, which needs a dedicated worker (sync access handles) but no COOP/COEP.
 * The database is one OPFS file, `recollect.sqlite`, with its write-ahead log `recollect.sqlite-wal`
 * next to it.
 *
 * Journal: WAL in exclusive locking mode. The VFS has no shared memory, which WAL needs only
 * for several connections; Recollect has exactly one (EngineHost holds a Web Lock for as long as
 * the file is open, and closes it before handing over to another tab). A commit then appends the
 * changed pages to the log and flushes it once, instead of writing a rollback journal, flushing
 * it, writing the pages and flushing again; `synchronous` stays FULL, so a committed turn survives
 * a power cut as well as a killed tab. Measured on the LoCoMo dev split's browser ingest
 * (bench/results/locomo-dev-browser.md): capture 814 → 1,141 turns/s.
 */
import { OPFSCoopSyncVFS } from '@journeyapps/wa-sqlite/src/examples/OPFSCoopSyncVFS.js';
import { loadSqlite, type SqliteRuntime } from './sqliteModule';
import { WaSqliteDatabase } from './WaSqliteDatabase';
import { SqliteMemoryStore } from './SqliteMemoryStore';
import { migrate, type MigrateOptions } from './migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './schema';
import { applyWal } from './walImage';
import { RecollectError } from '../core/base/errors';
import { STORAGE_FULL_MESSAGE } from './WaSqliteDatabase';

export const DATABASE_FILE = 'recollect.sqlite';
const VFS_NAME = 'recollect-opfs';

let runtime: Promise<SqliteRuntime> | undefined;
let vfsRegistered: Promise<void> | undefined;

function browserRuntime(wasmUrl: string): Promise<SqliteRuntime> {
  runtime ??= loadSqlite({ wasmUrl });
  return runtime;
}


/**
 * The VFS creates a temporary directory with a few files when it starts, which a full quota
 * refuses (QuotaExceededError; more likely just after a reload, while the previous worker's
 * directory is still locked and cannot be removed yet). That must not keep the user out of their
 * memory, so it is tried inside the open's fallback, and tried again on the next open.
 */
async function registerVfs(rt: SqliteRuntime): Promise<void> {
  vfsRegistered ??= (async () => {
    const vfs = await OPFSCoopSyncVFS.create(VFS_NAME, rt.module);
    rt.sqlite3.vfs_register(vfs, false);
  })();
  try {
    await vfsRegistered;
  } catch (err) {
    vfsRegistered = undefined;
    throw err;
  }
}

/**
 * Starts fetching and compiling SQLite's WebAssembly (streaming) and setting up the VFS (its OPFS
 * directory) as soon as the worker runs, so they overlap the page's handshake with the worker
 * instead of following it; openOpfsStore then finds them under way or done. A failure surfaces in
 * openOpfsStore, where it always did (registerVfs forgets a failed attempt and tries again there).
 */
export function preloadSqlite(wasmUrl: string): void {
  browserRuntime(wasmUrl).then(registerVfs).catch(() => undefined);
}

/**
 * Progress of a migration that rebuilds data (schema 9 re-indexes every turn), to the console at
 * most every 10%: a large memory takes seconds to open once, and should not look frozen.
 */
function migrationLog(): NonNullable<MigrateOptions['onProgress']> {
  let shown = -1;
  return (m, done, total) => {
    const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
    if (tenth === shown) return;
    shown = tenth;
    console.info(`Recollect: ${m.name}: ${done} / ${total}`);
  };
}

/** Exclusive locking first: without it SQLite would need the shared memory this VFS lacks. */
async function useWriteAheadLog(db: WaSqliteDatabase): Promise<void> {
  await db.query('PRAGMA locking_mode = EXCLUSIVE');
  const [row] = await db.query<{ journal_mode: string }>('PRAGMA journal_mode = WAL');
  // Not fatal: the rollback journal is just as safe, only slower.
  if (String(row?.journal_mode).toLowerCase() !== 'wal') console.warn(`Recollect: write-ahead logging unavailable; journal mode is ${String(row?.journal_mode)}.`);
  // A page cache of 16 MB instead of SQLite's 2 MB: inserting a batch of turns rewrites the
  // full-text indexes' b-tree pages, and each page that fell out of a small cache is read back
  // from OPFS (a synchronous read on the worker) before it is changed.
  await db.query('PRAGMA cache_size = -16384');
}

/**
 * Opens (creating and migrating if needed) a persistent database: the app's `recollect.sqlite`
 * by default; the benchmark page passes its own file names so it never touches the user's memory.
 */
export async function openOpfsStore(wasmUrl: string, fileName = DATABASE_FILE, onProgress?: (step: string, done: number, total: number) => void): Promise<SqliteMemoryStore> {
  const rt = await browserRuntime(wasmUrl);
  const { module, sqlite3 } = rt;
  let db: WaSqliteDatabase | null = null;
  try {
    await registerVfs(rt);
    db = await WaSqliteDatabase.open(module, sqlite3, fileName, VFS_NAME);
    await useWriteAheadLog(db);
    const log = migrationLog();
    await migrate(db, MIGRATIONS, LATEST_SCHEMA_VERSION, {
      onProgress: (m, done, total) => {
        log(m, done, total);
        onProgress?.(m.name, done, total);
      },
    });
  } catch (err) {
    await db?.close().catch(() => undefined);
    if (!isQuotaError(err)) throw err;
    // Too full for the VFS to start or for SQLite to open the file (its log and temporary files
    // need room): open a read-only copy in memory, so the memory can still be read, searched and
    // exported.
    db = await openReadOnlyCopy(module, sqlite3, fileName);
  }
  return new SqliteMemoryStore(db, {
    // Imports are validated in memory before anything touches the OPFS file.
    openTemp: () => WaSqliteDatabase.open(module, sqlite3, ':memory:'),
  });
}

function isQuotaError(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  return e?.name === 'QuotaExceededError' || e?.code === 'STORAGE_FULL' || /quota/i.test(String(e?.message ?? ''));
}

async function readOpfsFile(name: string): Promise<Uint8Array | null> {
  const root = await navigator.storage.getDirectory();
  try {
    const handle = await root.getFileHandle(name);
    return new Uint8Array(await (await handle.getFile()).arrayBuffer());
  } catch { // NotFoundError: there is no such file
    return null;
  }
}

async function openReadOnlyCopy(module: SqliteRuntime['module'], sqlite3: SqliteRuntime['sqlite3'], fileName: string): Promise<WaSqliteDatabase> {
  const main = await readOpfsFile(fileName);
  if (!main) throw new RecollectError('STORAGE_FULL', STORAGE_FULL_MESSAGE);
  const db = await WaSqliteDatabase.open(module, sqlite3, ':memory:');
  await db.deserialize(applyWal(main, await readOpfsFile(`${fileName}-wal`)));
  await db.exec('PRAGMA query_only = ON');
  db.openedReadOnlyBecauseFull = true;
  return db;
}
