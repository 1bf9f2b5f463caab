/**
 * The one text rule for lexical indexing and querying of scripts written without spaces between
 * words (Chinese, Japanese, Korean, Thai, Lao, Khmer, Burmese). FTS5's unicode61 tokenizer keeps a
 * run of such characters as one token, so a word inside a sentence never matches. Every index
 * gets its text through `lexicalText` (storage registers it as the SQL function `lexical`) and
 * every query's words come through `terms` (core/base/text), both built on `noSpaceUnits` here,
 * so the two sides always agree.
 *
 * The rule: such a run becomes its overlapping character bigrams, plus its last character alone.
 * A query word of two or more characters becomes its bigrams (all present in any text holding
 * the word); a single-character query word is matched as a prefix (`"猫"*`), which finds every
 * bigram starting with it and the run-final single character — i.e. every position. Measured on
 * the multilingual known-item benchmark (bench/multilingual.ts) against Intl.Segmenter words:
 * bigrams find every word whatever the segmenter would have cut, need no dictionary and cost
 * one token per character. Text in other scripts is left as it is (NFKC-normalised), so English
 * keeps the porter stemmer and spaced scripts their words.
 *
 * A "character" is a base letter with its combining marks (Thai vowels and tone marks, Khmer and
 * Burmese signs), so a bigram never splits a mark from its letter.
 */

/** A regex class of the characters of scripts without spaces (for other modules' regexes, flag `u`). */
export const NO_SPACE_SCRIPT_CLASS = String.raw`[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}\p{scx=Thai}\p{scx=Laoo}\p{scx=Khmr}\p{scx=Mymr}]`;
/** A letter or digit of a script without spaces, with its combining marks. */
const UNIT_SOURCE = String.raw`(?=[\p{L}\p{N}])${NO_SPACE_SCRIPT_CLASS}\p{M}*`;
/** A run of such units. */
const RUN = new RegExp(`(?:${UNIT_SOURCE})+`, 'gu');
const UNIT = new RegExp(UNIT_SOURCE, 'gu');
const NON_ASCII = /[^\p{ASCII}]/u;
/** Quick test before the regex work: most text (English) has nothing to rewrite. */
const ANY = new RegExp(UNIT_SOURCE, 'u');

/** Whether `text` holds any character of a script without spaces. */
export function hasNoSpaceScript(text: string): boolean {
  return ANY.test(text);
}

/** The units of one run: "北京大学" → 北, 京, 大, 学. */
export function runUnits(run: string): string[] {
  return run.match(UNIT) ?? [];
}

/** Overlapping bigrams of a run ("北京大学" → 北京, 京大, 大学); a one-unit run is itself. */
export function runBigrams(run: string): string[] {
  const u = runUnits(run);
  if (u.length <= 1) return u;
  const out: string[] = [];
  for (let i = 0; i + 1 < u.length; i++) out.push(u[i]! + u[i + 1]!);
  return out;
}

/** The index form of a run: its bigrams and its last unit alone (see the module comment). */
function indexRun(run: string): string {
  const u = runUnits(run);
  if (u.length <= 1) return ` ${run} `;
  const out: string[] = [];
  for (let i = 0; i + 1 < u.length; i++) out.push(u[i]! + u[i + 1]!);
  out.push(u[u.length - 1]!);
  return ` ${out.join(' ')} `;
}

/**
 * The text an FTS index holds for `text`: NFKC form, each run of a script without spaces
 * rewritten into space-separated bigrams (+ its last unit). Deterministic and idempotent on
 * text without such scripts; null/undefined become ''.
 */
export function lexicalText(text: string | null | undefined): string {
  if (!text) return '';
  // Most text is plain ASCII, whose NFKC form is itself: skip the normalisation and the scan.
  if (!NON_ASCII.test(text)) return text;
  const s = text.normalize('NFKC');
  return ANY.test(s) ? s.replace(RUN, indexRun) : s;
}

/**
 * The query units of one lower-case letter/digit word: a word wholly in spaced scripts is itself;
 * runs of scripts without spaces become their bigrams (a one-unit run stays one unit, matched as
 * a prefix by the FTS query builders); the spaced parts around them stay words.
 */
export function queryUnits(word: string): string[] {
  if (!ANY.test(word)) return [word];
  const out: string[] = [];
  let last = 0;
  for (const m of word.matchAll(RUN)) {
    if (m.index > last) out.push(word.slice(last, m.index));
    out.push(...runBigrams(m[0]));
    last = m.index + m[0].length;
  }
  if (last < word.length) out.push(word.slice(last));
  return out;
}

/** A single unit of a script without spaces: FTS queries match it as a prefix. */
export function isSingleNoSpaceUnit(term: string): boolean {
  const u = term.match(UNIT);
  return u !== null && u.length === 1 && u[0] === term;
}

/**
 * One term as an FTS5 MATCH operand: quoted (embedded quotes doubled, so nothing is syntax), and
 * a lone character of a script without spaces as a prefix query.
 */
export function ftsOperand(term: string): string {
  const quoted = `"${term.replaceAll('"', '""')}"`;
  return isSingleNoSpaceUnit(term) ? `${quoted}*` : quoted;
}
