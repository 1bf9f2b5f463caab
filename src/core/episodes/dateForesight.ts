/**
 * Foresight without an LLM: explicit future dates in a user's turn ("my exam is next Friday",
 * "we fly to Lisbon on March 3rd") become time-bounded foresight items via chrono-node, resolved
 * against the turn's own time in the user's time zone ("tomorrow" written at 23:30 in Tokyo is the
 * Tokyo tomorrow). Past references ("yesterday") are ignored. Dates in German, French, Spanish,
 * Japanese, Chinese and Korean are read too (core/base/localDates).
 */
import { dateUnit, parseDates } from '../base/localDates';
import { DEFAULT_TIME_ZONE, offsetMinutes, startOfDay } from '../base/timeZone';
import { isFutureStatement } from './futureStatement';
import { detectLanguage } from '../base/language';

export interface DateForesight {
  /** The sentence that mentions the date, trimmed. */
  readonly content: string;
  /** Validity window in ms since epoch: the referenced day (or range). */
  readonly startAt: number;
  readonly endAt: number;
  /** The matched date phrase, for the explorer ("next Friday"). */
  readonly phrase: string;
}

const DAY = 86_400_000;

function sentenceAround(text: string, index: number, length: number): string {
  const before = text.slice(0, index);
  const start = Math.max(before.lastIndexOf('. '), before.lastIndexOf('! '), before.lastIndexOf('? '), before.lastIndexOf('\n'));
  const after = text.slice(index + length);
  const endRel = after.search(/[.!?\n]/);
  const end = endRel < 0 ? text.length : index + length + endRel + 1;
  return text
    .slice(start < 0 ? 0 : start + 1, end)
    .trim()
    .slice(0, 300);
}

/**
 * Whether a sentence with a date states something ahead. The classifier's rules are chat English;
 * in another language only what every language marks the same way is ruled out (a question mark),
 * so a plan written in Chinese or German still becomes foresight.
 */
function statesFuture(sentence: string, phrase: string, role: 'user' | 'assistant'): boolean {
  const language = detectLanguage(sentence);
  if (language === null || language === 'en') return isFutureStatement({ sentence, phrase, role });
  return !/[?？¿]/.test(sentence);
}

/**
 * Finds future-dated mentions in `text` written at `writtenAt` (ms) by someone in `timeZone` (IANA).
 * Only statements about the future count (futureStatement.ts): never a question, a length of time
 * or the past; an assistant's sentence only as its own commitment.
 */
export function findDateForesight(
  text: string,
  writtenAt: number,
  timeZone = DEFAULT_TIME_ZONE,
  role: 'user' | 'assistant' = 'user',
): DateForesight[] {
  // chrono takes a fixed offset; the one in force when the turn was written resolves its words.
  const ref = { instant: new Date(writtenAt), timezone: offsetMinutes(timeZone, writtenAt) };
  const results = parseDates(text.slice(0, 5_000), ref, { forwardDate: true });
  const out: DateForesight[] = [];
  for (const r of results) {
    const start = r.start.date().getTime();
    // Only explicit calendar references: a bare time ("at 5") is not foresight.
    if (!r.start.isCertain('day') && !r.start.isCertain('weekday') && !r.start.isCertain('month')) continue;
    if (start < writtenAt - DAY / 2) continue; // past
    // forwardDate pushes "last March" into next year: words that point back rule a match out.
    const lead = text.slice(Math.max(0, r.index - 12), r.index).toLowerCase();
    if (/\b(last|past|previous|since)\s*$/.test(lead) || /\b(last|ago|previous)\b/i.test(r.text)) continue;
    const dayStart = startOfDay(timeZone, start);
    const endDate = r.end?.date().getTime();
    const unit = dateUnit(r);
    const monthOnly = unit === 'month' || (!unit && !r.start.isCertain('day') && !r.start.isCertain('weekday'));
    // The day's real end (23 or 25 hours on a DST change), measured from the next local midnight.
    const endAt =
      endDate && endDate > start
        ? endDate
        : unit === 'week'
          ? startOfDay(timeZone, dayStart + 7 * DAY + 3 * 3_600_000) - 1
          : monthOnly
            ? startOfDay(timeZone, dayStart + 31 * DAY + 3 * 3_600_000) - 1
            : startOfDay(timeZone, dayStart + DAY + 3 * 3_600_000) - 1;
    if (endAt <= writtenAt) continue;
    const sentence = sentenceAround(text, r.index, r.text.length);
    if (!statesFuture(sentence, r.text, role)) continue;
    out.push({ content: sentence, startAt: Math.max(dayStart, writtenAt), endAt, phrase: r.text });
  }
  return out;
}
