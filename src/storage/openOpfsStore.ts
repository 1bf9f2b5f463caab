/**
 * Browser entry to storage (engine worker only): the synchronous wa-sqlite build over
 * OPFSCoopSyncVFS, which needs a dedicated worker (sync access handles) but no COOP/COEP.
 * The database is one OPFS file, `recollect.sqlite`, with its write-ahead log `recollect.sqlite-wal`
 * next to it.
 * Journal: WAL in exclusive locking mode (writeAheadLog.ts).
 */
import * as SQLite from '@journeyapps/wa-sqlite';
import { OPFSCoopSyncVFS } from '@journeyapps/wa-sqlite/src/examples/OPFSCoopSyncVFS.js';
import { loadSqlite, type SqliteRuntime } from './sqliteModule';
import { WaSqliteDatabase } from './WaSqliteDatabase';
import { SqliteMemoryStore } from './SqliteMemoryStore';
import { migrate, type MigrateOptions } from './migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './schema';
import { applyWal } from './walImage';
import { RecollectError } from '../core/base/errors';
import { STORAGE_FULL_MESSAGE } from './WaSqliteDatabase';
import { openWhenReleased } from './openWhenReleased';
import { useWriteAheadLog } from './writeAheadLog';
import { resumeCutShortScrub } from './deletedTerms';

export const DATABASE_FILE = 'recollect.sqlite';
const VFS_NAME = 'recollect-opfs';

let runtime: Promise<SqliteRuntime> | undefined;
let vfsRegistered: Promise<void> | undefined;
/** The registered VFS, for releaseStrayHandles. */
let coopVfs: unknown = null;

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
    coopVfs = vfs;
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
  browserRuntime(wasmUrl)
    .then(registerVfs)
    .catch(() => undefined);
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

/**
 * Opens (creating and migrating if needed) a persistent database: the app's `recollect.sqlite`
 * by default; the benchmark page passes its own file names so it never touches the user's memory.
 * A tab that has just closed may still hold the files for a moment after handing over its lock:
 * the open is tried again until they are free (openWhenReleased), each failed try closing what it
 * opened.
 */
export function openOpfsStore(
  wasmUrl: string,
  fileName = DATABASE_FILE,
  onProgress?: (step: string, done: number, total: number) => void,
): Promise<SqliteMemoryStore> {
  // The files' states this open's retries dropped: a handle still being created then lands there.
  const retired = new Set<VfsFileState>();
  return openWhenReleased(() => openOnce(wasmUrl, fileName, onProgress), { beforeRetry: () => releaseStrayHandles(fileName, retired) });
}

/**
 * A memory that keeps nothing: the same schema on SQLite's in-memory database, for a window that has
 * no OPFS (a Firefox private window, storageUnavailable.ts). Everything works as usual — storing,
 * search, answers, export (sqlite3_serialize), import (deserialize into it) — and all of it is gone
 * when the worker ends. The engine host reports such an open as temporary, and the UI says so.
 */
export async function openTemporaryStore(wasmUrl: string): Promise<SqliteMemoryStore> {
  const { module, sqlite3 } = await browserRuntime(wasmUrl);
  const db = await WaSqliteDatabase.open(module, sqlite3, ':memory:');
  try {
    await migrate(db, MIGRATIONS, LATEST_SCHEMA_VERSION);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return new SqliteMemoryStore(db, { openTemp: () => WaSqliteDatabase.open(module, sqlite3, ':memory:') });
}

/** What OPFSCoopSyncVFS (2.0.6, pinned) keeps per file: public fields of its PersistentFile. */
interface VfsFileState {
  accessHandle: { close(): void } | null;
  handleLockReleaser: (() => void) | null;
  handleRequestChannel?: { close(): void };
}

/**
 * Closes the access handles a failed open left open in this worker. OPFSCoopSyncVFS takes the
 * handles of the database, its journal and its log together (Promise.all): when one fails it closes
 * those it already has and gives up, but the others are still being created and arrive afterwards,
 * held by nobody. Every later try then failed on this worker's own handles — in Chromium the open
 * never recovered, although the other tab had long let the file go. Before each retry those handles
 * are closed and the file's entries dropped, so the VFS starts the file afresh.
 */
function releaseStrayHandles(fileName: string, retired: Set<VfsFileState>): void {
  const files = (coopVfs as { persistentFiles?: Map<string, VfsFileState> } | null)?.persistentFiles;
  if (!files) return;
  for (const suffix of ['', '-journal', '-wal']) {
    const path = `/${fileName}${suffix}`;
    const state = files.get(path);
    if (!state) continue;
    files.delete(path);
    state.handleRequestChannel?.close();
    retired.add(state);
  }
  for (const state of retired) {
    try {
      state.accessHandle?.close();
    } catch {
      /* already closed */
    }
    state.accessHandle = null;
    state.handleLockReleaser?.();
    state.handleLockReleaser = null;
  }
}

async function openOnce(
  wasmUrl: string,
  fileName: string,
  onProgress?: (step: string, done: number, total: number) => void,
): Promise<SqliteMemoryStore> {
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
    // A scrub cut short (the tab closed between its steps) goes on: deleted words wait in no index.
    await resumeCutShortScrub(db);
  } catch (err) {
    // Never leave a half-open connection behind: the open may be tried again at once.
    await db?.close().catch(() => undefined);
    if (!isQuotaError(err)) throw (await heldElsewhere(err, fileName)) ?? err;
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

/**
 * OPFSCoopSyncVFS catches the error of a first open's access handles itself (it only logs it), and
 * SQLite then says no more than "unable to open database file" (SQLITE_CANTOPEN), which has other
 * causes too. So the file is asked: when an access handle on it cannot be created either
 * (NoModificationAllowedError), that DOMException is the real reason — the file is still held, and
 * openWhenReleased tries again — else the SQLite error stands, at once. Null when it stands.
 */
async function heldElsewhere(err: unknown, fileName: string): Promise<unknown> {
  const code = err instanceof SQLite.SQLiteError ? Number(err.code) : NaN;
  if ((code & 0xff) !== SQLite.SQLITE_CANTOPEN) return null;
  try {
    const file = await (await navigator.storage.getDirectory()).getFileHandle(fileName);
    (await file.createSyncAccessHandle()).close();
    return null;
  } catch (probe) {
    return (probe as { name?: unknown } | null)?.name === 'NoModificationAllowedError' ? probe : null;
  }
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
  } catch {
    // NotFoundError: there is no such file
    return null;
  }
}

async function openReadOnlyCopy(
  module: SqliteRuntime['module'],
  sqlite3: SqliteRuntime['sqlite3'],
  fileName: string,
): Promise<WaSqliteDatabase> {
  const main = await readOpfsFile(fileName);
  if (!main) throw new RecollectError('STORAGE_FULL', STORAGE_FULL_MESSAGE);
  const db = await WaSqliteDatabase.open(module, sqlite3, ':memory:');
  await db.deserialize(applyWal(main, await readOpfsFile(`${fileName}-wal`)));
  await db.exec('PRAGMA query_only = ON');
  db.openedReadOnlyBecauseFull = true;
  return db;
}
