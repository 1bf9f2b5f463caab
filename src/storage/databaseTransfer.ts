/**
 * Export and import of the whole memory as one .sqlite file.
 *
 * Import never touches the live database until the incoming file has passed every check in a
 * temporary in-memory database: SQLite header, size consistent with the header (truncation),
 * `PRAGMA integrity_check`, Recollect identity, schema version (older is migrated, newer is
 * refused). Only then are its pages copied over the live database with the backup API, which is
 * one write transaction: a crash part-way leaves the previous memory intact.
 */
import { RecollectError } from '../core/base/errors';
import type { ImportSummary } from '../core/base/types';
import type { WaSqliteDatabase } from './WaSqliteDatabase';
import { migrate, schemaVersion } from './migrate';
import { countMessages } from './messageRepo';

const HEADER = 'SQLite format 3\u0000';

/** Checks the 100-byte SQLite header and that the file holds every page the header promises. */
export function checkSqliteHeader(bytes: Uint8Array): void {
  if (bytes.byteLength < 100 || new TextDecoder('latin1').decode(bytes.subarray(0, 16)) !== HEADER) {
    throw new RecollectError('IMPORT_NOT_SQLITE', 'This file is not a SQLite database. Choose a .sqlite file exported from Recollect.');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    throw new RecollectError('IMPORT_CORRUPT', 'This SQLite file is damaged (invalid page size in its header).');
  }
  const pageCount = view.getUint32(28);
  const changeCounter = view.getUint32(24);
  const validFor = view.getUint32(92);
  const expected = pageCount * pageSize;
  // The in-header size is trustworthy only when "version-valid-for" matches the change counter.
  if (bytes.byteLength % pageSize !== 0 || (validFor === changeCounter && pageCount > 0 && bytes.byteLength < expected)) {
    throw new RecollectError('IMPORT_CORRUPT',
      `This SQLite file is incomplete (${bytes.byteLength.toLocaleString('en')} bytes; expected ${expected.toLocaleString('en')}). It may have been truncated while copying.`);
  }
}

/**
 * Validates and migrates `bytes` in a temporary connection, then replaces `live` with it.
 * `openTemp` must open an empty in-memory connection in the same SQLite module as `live`.
 */
export async function importDatabase(live: WaSqliteDatabase, bytes: Uint8Array, openTemp: () => Promise<WaSqliteDatabase>): Promise<ImportSummary> {
  checkSqliteHeader(bytes);
  const temp = await openTemp();
  try {
    try {
      await temp.deserialize(bytes);
      const result = await temp.query<{ integrity_check: string }>('PRAGMA integrity_check');
      const problems = result.map((r) => String(r.integrity_check)).filter((r) => r !== 'ok');
      if (problems.length > 0) {
        throw new RecollectError('IMPORT_CORRUPT', 'This database file is damaged and cannot be imported.', problems.slice(0, 5).join('; '));
      }
    } catch (err) {
      if (err instanceof RecollectError && err.code !== 'SQL_ERROR') throw err;
      const detail = err instanceof Error ? err.message : String(err);
      throw new RecollectError('IMPORT_CORRUPT', 'This database file is damaged and cannot be imported.', detail);
    }
    const fromVersion = await schemaVersion(temp);
    if (fromVersion === 0) {
      throw new RecollectError('IMPORT_NOT_RECOLLECT', 'This SQLite file is not a Recollect database.');
    }
    const { to } = await migrate(temp);
    const [fk] = await temp.query('PRAGMA foreign_key_check');
    if (fk) throw new RecollectError('IMPORT_CORRUPT', 'This database file has broken references between its tables and cannot be imported.');
    const messageCount = await countMessages(temp);
    const [c] = await temp.query<{ n: number }>('SELECT count(*) AS n FROM conversations');
    // The backup API cannot change the page size of the live database (WAL mode on OPFS, an
    // in-memory one in Node); every Recollect file has SQLite's default, so only a file rewritten
    // by another tool can differ.
    const pageSize = async (db: WaSqliteDatabase) => Number((await db.query<{ page_size: number }>('PRAGMA page_size'))[0]?.page_size);
    const [livePage, filePage] = [await pageSize(live), await pageSize(temp)];
    if (livePage !== filePage) {
      throw new RecollectError('INVALID_INPUT',
        `This database uses ${filePage}-byte pages; Recollect needs ${livePage}. Open it with the sqlite3 tool, run "PRAGMA page_size = ${livePage}; VACUUM;" and import it again.`);
    }
    await live.replaceWith(temp);
    return { fromSchemaVersion: fromVersion, schemaVersion: to, messageCount, conversationCount: Number(c?.n ?? 0) };
  } finally {
    await temp.close();
  }
}
