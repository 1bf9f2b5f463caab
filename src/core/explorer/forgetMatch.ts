/**
 * What "Forget everything about X" counts as mentioning X: a word of X as a whole word of the text,
 * in any case (before this, "Ana" proposed "Nirvana", "management" and "analysis", because the
 * full-text stemmer and the LIKE scans match inside and around words). The FTS and LIKE queries
 * only propose candidates; this decides, for every kind, and it also rewrites a conversation
 * title so the word does not survive there.
 *
 * Whole words: a match may not have a letter, digit or combining mark of a spaced script right
 * before or after it.
 * Scripts written without spaces (Chinese, Japanese, Korean, Thai… — core/base/lexicalUnits) have
 * no word edges to check, so a word in them is found anywhere inside a run: 北京 in 我去北京了,
 * 부산 in 부산에서 (the same rule the search indexes follow, which find it there too). Words are
 * compared in their NFKC, lower-case form; the query's words are OR-ed, stop words left out when
 * it has others (as search does, storage/ftsQuery).
 */
import { STOP_WORDS } from '../base/text';
import { hasNoSpaceScript, NO_SPACE_SCRIPT_CLASS } from '../base/lexicalUnits';

/** A word: letters and digits with their combining marks (core/base/text's TERM). */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
/**
 * What may not touch a whole word: a letter, digit or mark of a spaced script. A character of a
 * script without spaces is an edge ("用ANA来" holds the word ANA), as the indexes cut it there too.
 */
const WORD_CHAR = String.raw`(?:(?!${NO_SPACE_SCRIPT_CLASS})[\p{L}\p{N}\p{M}])`;
const MAX_WORDS = 16;

export interface ForgetMatcher {
  /** The query's words, lower case, as matched. */
  readonly words: readonly string[];
  /** Whether `text` mentions any of the words as a whole word. */
  matches(text: string | null | undefined): boolean;
  /** `text` with every mention replaced by "…" (the rest as it was, NFKC-normalised). */
  redact(text: string): string;
  /** At most about `n` characters of `text` that show its first mention (the start when it is near). */
  excerpt(text: string, n: number): string;
}

/** The matcher for a Forget query, or null when it has no word (only punctuation or emoji). */
export function forgetMatcher(query: string): ForgetMatcher | null {
  const all = [...new Set(query.normalize('NFKC').toLowerCase().match(WORD) ?? [])];
  const content = all.filter((w) => !STOP_WORDS.has(w));
  const words = (content.length > 0 ? content : all).slice(0, MAX_WORDS);
  if (words.length === 0) return null;
  // A word edge is checked only on a side whose character belongs to a spaced script.
  const alternatives = words.map((w) => {
    const before = hasNoSpaceScript(w[0]!) ? '' : `(?<!${WORD_CHAR})`;
    const lastChar = [...w].findLast((c) => !/\p{M}/u.test(c)) ?? w;
    const after = hasNoSpaceScript(lastChar) ? '' : `(?!${WORD_CHAR})`;
    return `${before}${w}${after}`; // a word holds letters, digits and marks only: nothing to escape
  });
  // Longer words first, so "ana maria" redacts "maria" whole when both could start at one place.
  alternatives.sort((a, b) => b.length - a.length);
  const source = alternatives.join('|');
  const test = new RegExp(source, 'u');
  return {
    words,
    matches: (text) => !!text && test.test(text.normalize('NFKC').toLowerCase()),
    redact: (text) => redactWith(text.normalize('NFKC'), new RegExp(source, 'gu')),
    excerpt: (text, n) => {
      const t = text.normalize('NFKC');
      // Positions in the lower-case form: off by a unit only around the rare letters whose lower case is longer.
      const at = t.toLowerCase().search(test);
      if (t.length <= n) return t;
      if (at < n * 0.6) return `${t.slice(0, n)}…`;
      const from = Math.max(0, at - Math.round(n * 0.3));
      return `…${t.slice(from, from + n)}${from + n < t.length ? '…' : ''}`;
    },
  };
}

/**
 * Replaces the matches, found in the lower-case form, in the original text. Lower-casing can change
 * a string's length (İ → i̇), so positions are mapped character by character.
 */
function redactWith(text: string, re: RegExp): string {
  const chars = [...text];
  const lower: string[] = [];
  const owner: number[] = []; // for each UTF-16 unit of the lower-case text, its original character
  chars.forEach((c, i) => {
    const l = c.toLowerCase();
    lower.push(l);
    for (let k = 0; k < l.length; k++) owner.push(i);
  });
  const cut = new Array<boolean>(chars.length).fill(false);
  const starts = new Set<number>();
  for (const m of lower.join('').matchAll(re)) {
    if (m[0].length === 0) continue;
    starts.add(owner[m.index]!);
    for (let k = m.index; k < m.index + m[0].length; k++) cut[owner[k]!] = true;
  }
  return chars.map((c, i) => (!cut[i] ? c : starts.has(i) ? '…' : '')).join('');
}
