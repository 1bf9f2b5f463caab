/**
 * Text helpers every room shares: how text splits into words, the one stop-word list, and the
 * normal form used to compare texts. One definition each, so search, ranking, synthesis checks and
 * tombstones agree on what a "word" is.
 */

/** Runs of letters or digits: "Ana's 2nd run!" → ana, s, 2nd, run. */
const TERM = /[\p{L}\p{N}]+/gu;
/** Runs of letters only (pseudo-relevance feedback skips numbers). */
const LETTERS = /\p{L}+/gu;

/** Lower-case letter/digit runs of the NFKC form of `text`, in order, with repeats. */
export function terms(text: string): string[] {
  return [...text.normalize('NFKC').toLowerCase().matchAll(TERM)].map((m) => m[0]);
}

/** Lower-case letter runs of the NFKC form of `text`, in order, with repeats. */
export function letterWords(text: string): string[] {
  return [...text.normalize('NFKC').toLowerCase().matchAll(LETTERS)].map((m) => m[0]);
}

/** Lower case, letters and digits only, single spaces: "Ana said: I like SUSHI!" → "ana said i like sushi". */
export function normaliseText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
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
