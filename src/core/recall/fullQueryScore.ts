/**
 * BM25 of the WHOLE question over a few hundred candidate turns, in JS. A large memory's lexical
 * candidates come from its rarest terms only (a postings budget keeps that query's cost bounded),
 * so their order ignores the question's commoner words; scoring the candidates again with every
 * term — the index's own document frequencies and average length, the turn's own words — gives
 * back the order full BM25 would give them, at a cost that follows the candidate count, not the
 * memory (measured on the scale benchmark, bench/scale.ts).
 *
 * Okapi BM25 as FTS5 computes it (k1 1.2, b 0.75, idf log((N − n + 0.5) / (n + 0.5)), floored just
 * above 0). Words are compared by their Porter stem, as the index's porter tokenizer compares them:
 * a turn's "dogs" counts for the question's "dog", its "baked" for "bake".
 */
import { terms as textTerms } from '../base/text';
import { porterStem } from './porterStem';

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

/** A word's key for matching: its Porter stem, as the index's porter tokenizer stores it (porterStem.ts). */
export function stemKey(word: string): string {
  return porterStem(word);
}

const PLAIN = /^[ -~\t\n\r]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

/** The turn's words as the index counts them: a fast path for plain ASCII text, text.terms otherwise. */
function wordsOf(text: string): string[] {
  return PLAIN.test(text) ? (text.toLowerCase().match(ASCII_WORD) ?? []) : textTerms(text);
}

/** Runs of [a-z0-9] in lower-cased ASCII text: the length wordsOf would give, without the list. */
function countWords(lower: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (word && !inWord) n++;
    inWord = word;
  }
  return n;
}

/** Each query term's stem key with its idf (terms sharing a key add up; repeats count once). */
function keyWeights(
  queryTerms: readonly string[],
  stats: TermStats,
  idfOf: (docs: number, n: number) => number = idf,
): Map<string, number> {
  const weights = new Map<string, number>();
  for (const t of new Set(queryTerms)) {
    const key = stemKey(t);
    weights.set(key, (weights.get(key) ?? 0) + idfOf(stats.docs, stats.df.get(t) ?? 0));
  }
  return weights;
}

/** FTS5's idf, floored just above 0. */
function idf(docs: number, n: number): number {
  const v = Math.log((docs - n + 0.5) / (n + 0.5));
  return v > 0 ? v : 1e-6;
}

/** Lucene's idf: never below 0, so a word in most turns still counts a little. */
function idfPlus(docs: number, n: number): number {
  return Math.log(1 + (docs - n + 0.5) / (n + 0.5));
}

/**
 * Each candidate's BM25 for `queryTerms` over its text (higher is better; 0 = no query word).
 * Repeated query terms count once, as in an OR query.
 */
export function fullQueryScores(queryTerms: readonly string[], texts: ReadonlyMap<string, string>, stats: TermStats): Map<string, number> {
  const weights = keyWeights(queryTerms, stats);
  const keys = [...weights.keys()];
  const count = termCounter(keys);
  const avg = stats.avgLength > 0 ? stats.avgLength : 1;
  const out = new Map<string, number>();
  for (const [id, text] of texts) {
    const { len, tf } = count(text);
    let score = 0;
    const norm = K1 * (1 - B + (B * len) / avg);
    for (let k = 0; k < keys.length; k++) if (tf[k]) score += weights.get(keys[k]!)! * ((tf[k]! * (K1 + 1)) / (tf[k]! + norm));
    out.set(id, score);
  }
  return out;
}

/** A text's length in words and its count of each query key (by slot). */
interface Counted {
  readonly len: number;
  readonly tf: Float64Array;
}

/**
 * Counts `keys` (stem keys) in texts as the index counts words. A word can only match a key it
 * shares its first three characters with, so most words skip the stem; in plain text those words
 * are found by one native regex scan and the words counted without splitting (≈ 10× faster than a
 * word list on 2,000-character turns).
 */
function termCounter(keys: readonly string[]): (text: string) => Counted {
  const slot = new Map(keys.map((k, i) => [k, i]));
  // A word's stem starts as the word does, but for a y turned to i ("days" → "dai"): its head is the key's with y.
  const heads = new Set(
    keys.flatMap((k) => {
      const head = k.slice(0, 3);
      return head.length === 3 && head[2] === 'i' ? [head, `${head.slice(0, 2)}y`] : [head];
    }),
  );
  const headList = [...heads].filter((h) => /^[a-z0-9]+$/.test(h));
  const candidates =
    headList.length === heads.size && heads.size > 0 ? new RegExp(`(?<![a-z0-9])(?:${headList.join('|')})[a-z0-9]*`, 'g') : null;
  return (text) => {
    const tf = new Float64Array(keys.length);
    if (candidates && PLAIN.test(text)) {
      const lower = text.toLowerCase();
      for (const m of lower.matchAll(candidates)) {
        const i = slot.get(stemKey(m[0]));
        if (i !== undefined) tf[i]!++;
      }
      return { len: countWords(lower), tf };
    }
    const words = wordsOf(text);
    for (const w of words) {
      if (!heads.has(w.slice(0, 3)) && !heads.has(w.slice(0, 2))) continue;
      const i = slot.get(stemKey(w));
      if (i !== undefined) tf[i]!++;
    }
    return { len: words.length, tf };
  };
}

/**
 * Candidates with their neighbour context (the turn index's window), each text given once: a
 * turn's words are counted once however many windows hold it.
 */
export interface ContextWindows {
  /** Text of every turn named below (its content and image caption), by turn id. */
  readonly texts: ReadonlyMap<string, string>;
  /** Each candidate with the turns of its context before and after it (ids). */
  readonly windows: readonly {
    readonly id: string;
    readonly before: readonly string[];
    readonly after: readonly string[];
    readonly timeline?: string;
  }[];
}

export interface FieldedOptions {
  /** Weight of each field's term counts (the turn index's column weights). */
  readonly weights: { readonly own: number; readonly before: number; readonly after: number; readonly timeline?: number };
  /** Length normalisation per field (0: none, 1: full). */
  readonly b: number;
  /** The neighbour-context fields' own length normalisation (default `b`). */
  readonly bContext?: number;
  /** BM25+ floor: each matched term adds at least idf · delta, however long the turn (0: Okapi). */
  readonly delta: number;
  /** 'relative': relativeFieldScore below, in place of BM25F's saturation of raw counts. */
  readonly mode?: 'bm25f' | 'relative';
}

/**
 * One field's score for one term in 'relative' mode: the term's share of the field's words (not its
 * count) saturated with `delta` inside, so a matched term counts about `delta` / norm however often
 * it is repeated, and the field's length norm divides it whole. A turn that says several of the
 * question's words in a few sentences then outranks a long reply that repeats them: on a person's
 * chats with an assistant (BEAM) the evidence is the person's short turn 3 times in 4, the replies
 * beside it are 17× longer. The scorer of Orama, a JS search library (BM25 over term frequencies
 * divided by length), which led our BM25 of raw counts by 11 points @10 there; its idf never reaches
 * 0 (log(1 + …), Lucene's), where FTS5's drops a word found in half the turns of one long project.
 */
function relativeFieldScore(idf: number, count: number, length: number, norm: number, delta: number): number {
  const share = count / length;
  return (idf * (delta + share * (K1 + 1))) / (share + K1 * norm);
}

/**
 * BM25F of the whole question over candidates with their neighbour context (Robertson & Zaragoza,
 * "The Probabilistic Relevance Framework", 2009): each field's term count is normalised by that
 * field's own length against its mean over the candidates, weighted, summed, then saturated once
 * per term. FTS5's bm25() over the turn index instead normalises by the row's total length, so a
 * turn beside long replies is penalised for its neighbours' length: on long-turn chats (BEAM) its
 * order fell below BM25 of each turn alone.
 */
export function fieldedScores(
  queryTerms: readonly string[],
  pool: ContextWindows,
  stats: TermStats,
  options: FieldedOptions,
): Map<string, number> {
  const relative = options.mode === 'relative';
  const weights = keyWeights(queryTerms, stats, relative ? idfPlus : idf);
  const keys = [...weights.keys()];
  const countText = termCounter(keys);
  /** Counted once per key however many windows hold it: turns by id, timelines ("May 2023") by text. */
  const cached = (cache: Map<string, Counted>, key: string, text: () => string): Counted => {
    let c = cache.get(key);
    if (!c) {
      c = countText(text());
      cache.set(key, c);
    }
    return c;
  };
  const turns = new Map<string, Counted>();
  const dates = new Map<string, Counted>();
  const count = (id: string) => cached(turns, id, () => pool.texts.get(id) ?? '');
  const timeline = (text: string | undefined): Counted[] => (text ? [cached(dates, text, () => text)] : []);
  const fields: Counted[][][] = pool.windows.map((w) => [[count(w.id)], w.before.map(count), w.after.map(count), timeline(w.timeline)]);
  const lengths = fields.map((f) => f.map((parts) => parts.reduce((n, p) => n + p.len, 0)));
  const avg = [0, 1, 2, 3].map((i) => {
    const total = lengths.reduce((n, l) => n + l[i]!, 0);
    return total > 0 ? total / lengths.length : 1;
  });
  const w = [options.weights.own, options.weights.before, options.weights.after, options.weights.timeline ?? 0];
  const idfs = keys.map((k) => weights.get(k)!);
  const out = new Map<string, number>();
  pool.windows.forEach((win, d) => {
    const norm = lengths[d]!.map((l, i) => {
      const b = i === 1 || i === 2 ? (options.bContext ?? options.b) : options.b;
      return 1 - b + (b * l) / avg[i]!;
    });
    let score = 0;
    for (let k = 0; k < keys.length; k++) {
      // BM25F: the fields' normalised counts are summed, then saturated once; 'relative': each
      // field is scored on its own and the scores are summed.
      let f = 0;
      for (let i = 0; i < 4; i++) {
        if (!(w[i]! > 0)) continue;
        let n = 0;
        for (const part of fields[d]![i]!) n += part.tf[k]!;
        if (!n) continue;
        if (relative) score += w[i]! * relativeFieldScore(idfs[k]!, n, lengths[d]![i]!, norm[i]!, options.delta);
        else f += (w[i]! * n) / norm[i]!;
      }
      if (f > 0) score += idfs[k]! * ((f * (K1 + 1)) / (K1 + f) + options.delta);
    }
    out.set(win.id, score);
  });
  return out;
}
