/**
 * Import by REBUILD: an imported file's rows are copied, one named column at a time, into a fresh
 * database built from our own migrations; nothing of the file's schema is kept.
 *
 * Why rebuild rather than verify the file's `sqlite_schema` object by object: a verifier has to
 * be exactly right about every way SQLite lets a schema be bent (triggers, views shadowing
 * tables, `writable_schema` edits of a table or FTS definition that `integrity_check` accepts,
 * generated columns, changed CHECK clauses, collations…), and one miss runs the file's code in
 * the user's memory. A rebuild needs no such list: the only schema objects that can exist
 * afterwards are the ones our migrations create, the FTS indexes are recomputed from the copied
 * rows by our own triggers, and every value passes `importRows.ts` on the way in. The price is
 * time (rows go through JS; a measured ~5–10k rows/s) and that only the columns our schema knows
 * survive — both acceptable for an operation a person runs now and then.
 *
 * The file is opened as its own in-memory connection, never attached to the live one, with
 * `trusted_schema = OFF` (functions with side effects cannot run from its views or triggers) and
 * `query_only = ON`. Reading it runs no trigger (SELECT never does); a table the file replaced by
 * a view is refused before it is read.
 */
import { RecollectError } from '../core/base/errors';
import type { Sql, SqlValue } from '../core/base/sql';
import type { WaSqliteDatabase } from './WaSqliteDatabase';
import { applicationId, migrate, schemaVersion } from './migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, RECOLLECT_APPLICATION_ID, TURN_INDEX_FLUSH } from './schema';
import { checkRow, checkValue, cleanMeta, type ColumnSpec } from './importRows';
import { formatCount } from '../core/base/numbers';

/** Tables holding memory, in the order they are copied; the FTS tables and queues are derived. */
function dataTables(version: number): string[] {
  const tables = [
    'meta',
    ...(version >= 13 ? ['projects'] : []),
    'conversations',
    'messages',
    'memscenes',
    'memcells',
    'facts',
    'foresights',
    'profile_items',
    'profile_item_history',
    'jobs',
    'llm_calls',
    'vectors',
  ];
  if (version >= 5) tables.push('tombstones');
  // The hidden versions of turns (schemaV18.ts): an imported memory keeps them, as the export did.
  if (version >= 18) tables.push('turn_versions');
  return tables;
}

const PAGE_ROWS = 1_000;

export interface RebuildOptions {
  /** Whether this build has an embedding model (unknown ones are replaced by the bundled one). */
  readonly knownEmbedder?: (modelId: string) => boolean;
  /**
   * The store's turnIndexUpTo (SqliteMemoryStore): a file holding more turns than this (its highest
   * turn key) is restored with its turns queued for the turn index instead of indexed, as a history
   * import into such a memory leaves them; −1 or absent = always index them here.
   */
  readonly turnIndexUpTo?: number;
}

export interface Rebuilt {
  /** A fresh database at the latest schema holding the file's validated rows (caller closes it). */
  readonly db: WaSqliteDatabase;
  readonly fromSchemaVersion: number;
  readonly notices: string[];
}

const damaged = (detail?: string) =>
  new RecollectError(
    'IMPORT_CORRUPT',
    'This database file is damaged and cannot be imported. If you have another copy (an earlier export), try that one. Your current memory is unchanged.',
    detail,
  );

/** Loads the file into `file` (an empty connection of its own) and checks it is an intact Recollect database. */
async function openUntrusted(file: WaSqliteDatabase, bytes: Uint8Array): Promise<number> {
  try {
    await file.exec('PRAGMA trusted_schema = OFF');
    await file.deserialize(bytes);
    await file.exec('PRAGMA trusted_schema = OFF');
    const result = await file.query<{ integrity_check: string }>('PRAGMA integrity_check');
    const problems = result.map((r) => String(r.integrity_check)).filter((r) => r !== 'ok');
    if (problems.length > 0) throw damaged(problems.slice(0, 5).join('; '));
    await file.exec('PRAGMA query_only = ON');
  } catch (err) {
    if (err instanceof RecollectError && err.code !== 'SQL_ERROR') throw err;
    throw damaged(err instanceof Error ? err.message : String(err));
  }
  const version = await schemaVersion(file);
  if ((await applicationId(file)) !== RECOLLECT_APPLICATION_ID) {
    throw new RecollectError(
      'IMPORT_NOT_RECOLLECT',
      "This SQLite file is not a Recollect database (it lacks Recollect's mark), so it was not imported. Choose a file made with Recollect's Export button.",
    );
  }
  if (version > LATEST_SCHEMA_VERSION) {
    throw new RecollectError(
      'SCHEMA_TOO_NEW',
      `This database was written by a newer version of Recollect (schema ${version}; this version understands up to ${LATEST_SCHEMA_VERSION}). Update Recollect to import it.`,
    );
  }
  if (version < 1) {
    throw new RecollectError(
      'IMPORT_NOT_RECOLLECT',
      `This file carries Recollect's mark but no valid schema version (${version}), so it was not imported. Export the memory again from the Recollect it came from.`,
    );
  }
  return version;
}

async function columnsOf(db: WaSqliteDatabase, table: string): Promise<ColumnSpec[]> {
  const rows = await db.query<{ name: string; type: string; notnull: number }>('SELECT name, type, "notnull" FROM pragma_table_info(?)', [
    table,
  ]);
  return rows.map((r) => ({ name: String(r.name), type: String(r.type ?? ''), notNull: Number(r.notnull) === 1 }));
}

/** Every table we copy must be a real table in the file with at least our columns. */
async function checkStructure(
  file: WaSqliteDatabase,
  fresh: WaSqliteDatabase,
  tables: readonly string[],
): Promise<Map<string, ColumnSpec[]>> {
  const specs = new Map<string, ColumnSpec[]>();
  for (const table of tables) {
    const [obj] = await file.query<{ type: string }>('SELECT type FROM sqlite_schema WHERE name = ? COLLATE NOCASE', [table]);
    const ours = await columnsOf(fresh, table);
    const theirs = obj?.type === 'table' ? new Set((await columnsOf(file, table)).map((c) => c.name)) : new Set<string>();
    const missing =
      obj?.type !== 'table'
        ? 'the table itself'
        : ours
            .filter((c) => !theirs.has(c.name))
            .map((c) => c.name)
            .join(', ');
    if (missing) {
      throw new RecollectError(
        'IMPORT_CORRUPT',
        `This file says it is a Recollect database, but part of its structure is missing or was replaced (table "${table}": ${obj && obj.type !== 'table' ? `it is a ${obj.type}` : `missing ${missing}`}). It was not imported; export the memory again from the Recollect it came from. Your current memory is unchanged.`,
      );
    }
    specs.set(table, ours);
  }
  return specs;
}

/** Objects of the file that our schema at its version does not have (or has with another definition). */
async function foreignObjects(file: WaSqliteDatabase, fresh: WaSqliteDatabase): Promise<number> {
  const list = async (db: WaSqliteDatabase) =>
    new Set(
      (await db.query<{ k: string }>("SELECT type || char(31) || name || char(31) || coalesce(sql, '') AS k FROM sqlite_schema")).map(
        (r) => r.k,
      ),
    );
  const ours = await list(fresh);
  let n = 0;
  for (const k of await list(file)) if (!ours.has(k)) n++;
  return n;
}

const nulInText = (where: string) =>
  new RecollectError(
    'IMPORT_INVALID_DATA',
    `This file holds data Recollect would not accept as typed input, so nothing was imported: ${where} holds text with a NUL character (binary data, not text). Your current memory is unchanged.`,
  );

function quoteId(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Copies one table page by page; returns the rows copied. */
async function copyTable(
  file: WaSqliteDatabase,
  fresh: Sql,
  table: string,
  columns: readonly ColumnSpec[],
  skip: (row: Record<string, SqlValue>) => boolean,
  version: number,
): Promise<number> {
  const names = columns.map((c) => quoteId(c.name)).join(', ');
  // wa-sqlite hands text over up to its first NUL, so a NUL inside a value is looked for in SQL.
  const textual = columns
    .filter((c) => !/INT|REAL|BLOB/i.test(c.type))
    .map((c) => `coalesce(instr(CAST(${quoteId(c.name)} AS BLOB), x'00'), 0)`);
  const nul = textual.length > 0 ? `, (${textual.join(' + ')}) > 0 AS "__nul"` : '';
  const insert = `INSERT INTO ${quoteId(table)} (${names}) VALUES (${columns.map(() => '?').join(', ')})`;
  let copied = 0;
  for (let offset = 0; ; offset += PAGE_ROWS) {
    const rows = await file.query(`SELECT ${names}${nul} FROM main.${quoteId(table)} LIMIT ${PAGE_ROWS} OFFSET ${offset}`);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const where = `row ${formatCount(offset + i + 1)} of table "${table}"`;
      if (row.__nul) throw nulInText(where);
      const values = columns.map((c) => checkValue(table, c, row[c.name] ?? null, where, version));
      checkRow(table, row, where);
      if (skip(row)) continue;
      try {
        await fresh.exec(insert, values);
      } catch (err) {
        throw new RecollectError(
          'IMPORT_INVALID_DATA',
          `This file holds data that breaks Recollect's rules (${where} is a duplicate or has a value its column does not allow), so nothing was imported. Your current memory is unchanged.`,
          err instanceof Error ? err.message : String(err),
        );
      }
      copied++;
    }
    if (rows.length < PAGE_ROWS) return copied;
  }
}

/**
 * Whether the copied turns are too many for the turn index to be built during the restore. Recall
 * above RETRIEVAL_CONFIG.large.above turns reads the message full-text index (written by the copy's
 * own trigger) and not the turn index, so building the latter for every turn of a 100,000-turn file
 * was most of a 15-minute restore spent on an index nothing read. The turns stay in
 * turn_index_queue, exactly as after a history import into a memory that size.
 */
async function turnIndexTrails(tx: Sql, upTo: number | undefined): Promise<boolean> {
  if (upTo === undefined || upTo < 0) return false;
  const [row] = await tx.query<{ pk: number | null }>('SELECT max(pk) AS pk FROM messages');
  return Number(row?.pk ?? 0) > upTo;
}

/**
 * Validates `bytes` and rebuilds them into a fresh database (see the module header). `openTemp`
 * opens an empty in-memory connection in the live database's SQLite module. Throws a
 * RecollectError with an IMPORT_* / SCHEMA_TOO_NEW code for every refusal.
 */
export async function rebuildFromFile(
  bytes: Uint8Array,
  openTemp: () => Promise<WaSqliteDatabase>,
  options: RebuildOptions = {},
): Promise<Rebuilt> {
  const file = await openTemp();
  try {
    const version = await openUntrusted(file, bytes);
    const fresh = await openTemp();
    try {
      await migrate(fresh, MIGRATIONS, version);
      const tables = dataTables(version);
      const specs = await checkStructure(file, fresh, tables);
      const notices: string[] = [];
      const foreign = await foreignObjects(file, fresh);
      if (foreign > 0)
        notices.push(
          `${foreign} database object${foreign === 1 ? '' : 's'} in the file that Recollect does not create (triggers, views, indexes or edited definitions) ${foreign === 1 ? 'was' : 'were'} left out; only its rows were imported.`,
        );

      const metaRows = await file.query('SELECT key, value FROM main.meta LIMIT 1000');
      const meta = cleanMeta(
        metaRows.map((r) => [r.key ?? null, r.value ?? null] as const),
        options.knownEmbedder,
      );
      notices.push(...meta.notices);

      // Foreign keys are checked once after the copy: rows may refer forward (facts.superseded_by).
      await fresh.exec('PRAGMA foreign_keys = OFF');
      await fresh.transaction(async (tx) => {
        for (const [key, value] of meta.keep) await tx.exec('INSERT INTO meta (key, value) VALUES (?, ?)', [key, value]);
        for (const table of tables) {
          if (table === 'meta') continue;
          const skip = table === 'vectors' ? (row: Record<string, SqlValue>) => meta.unknownModels.has(String(row.model_id)) : () => false;
          await copyTable(file, tx, table, specs.get(table)!, skip, version);
          if (table === 'messages' && version >= 6 && !(await turnIndexTrails(tx, options.turnIndexUpTo))) {
            for (const statement of TURN_INDEX_FLUSH) await tx.exec(statement);
          }
        }
      });
      const broken = await fresh.query('PRAGMA foreign_key_check');
      if (broken.length > 0) {
        throw new RecollectError(
          'IMPORT_CORRUPT',
          `This database file has broken references between its tables (${broken.length} row${broken.length === 1 ? '' : 's'} point at something that is not there) and cannot be imported. Your current memory is unchanged.`,
        );
      }
      await fresh.exec('PRAGMA foreign_keys = ON');
      await migrate(fresh);
      return { db: fresh, fromSchemaVersion: version, notices };
    } catch (err) {
      await fresh.close();
      if (err instanceof RecollectError && err.code !== 'SQL_ERROR' && err.code !== 'INTERNAL') throw err;
      // Anything SQLite itself raised while reading the file means the file is not what it claims.
      throw damaged(err instanceof Error ? err.message : String(err));
    }
  } finally {
    await file.close();
  }
}
