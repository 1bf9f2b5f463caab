/**
 * Query-focused excerpts of long turns for the answer context. An assistant's reply can run to
 * thousands of characters while the part a question needs is one paragraph in the middle; cutting
 * from the head loses it, and printing it whole spends the memory budget that other evidence turns
 * need. The excerpt is the window of at most `max` characters holding the most question words
 * (ties: the earliest), widened back to a word boundary, marked with "…" where text was cut.
 */
import { STOP_WORDS, terms as lowerTerms } from '../base/text';
import { hasNoSpaceScript } from '../base/lexicalUnits';

const WORD = /[\p{L}\p{N}]+/gu;
/** Words compare by their first letters, so "recommended" finds "recommend" and "hotels" finds "hotel". */
const stem = (w: string): string => (w.length > 5 ? w.slice(0, 5) : w);

/** The question's content words in comparable form (stop words dropped). */
export function focusTerms(question: string): Set<string> {
  return new Set(
    lowerTerms(question)
      .filter((t) => !STOP_WORDS.has(t) && t.length > 1)
      .map(stem),
  );
}

/** Whitespace collapsed; cut to `max` characters from the head with "…" (no focus). */
export function headClip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/** `text` cut to at most `max` characters around the densest run of `terms`; head cut when none match. */
export function focusClip(text: string, max: number, terms: ReadonlySet<string>): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const hits: number[] = [];
  if (terms.size > 0) for (const m of t.matchAll(WORD)) if (terms.has(stem(m[0].toLowerCase()))) hits.push(m.index);
  // Words of scripts without spaces are character bigrams (lexicalUnits): find them inside runs.
  for (const term of terms) {
    if (!hasNoSpaceScript(term)) continue;
    for (let at = t.indexOf(term); at >= 0; at = t.indexOf(term, at + term.length)) hits.push(at);
  }
  hits.sort((a, b) => a - b);
  if (hits.length === 0) return headClip(t, max);
  // Leave a little lead-in before the first hit of the window, so the excerpt starts in context.
  const lead = Math.min(120, Math.floor(max / 5));
  const span = max - lead - 2;
  let best = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < hits.length; i++) {
    while (j < hits.length && hits[j]! < hits[i]! + span) j++;
    if (j - i > bestCount) {
      bestCount = j - i;
      best = i;
    }
  }
  let start = Math.max(0, hits[best]! - lead);
  if (start > 0) {
    const space = t.indexOf(' ', start);
    start = space >= 0 && space < hits[best]! ? space + 1 : start;
  }
  const head = start > 0 ? '…' : '';
  const room = max - head.length;
  const body = t.slice(start, start + room);
  return start + room < t.length ? `${head}${body.slice(0, room - 1).trimEnd()}…` : `${head}${body}`;
}
