/**
 * Export and import of the whole memory as one .sqlite file.
 *
 * Import is a trust boundary (docs/architecture.md, Reliability). The bytes are checked (SQLite header, text encoding,
 * size against the header), then rebuilt in a database of their own (importRebuild.ts: a fresh
 * schema from our migrations, the file's rows copied and validated; the file's own schema objects
 * never survive). Only then is the live database touched: the rebuilt pages are copied over it
 * with the backup API, one write transaction, so a crash part-way leaves the previous memory.
 * A copy of the previous memory is kept until the caller has restarted everything on the new one;
 * `rollback()` puts it back if any of that fails (MemoryEngine via core/engine/importMemory.ts).
 */
import { RecollectError } from '../core/base/errors';
import type { ImportOptions, StagedImport } from '../core/base/store';
import type { WaSqliteDatabase } from './WaSqliteDatabase';
import { countMessages, forgetSpeakers } from './messageRepo';
import { FTS_TABLES } from './deletedTerms';
import { rebuildFromFile, type RebuildOptions, type Rebuilt } from './importRebuild';
import { formatCount } from '../core/base/numbers';

/** Every refusal before the swap says that nothing changed; an unexpected error gets a sentence, not SQLite's text. */
function refusal(err: unknown): RecollectError {
  if (!(err instanceof RecollectError) || err.code === 'SQL_ERROR' || err.code === 'INTERNAL') {
    return new RecollectError(
      'IMPORT_CORRUPT',
      'This file could not be read as a Recollect database, so it was not imported. Your current memory is unchanged.',
      err instanceof Error ? err.message : String(err),
    );
  }
  if (/unchanged/.test(err.message)) return err;
  return new RecollectError(err.code, `${err.message} Your current memory is unchanged.`, err.detail);
}

const HEADER = 'SQLite format 3\u0000';

/**
 * The export: a copy of `live` that carries only live data. A serialized database is its pages as
 * they are, freed ones included, and a freed page can still hold a deleted turn (files written
 * before `secure_delete` was on, or FTS segments with delete markers). The copy is made in memory,
 * its full-text indexes are merged (`optimize` drops deleted entries) and it is VACUUMed, which
 * rewrites every page and leaves no free page.
 */
export async function compactedCopy(live: WaSqliteDatabase, openTemp: () => Promise<WaSqliteDatabase>): Promise<Uint8Array> {
  const bytes = await live.serialize();
  const temp = await openTemp();
  try {
    await temp.deserialize(bytes);
    await temp.exec('PRAGMA secure_delete = ON');
    const present = new Set((await temp.query<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table'")).map((r) => r.name));
    for (const t of FTS_TABLES) if (present.has(t)) await temp.exec(`INSERT INTO ${t}(${t}) VALUES ('optimize')`);
    await temp.exec('VACUUM');
    return await temp.serialize();
  } finally {
    await temp.close();
  }
}
/** wa-sqlite's heap holds the file, the rebuilt copy and the previous memory at once. */
export const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/** A zip archive (ChatGPT's and Claude's exports) or JSON text: what Import chats… reads. */
function looksLikeChatExport(bytes: Uint8Array): boolean {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return true;
  const head = new TextDecoder('latin1')
    .decode(bytes.subarray(0, 64))
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart();
  return head.startsWith('{') || head.startsWith('[');
}

/** Checks the 100-byte SQLite header, the text encoding and that the file holds every page the header promises. */
export function checkSqliteHeader(bytes: Uint8Array, maxBytes = MAX_IMPORT_BYTES): void {
  if (bytes.byteLength < 100 || new TextDecoder('latin1').decode(bytes.subarray(0, 16)) !== HEADER) {
    throw new RecollectError(
      'IMPORT_NOT_SQLITE',
      looksLikeChatExport(bytes)
        ? 'This looks like a chat export from another service (a .zip or .json file), not a Recollect memory. To add its conversations, use Import chats…; Import… only restores a .sqlite file exported from Recollect. Your current memory is unchanged.'
        : 'This file is not a SQLite database. Choose a .sqlite file exported from Recollect.',
    );
  }
  if (bytes.byteLength > maxBytes) {
    throw new RecollectError(
      'IMPORT_TOO_LARGE',
      `This file is too large to import (${(bytes.byteLength / 1048576).toFixed(0)} MB; the limit is ${(maxBytes / 1048576).toFixed(0)} MB). Your current memory is unchanged.`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    throw new RecollectError(
      'IMPORT_CORRUPT',
      'This SQLite file is damaged (invalid page size in its header). Your current memory is unchanged.',
    );
  }
  // Header offset 56: 1 = UTF-8, 2 / 3 = UTF-16le / be (0 only in a file with no schema yet).
  const encoding = view.getUint32(56);
  if (encoding === 2 || encoding === 3) {
    throw new RecollectError(
      'IMPORT_ENCODING',
      'This database stores its text as UTF-16; Recollect databases use UTF-8. It was not imported. If it came from Recollect, export it again; another tool can convert it with the sqlite3 command ".dump" into a new UTF-8 database.',
    );
  }
  if (encoding > 3)
    throw new RecollectError(
      'IMPORT_CORRUPT',
      'This SQLite file is damaged (unknown text encoding in its header). Your current memory is unchanged.',
    );
  const pageCount = view.getUint32(28);
  const changeCounter = view.getUint32(24);
  const validFor = view.getUint32(92);
  const expected = pageCount * pageSize;
  // The in-header size is trustworthy only when "version-valid-for" matches the change counter.
  if (bytes.byteLength % pageSize !== 0 || (validFor === changeCounter && pageCount > 0 && bytes.byteLength < expected)) {
    throw new RecollectError(
      'IMPORT_CORRUPT',
      `This SQLite file is incomplete (${formatCount(bytes.byteLength)} bytes; expected ${formatCount(expected)}). It may have been truncated while copying; try the original file.`,
    );
  }
}

/**
 * Validates and rebuilds `bytes`, then replaces `live` with the result. The returned `rollback`
 * puts the previous memory back (the pages saved just before the swap).
 * `openTemp` must open an empty in-memory connection in the same SQLite module as `live`.
 */
export async function stageImport(
  live: WaSqliteDatabase,
  bytes: Uint8Array,
  openTemp: () => Promise<WaSqliteDatabase>,
  options: ImportOptions & RebuildOptions = {},
): Promise<StagedImport> {
  let rebuilt: Rebuilt;
  try {
    checkSqliteHeader(bytes, options.maxBytes);
    rebuilt = await rebuildFromFile(bytes, openTemp, options);
  } catch (err) {
    throw refusal(err);
  }
  try {
    const messageCount = await countMessages(rebuilt.db);
    const [c] = await rebuilt.db.query<{ n: number }>('SELECT count(*) AS n FROM conversations');
    let previous: Uint8Array;
    try {
      previous = await live.serialize();
      await live.replaceWith(rebuilt.db);
      forgetSpeakers(live); // the backup API replaced the pages: no trigger counted them
    } catch (err) {
      // The backup is one write transaction on the live database: when it fails, nothing changed.
      throw new RecollectError(
        'IMPORT_WRITE_FAILED',
        "The file is valid, but Recollect could not write it into your memory (the browser's storage refused the write; it may be full). Your current memory is unchanged; free some space and try again.",
        err instanceof Error ? err.message : String(err),
      );
    }
    return {
      summary: {
        fromSchemaVersion: rebuilt.fromSchemaVersion,
        schemaVersion: Number((await live.query<{ user_version: number }>('PRAGMA user_version'))[0]?.user_version),
        messageCount,
        conversationCount: Number(c?.n ?? 0),
        notices: rebuilt.notices,
      },
      rollback: async () => {
        const temp = await openTemp();
        try {
          await temp.deserialize(previous);
          await live.replaceWith(temp);
          forgetSpeakers(live);
        } finally {
          await temp.close();
        }
      },
    };
  } finally {
    await rebuilt.db.close();
  }
}
