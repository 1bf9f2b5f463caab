/**
 * Validation of the rows an imported file carries. An imported file is untrusted data (docs/architecture.md, Reliability):
 * every value must fit its column's declared type, text must be text (no NUL, not mostly control
 * characters) within the limits typed input has (`core/base/limits.ts`), JSON columns must hold
 * JSON, vectors must be the size their dimension says. A row that fails is refused with
 * IMPORT_INVALID_DATA naming the table and row, so the person can see what is wrong with the file;
 * nothing is silently truncated except conversation titles, which typed input also normalises.
 *
 * `meta` is different: it holds settings, not memory. Only the keys below are kept, each with its
 * range; anything else (an endpoint URL, a key, a setting of a future build) is dropped with a
 * notice. Endpoint settings and the API key live outside the database and never come from a file.
 */
import { RecollectError } from '../core/base/errors';
import {
  EARLIEST_YEAR,
  isSaneTime,
  LATEST_YEAR,
  looksBinary,
  MAX_TITLE_CHARS,
  MAX_TURN_CHARS,
  validateTurnContent,
} from '../core/base/limits';
import type { SqlValue } from '../core/base/sql';
import { ANSWER_BUDGET, META_KEYS } from '../core/base/settings';
import { isTimeZone } from '../core/base/timeZone';
import { readStoredSummary, SUMMARY_META_KEY } from '../core/explorer/memorySummary';
import { LATEST_SCHEMA_VERSION } from './schema';
import { isRepairedTimeColumn } from './schemaV8';
import { formatCount } from '../core/base/numbers';

export interface ColumnSpec {
  readonly name: string;
  /** Declared type of our own schema's column ('' when none). */
  readonly type: string;
  readonly notNull: boolean;
}

const MAX_ID_CHARS = 512;
const MAX_SHORT_CHARS = 1_000;
const MAX_BLOB_BYTES = 4 + 8192 * 4;
const ID_COLUMNS = new Set([
  'id',
  'conversation_id',
  'memcell_id',
  'scene_id',
  'superseded_by',
  'profile_item_id',
  'item_id',
  'model_id',
  'centroid_model',
  'source_message_id',
  'dedupe_key',
  'project_id',
  'source_id',
]);
const SHORT_COLUMNS = new Set([
  'speaker',
  'role',
  'status',
  'kind',
  'op',
  'source',
  'format',
  'stage',
  'model',
  'outcome',
  'closed_by',
  'reason',
  'text_hash',
  'name',
  'memory',
]);
const JSON_COLUMNS = new Set(['metadata', 'evidence', 'payload', 'encoding']);
/** Columns holding ms since the epoch: typed input keeps them in a sane range, and so must a file. */
const TIME_COLUMNS = new Set([
  'occurred_at',
  'ingested_at',
  'created_at',
  'updated_at',
  'start_at',
  'end_at',
  'valid_from',
  'valid_to',
  'last_activity_at',
  'last_visited_at',
  'changed_at',
]);

function invalid(where: string, problem: string): RecollectError {
  return new RecollectError(
    'IMPORT_INVALID_DATA',
    `This file holds data Recollect would not accept as typed input, so nothing was imported: ${where} ${problem} Your current memory is unchanged.`,
  );
}

function textLimit(table: string, column: string): number {
  if (ID_COLUMNS.has(column) || (table === 'meta' && column === 'key')) return MAX_ID_CHARS;
  if (SHORT_COLUMNS.has(column) || column === 'title') return MAX_SHORT_CHARS;
  return MAX_TURN_CHARS;
}

/**
 * The value to store for one column of one imported row; throws IMPORT_INVALID_DATA.
 * `fileVersion` is the file's schema version: before v8 a time column may hold a fractional ms
 * value (history imports stored them so); it is let through and the v8 migration rounds it.
 */
export function checkValue(
  table: string,
  column: ColumnSpec,
  value: SqlValue,
  where: string,
  fileVersion = LATEST_SCHEMA_VERSION,
): SqlValue {
  const at = `${where}, column "${column.name}",`;
  if (value === null || value === undefined) {
    if (column.notNull) throw invalid(at, 'is empty but must have a value.');
    return null;
  }
  const type = column.type.toUpperCase();
  if (typeof value === 'bigint') throw invalid(at, 'holds a number too large to be a Recollect value.');
  if (type === 'INTEGER') {
    if (fileVersion < 8 && typeof value === 'number' && Number.isSafeInteger(Math.round(value)) && isRepairedTimeColumn(table, column.name))
      return value;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(at, 'should hold a whole number.');
    if (TIME_COLUMNS.has(column.name) && !isSaneTime(value)) {
      throw invalid(at, `holds a date outside ${EARLIEST_YEAR}–${LATEST_YEAR - 1} (${String(value)} ms), which no conversation can have.`);
    }
    return value;
  }
  if (type === 'REAL') {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(at, 'should hold a number.');
    return value;
  }
  if (type === 'BLOB') {
    if (!(value instanceof Uint8Array)) throw invalid(at, 'should hold binary data.');
    if (value.byteLength > MAX_BLOB_BYTES)
      throw invalid(at, `holds ${formatCount(value.byteLength)} bytes; a vector is at most ${formatCount(MAX_BLOB_BYTES)}.`);
    return value;
  }
  // TEXT (and untyped) columns.
  if (typeof value !== 'string') throw invalid(at, 'should hold text.');
  if (table === 'messages' && column.name === 'content') {
    try {
      return validateTurnContent(value);
    } catch (err) {
      throw invalid(`${where}:`, (err as Error).message);
    }
  }
  if (table === 'conversations' && column.name === 'title') {
    // Typed titles are normalised (conversationRepo.cleanTitle), not refused.
    if (value.includes('\u0000') || looksBinary(value)) throw invalid(at, 'looks like binary data, not a title.');
    return value.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS) || 'Imported conversation';
  }
  const limit = textLimit(table, column.name);
  if (value.length > limit) throw invalid(at, `is ${formatCount(value.length)} characters long; the limit is ${formatCount(limit)}.`);
  if (value.length > 0 && looksBinary(value)) throw invalid(at, 'looks like binary data, not text.');
  if (JSON_COLUMNS.has(column.name)) {
    try {
      JSON.parse(value);
    } catch {
      throw invalid(at, 'should hold JSON and does not.');
    }
  }
  return value;
}

/** Checks that span columns (a vector's size against its dimension). */
export function checkRow(table: string, row: Record<string, SqlValue>, where: string): void {
  if (table !== 'vectors') return;
  const dim = Number(row.dim);
  const bytes = row.vector instanceof Uint8Array ? row.vector.byteLength : -1;
  const expected = row.format === 'i8' ? 4 + dim : row.format === 'f32' ? dim * 4 : NaN;
  if (!(dim >= 1 && dim <= 8192) || bytes !== expected) {
    throw invalid(
      `${where}:`,
      `a vector of dimension ${String(row.dim)} in format "${String(row.format)}" holds ${bytes} bytes, which does not match.`,
    );
  }
}

// ---- meta: settings from a file are whitelisted and range-checked -------------------------------

type MetaRule = (value: string) => boolean;
const FLAG: MetaRule = (v) => v === '0' || v === '1';

/** Every meta key Recollect reads, with the values it accepts (core/base/settings.ts, EmbeddingIndexer). */
const META_RULES: Readonly<Record<string, MetaRule>> = {
  'embedder.active': (v) => v.length > 0 && v.length <= MAX_ID_CHARS,
  'embedder.target': (v) => v.length > 0 && v.length <= MAX_ID_CHARS,
  [META_KEYS.policy]: (v) => v === 'eager' || v === 'recurrence' || v === 'off',
  [META_KEYS.llmBoundaryCheck]: FLAG,
  [META_KEYS.sufficiencyCheck]: FLAG,
  [META_KEYS.useMemoryDefault]: FLAG,
  [META_KEYS.rememberDefault]: FLAG,
  [META_KEYS.answerBudget]: (v) => /^\d{1,6}$/.test(v) && Number(v) >= ANSWER_BUDGET.min && Number(v) <= ANSWER_BUDGET.max,
  // '' = follow the browser's zone; otherwise a zone this platform knows.
  [META_KEYS.timeZone]: (v) => v === '' || isTimeZone(v),
  // The kept memory summary: read back whole or dropped; sentences citing items the file lacks go at the first read.
  [SUMMARY_META_KEY]: (v) => readStoredSummary(v) !== null,
};

export interface CleanMeta {
  readonly keep: ReadonlyArray<readonly [string, string]>;
  readonly notices: readonly string[];
  /** Embedding models named by the file that this build does not have (their vectors are dropped). */
  readonly unknownModels: ReadonlySet<string>;
}

export function cleanMeta(rows: ReadonlyArray<readonly [SqlValue, SqlValue]>, knownEmbedder?: (id: string) => boolean): CleanMeta {
  const keep: Array<readonly [string, string]> = [];
  const unknownKeys: string[] = [];
  const reset: string[] = [];
  const unknownModels = new Set<string>();
  for (const [key, value] of rows) {
    if (typeof key !== 'string' || !Object.hasOwn(META_RULES, key)) {
      unknownKeys.push(typeof key === 'string' ? key.slice(0, 40) : '?');
      continue;
    }
    if (typeof value !== 'string' || !META_RULES[key]!(value)) {
      reset.push(key);
      continue;
    }
    if (key.startsWith('embedder.') && knownEmbedder && !knownEmbedder(value)) {
      unknownModels.add(value);
      continue;
    }
    keep.push([key, value]);
  }
  const notices: string[] = [];
  if (unknownModels.size > 0) {
    // Both embedder keys go, so the indexer starts from the bundled model and re-embeds everything.
    for (let i = keep.length - 1; i >= 0; i--) if (keep[i]![0].startsWith('embedder.')) keep.splice(i, 1);
    notices.push(
      `This memory was indexed with ${[...unknownModels].map((m) => `"${m.slice(0, 80)}"`).join(' and ')}, which this version of Recollect does not have; it is being re-indexed with the bundled model, and search by meaning is partial until that finishes.`,
    );
  }
  if (reset.length > 0) notices.push(`Settings out of range were reset to their defaults: ${reset.join(', ')}.`);
  if (unknownKeys.length > 0)
    notices.push(
      `${unknownKeys.length} setting${unknownKeys.length === 1 ? '' : 's'} this version does not use ${unknownKeys.length === 1 ? 'was' : 'were'} ignored (endpoint settings and keys are never taken from a file).`,
    );
  return { keep, notices, unknownModels };
}
