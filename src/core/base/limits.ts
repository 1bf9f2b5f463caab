/**
 * Input limits and validation for turns. A turn that breaks them is refused with a clear
 * INVALID_INPUT error before anything is written, so nothing already stored is affected.
 */
import { RecollectError } from './errors';
import { formatCount } from './numbers';

/** ~1 MB of text per turn: far above any chat message, small enough to index and embed. */
export const MAX_TURN_CHARS = 1_000_000;
export const MAX_TITLE_CHARS = 200;
/** A saved memory: long enough for a paragraph about oneself, short enough to stay a single memory. */
export const MAX_MEMORY_CHARS = 600;

/**
 * Times Recollect stores are ms since the epoch within these years. JavaScript dates end at
 * ±8.64e15 ms and SQLite's date functions at year 9999; a value beyond them made a conversation
 * throw "Invalid time value" whenever it was drawn. No chat predates 1900 or is dated past 2999,
 * so anything outside is a damaged or misread date, refused (typed input, imported rows) or
 * skipped and counted (history imports) before it is stored.
 */
export const EARLIEST_YEAR = 1900;
export const LATEST_YEAR = 3000;
const EARLIEST_MS = Date.UTC(EARLIEST_YEAR, 0, 1);
const LATEST_MS = Date.UTC(LATEST_YEAR, 0, 1);

export function isSaneTime(ms: unknown): ms is number {
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= EARLIEST_MS && ms < LATEST_MS;
}

export function validateTurnContent(content: unknown): string {
  if (typeof content !== 'string') throw new RecollectError('INVALID_INPUT', 'A message must be text.');
  if (content.trim().length === 0) throw new RecollectError('INVALID_INPUT', 'A message cannot be empty.');
  if (content.length > MAX_TURN_CHARS) {
    throw new RecollectError(
      'INVALID_INPUT',
      `This message is too long to store (${formatCount(content.length)} characters; the limit is ${formatCount(MAX_TURN_CHARS)}). Split it or attach less text.`,
    );
  }
  if (looksBinary(content)) {
    throw new RecollectError('INVALID_INPUT', 'This message looks like binary data, not text, so it was not stored.');
  }
  return content;
}

/** NUL anywhere, or more than 10% control characters other than tab/newline/CR. */
export function looksBinary(text: string): boolean {
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) control++;
  }
  return control > text.length * 0.1;
}

/** The stored fields of a new turn, validated like typed input (every store uses this). */
export function validateNewTurn(
  turn: { readonly role: unknown; readonly speaker?: string; readonly content: unknown; readonly occurredAt?: number },
  now: number,
): { role: 'user' | 'assistant' | 'system'; speaker: string; content: string; occurredAt: number } {
  const content = validateTurnContent(turn.content);
  const role = turn.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system')
    throw new RecollectError('INVALID_INPUT', `Unknown role "${String(role)}".`);
  const speaker =
    (turn.speaker ?? (role === 'user' ? 'User' : role === 'assistant' ? 'Assistant' : 'System')).trim().slice(0, 100) || 'User';
  const occurredAt = turn.occurredAt ?? now;
  if (!isSaneTime(occurredAt))
    throw new RecollectError('INVALID_INPUT', `A message time must be a date between ${EARLIEST_YEAR} and ${LATEST_YEAR - 1}.`);
  // Whole ms: a fraction (exports carry microseconds) would be stored as REAL in an INTEGER column.
  return { role, speaker, content, occurredAt: Math.round(occurredAt) };
}
