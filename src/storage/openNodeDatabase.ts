/**
 * Node entry to storage: an in-memory database on the same wa-sqlite build the browser uses, for
 * unit tests and the benchmark runner, plus saving/loading the whole database as a .sqlite file
 * (open the result with any SQLite tool). Browser code must not import this module.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { loadSqlite, type SqliteRuntime } from './sqliteModule';
import { WaSqliteDatabase } from './WaSqliteDatabase';
import { migrate } from './migrate';
import { SqliteMemoryStore } from './SqliteMemoryStore';
import { compactedCopy } from './databaseTransfer';
import type { Clock } from '../core/base/ports';
import { NodeFileVfs } from './nodeFileVfs';
import { useWriteAheadLog } from './writeAheadLog';

let runtime: Promise<SqliteRuntime> | undefined;

/** One SQLite module per process; connections share it (the backup API requires that). */
export function nodeSqliteRuntime(): Promise<SqliteRuntime> {
  runtime ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve('@journeyapps/wa-sqlite/dist/wa-sqlite.wasm');
    return loadSqlite({ wasmBinary: await readFile(wasmPath) });
  })();
  return runtime;
}

/** Opens a fresh in-memory connection. With `migrateSchema` (default) it is at the latest schema. */
export async function openMemoryDatabase(options: { migrateSchema?: boolean } = {}): Promise<WaSqliteDatabase> {
  const { module, sqlite3 } = await nodeSqliteRuntime();
  const db = await WaSqliteDatabase.open(module, sqlite3, ':memory:');
  if (options.migrateSchema ?? true) await migrate(db);
  return db;
}

const FILE_VFS = 'recollect-node-file';
let fileVfs: Promise<void> | undefined;

/**
 * Opens (creating and migrating if needed) the database file at `path` itself, not a copy in
 * memory: writes go to disk as they commit and memory stays at SQLite's page cache. Exclusive
 * locking (one writer: this process); the rollback journal is kept in memory, so a transaction
 * can still roll back, but a crash mid-write can damage the file — callers write to a copy,
 * sync it and rename it when done (syncFile). `journal: 'wal'`: the browser's journal instead
 * (writeAheadLog.ts), with the log next to the file, for tests of what the log keeps.
 */
export async function openFileDatabase(path: string, options: { journal?: 'memory' | 'wal' } = {}): Promise<WaSqliteDatabase> {
  const { module, sqlite3 } = await nodeSqliteRuntime();
  fileVfs ??= NodeFileVfs.create(FILE_VFS, module).then((vfs) => {
    sqlite3.vfs_register(vfs as unknown as SQLiteVFS, false);
  });
  await fileVfs;
  const db = await WaSqliteDatabase.open(module, sqlite3, path, FILE_VFS);
  try {
    if (options.journal === 'wal') {
      await useWriteAheadLog(db);
    } else {
      await db.query('PRAGMA locking_mode = EXCLUSIVE');
      await db.query('PRAGMA journal_mode = MEMORY');
      // The caller syncs once when done (a copy renamed into place), not at every commit; a bounded
      // 32 MB page cache keeps the index pages a batch touches out of the file.
      await db.query('PRAGMA synchronous = OFF');
      await db.query('PRAGMA cache_size = -32768');
    }
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** Flushes a closed database file to disk (before it is renamed into place). */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a compacted, consistent copy of the database to `path` (no free page, as the app's
 * export), atomically: the bytes go to a temporary file
 * in the same directory (a rename is atomic only within one file system), are flushed to disk, and
 * only then replace `path`. A process killed mid-write leaves the previous file whole (and at
 * worst a stray `.partial` file); writing in place once cut an 11.7 MB memory to a corrupt 2 MB.
 */
export async function saveDatabaseFile(db: WaSqliteDatabase, path: string): Promise<void> {
  const bytes = await compactedCopy(db, () => openMemoryDatabase({ migrateSchema: false }));
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.partial`);
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** Opens a .sqlite file as an in-memory database (the file itself is not modified). */
export async function loadDatabaseFile(path: string, options: { migrateSchema?: boolean } = {}): Promise<WaSqliteDatabase> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  await db.deserialize(await readFile(path));
  if (options.migrateSchema ?? true) await migrate(db);
  return db;
}

/** A MemoryStore on the database file at `path` itself (openFileDatabase; the scale benchmark's kept database). */
export async function openFileStore(
  path: string,
  options: { clock?: Clock; newId?: () => string; journal?: 'memory' | 'wal' } = {},
): Promise<SqliteMemoryStore> {
  const db = await openFileDatabase(path, { journal: options.journal });
  return new SqliteMemoryStore(db, { ...options, openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
}

/** A MemoryStore on a fresh in-memory database (tests, benchmark runner). */
export async function openNodeStore(options: { clock?: Clock; newId?: () => string } = {}): Promise<SqliteMemoryStore> {
  const db = await openMemoryDatabase();
  return new SqliteMemoryStore(db, { ...options, openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
}
