/**
 * Turns arbitrary user text into a safe FTS5 MATCH expression with OR semantics. Only letter
 * and digit runs survive, each wrapped in double quotes, so quotes, `*`, `NEAR(`, `-`, column
 * filters and boolean keywords in the input are plain words, never syntax. Words of scripts without
 * spaces arrive as the character bigrams the indexes hold (core/base/lexicalUnits); a lone such
 * character is a prefix query.
 */
import { STOP_WORDS, terms } from '../core/base/text';
import { ftsOperand } from '../core/base/lexicalUnits';

const MAX_TERMS = 32;
const MAX_TERM_CHARS = 64;

// Stop words (core/base/text) are dropped when the query has other terms: they add noise, not recall.

export function ftsTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const word of terms(text)) {
    const term = word.slice(0, MAX_TERM_CHARS);
    if (!seen.has(term)) seen.add(term);
    if (seen.size >= MAX_TERMS * 4) break;
  }
  const all = [...seen];
  const content = all.filter((t) => !STOP_WORDS.has(t));
  return (content.length > 0 ? content : all).slice(0, MAX_TERMS);
}

/** The MATCH expression, or null when the text has no searchable term (e.g. only punctuation or emoji). */
export function toFtsQuery(text: string): string | null {
  const terms = ftsTerms(text);
  if (terms.length === 0) return null;
  return terms.map(ftsOperand).join(' OR ');
}
