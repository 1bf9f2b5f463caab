/**
 * The migration runner. The schema version is `PRAGMA user_version` (readable by any SQLite
 * tool); each migration runs in its own transaction with its version bump.
 */
import type { Sql } from '../core/base/sql';
import { RecollectError } from '../core/base/errors';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, RECOLLECT_APPLICATION_ID, type Migration } from './schema';
import type { MigrationProgress } from './schemaV9';

export interface MigrateOptions {
  /** Progress of a migration that rebuilds data in JS (e.g. v9's re-index): rows done of all. */
  readonly onProgress?: (migration: Migration, done: number, total: number) => void;
}

export async function schemaVersion(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ user_version: number }>('PRAGMA user_version');
  return Number(row?.user_version ?? 0);
}

export async function applicationId(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ application_id: number }>('PRAGMA application_id');
  return Number(row?.application_id ?? 0);
}

/**
 * Brings the database to `target` (default: latest). Refuses a database written by a newer
 * Recollect, and a non-empty SQLite file that is not a Recollect database.
 */
export async function migrate(
  sql: Sql,
  migrations: readonly Migration[] = MIGRATIONS,
  target = LATEST_SCHEMA_VERSION,
  options: MigrateOptions = {},
): Promise<{ from: number; to: number }> {
  const from = await schemaVersion(sql);
  if (from > target) {
    throw new RecollectError(
      'SCHEMA_TOO_NEW',
      `This database was written by a newer version of Recollect (schema ${from}; this version understands up to ${target}). Update Recollect to open it.`,
    );
  }
  if (from === 0) {
    const [row] = await sql.query<{ n: number }>("SELECT count(*) AS n FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'");
    if (Number(row?.n ?? 0) > 0) {
      throw new RecollectError(
        'IMPORT_NOT_RECOLLECT',
        'This SQLite file is not a Recollect database (it has tables but no Recollect schema).',
      );
    }
  } else if ((await applicationId(sql)) !== RECOLLECT_APPLICATION_ID) {
    throw new RecollectError('IMPORT_NOT_RECOLLECT', 'This SQLite file is not a Recollect database.');
  }
  for (const m of migrations) {
    if (m.version <= from || m.version > target) continue;
    await sql.transaction(async (tx) => {
      await tx.exec(m.sql);
      if (m.run) {
        const report: MigrationProgress | undefined = options.onProgress && ((done, total) => options.onProgress!(m, done, total));
        await m.run(tx, report);
      }
      await tx.exec(`PRAGMA user_version = ${m.version}`);
    });
  }
  return { from, to: Math.max(from, target) };
}
