/**
 * BM25 of the WHOLE question over a few hundred candidate turns, in JS. A large memory's lexical
 * candidates come from its rarest terms only (a postings budget keeps that query's cost bounded),
 * so their order ignores the question's commoner words; scoring the candidates again with every
 * term — the index's own document frequencies and average length, the turn's own words — gives
 * back the order full BM25 would give them, at a cost that follows the candidate count, not the
 * memory (measured on the scale benchmark, bench/scale.ts).
 *
 * Okapi BM25 as FTS5 computes it (k1 1.2, b 0.75, idf log((N − n + 0.5) / (n + 0.5)), floored just
 * above 0). Words are compared by a light suffix stem, standing in for the index's porter stemmer:
 * close enough to count a turn's "dogs" for the question's "dog".
 */
import { terms as textTerms } from '../base/text';

export interface TermStats {
  /** Turns in the index. */
  readonly docs: number;
  /** Mean words per turn. */
  readonly avgLength: number;
  /** Turns holding each term (the index's count: porter-stemmed). */
  readonly df: ReadonlyMap<string, number>;
}

const K1 = 1.2;
const B = 0.75;

/** A light English suffix stem (plural, -ing, -ed, -ly); other words and scripts unchanged. */
export function stemKey(word: string): string {
  if (word.length <= 4 || !/^[a-z]+$/.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'ly', 'es', 's']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      const stem = word.slice(0, -suffix.length);
      // "running" → "run", "planned" → "plan": a doubled final consonant goes with the suffix.
      return (suffix === 'ing' || suffix === 'ed') && stem.length > 3 && stem[stem.length - 1] === stem[stem.length - 2] && !/[aeiouls]/.test(stem[stem.length - 1]!)
        ? stem.slice(0, -1)
        : stem;
    }
  }
  return word;
}

const PLAIN = /^[ -~\t\n\r]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

/** The turn's words as the index counts them: a fast path for plain ASCII text, text.terms otherwise. */
function wordsOf(text: string): string[] {
  return PLAIN.test(text) ? text.toLowerCase().match(ASCII_WORD) ?? [] : textTerms(text);
}

function idf(docs: number, n: number): number {
  const v = Math.log((docs - n + 0.5) / (n + 0.5));
  return v > 0 ? v : 1e-6;
}

/**
 * Each candidate's BM25 for `queryTerms` over its text (higher is better; 0 = no query word).
 * Repeated query terms count once, as in an OR query.
 */
export function fullQueryScores(queryTerms: readonly string[], texts: ReadonlyMap<string, string>, stats: TermStats): Map<string, number> {
  const weights = new Map<string, number>();
  for (const t of new Set(queryTerms)) {
    const key = stemKey(t);
    weights.set(key, (weights.get(key) ?? 0) + idf(stats.docs, stats.df.get(t) ?? 0));
  }
  const avg = stats.avgLength > 0 ? stats.avgLength : 1;
  const out = new Map<string, number>();
  // A word can only match a key it shares its first three characters with: most words skip the stem.
  const heads = new Set([...weights.keys()].map((k) => k.slice(0, 3)));
  for (const [id, text] of texts) {
    const words = wordsOf(text);
    const tf = new Map<string, number>();
    for (const w of words) {
      if (!heads.has(w.slice(0, 3))) continue;
      const key = stemKey(w);
      if (weights.has(key)) tf.set(key, (tf.get(key) ?? 0) + 1);
    }
    let score = 0;
    const norm = K1 * (1 - B + (B * words.length) / avg);
    for (const [key, f] of tf) score += weights.get(key)! * ((f * (K1 + 1)) / (f + norm));
    out.set(id, score);
  }
  return out;
}
