/**
 * Text helpers every room shares: how text splits into words, the one stop-word list, and the
 * normal form used to compare texts. One definition each, so search, ranking, synthesis checks and
 * tombstones agree on what a "word" is.
 */

import { queryUnits } from './lexicalUnits';

/**
 * Runs of letters or digits: "Ana's 2nd run!" → ana, s, 2nd, run. A run in a script written
 * without spaces (Chinese, Japanese, Thai…) yields its character bigrams instead (lexicalUnits),
 * the same units the FTS indexes hold.
 */
// Combining marks belong to their letter (Thai vowels, Devanagari signs): the FTS tokenizers keep
// them inside words too.
const TERM = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
/** Runs of letters only (pseudo-relevance feedback skips numbers). */
const LETTERS = /\p{L}[\p{L}\p{M}]*/gu;

/** Lower-case letter/digit runs of the NFKC form of `text`, in order, with repeats. */
export function terms(text: string): string[] {
  return [...text.normalize('NFKC').toLowerCase().matchAll(TERM)].flatMap((m) => queryUnits(m[0]));
}

/** Lower-case letter runs of the NFKC form of `text`, in order, with repeats. */
export function letterWords(text: string): string[] {
  return [...text.normalize('NFKC').toLowerCase().matchAll(LETTERS)].flatMap((m) => queryUnits(m[0]));
}

/** Lower case, letters and digits only, single spaces: "Ana said: I like SUSHI!" → "ana said i like sushi". */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Function words and question words: they carry no topic, and match nearly every turn. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being below between both ' +
    'but by can cannot could couldn d did didn do does doesn doing don down during each few for from further had hadn has ' +
    'hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself just ll m me ' +
    'might more most must my myself no nor not now of off on once only or other ought our ours ourselves out over own re ' +
    's same shan she should shouldn so some such t than that the their theirs them themselves then there these they this ' +
    'those through to too under until up ve very was wasn we were weren what when where which while who whom why will with ' +
    'won would wouldn y you your yours yourself yourselves ' +
    // question scaffolding: "what kind of", "do you remember", "tell me", "according to"
    'kind sort type tell remember recall mention mentioned mentions according also ever like likely'
  ).split(' '),
);
