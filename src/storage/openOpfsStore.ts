/**
 * Browser entry to storage (engine worker only): the synchronous wa-sqlite build over
 * OPFSCoopSyncVFS, which needs a dedicated worker (sync access handles) but no COOP/COEP.
 * The database is one OPFS file, `recollect.sqlite`.
 */
import { OPFSCoopSyncVFS } from '@journeyapps/wa-sqlite/src/examples/OPFSCoopSyncVFS.js';
import { loadSqlite, type SqliteRuntime } from './sqliteModule';
import { WaSqliteDatabase } from './WaSqliteDatabase';
import { SqliteMemoryStore } from './SqliteMemoryStore';
import { migrate } from './migrate';

export const DATABASE_FILE = 'recollect.sqlite';
const VFS_NAME = 'recollect-opfs';

let runtime: Promise<SqliteRuntime> | undefined;

function browserRuntime(wasmUrl: string): Promise<SqliteRuntime> {
  runtime ??= (async () => {
    const rt = await loadSqlite({ wasmUrl });
    const vfs = await OPFSCoopSyncVFS.create(VFS_NAME, rt.module);
    rt.sqlite3.vfs_register(vfs, false);
    return rt;
  })();
  return runtime;
}

/**
 * Opens (creating and migrating if needed) a persistent database: the app's `recollect.sqlite`
 * by default; the benchmark page passes its own file names so it never touches the user's memory.
 */
export async function openOpfsStore(wasmUrl: string, fileName = DATABASE_FILE): Promise<SqliteMemoryStore> {
  const { module, sqlite3 } = await browserRuntime(wasmUrl);
  const db = await WaSqliteDatabase.open(module, sqlite3, fileName, VFS_NAME);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return new SqliteMemoryStore(db, {
    // Imports are validated in memory before anything touches the OPFS file.
    openTemp: () => WaSqliteDatabase.open(module, sqlite3, ':memory:'),
  });
}
