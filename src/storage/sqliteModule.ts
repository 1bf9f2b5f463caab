/**
 * Loads the synchronous wa-sqlite build (FTS5, JSON1). The sync build is the one that works both
 * with OPFSCoopSyncVFS in a worker and in Node 20 (the JSPI build does not run on Node 20).
 */
import SQLiteESMFactory from '@journeyapps/wa-sqlite/dist/wa-sqlite.mjs';
import * as SQLite from '@journeyapps/wa-sqlite';
import type { WaSqliteModule } from './WaSqliteDatabase';

export interface SqliteRuntime {
  readonly module: WaSqliteModule;
  readonly sqlite3: SQLiteAPI;
}

export async function loadSqlite(options: { wasmBinary?: ArrayBuffer | Uint8Array; wasmUrl?: string }): Promise<SqliteRuntime> {
  const moduleArgs: Record<string, unknown> = {};
  if (options.wasmBinary) moduleArgs.wasmBinary = options.wasmBinary;
  if (options.wasmUrl) {
    const url = options.wasmUrl;
    moduleArgs.locateFile = () => url;
  }
  const module = (await SQLiteESMFactory(moduleArgs)) as unknown as WaSqliteModule;
  const sqlite3 = SQLite.Factory(module);
  return { module, sqlite3 };
}
