/**
 * Porter's suffix-stripping stemmer ("An algorithm for suffix stripping", M. F. Porter, 1980), as
 * the full-text index's `porter` tokenizer applies it to every word it stores: words shorter than
 * three letters, longer than 64, or holding anything but a–z are kept as they are.
 *
 * The JS scorers (fullQueryScore.ts) re-rank the index's candidates and must count the same words
 * the index matched: "classes" and "class", "bake" and "baked", "days" and "day" are one term to the
 * index, and a scorer that splits them drops the very turns the index found on them.
 */

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);

/** Is w[i] a consonant? 'y' is a vowel after a consonant, a consonant at the start or after a vowel. */
function consonant(w: string, i: number): boolean {
  const c = w[i]!;
  if (VOWELS.has(c)) return false;
  if (c === 'y') return i === 0 || !consonant(w, i - 1);
  return true;
}

/** Porter's measure m of a stem: the number of vowel-consonant sequences in [C](VC)^m[V]. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && consonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !consonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && consonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!consonant(stem, i)) return true;
  return false;
}

/** Ends in a double consonant ("-tt", "-ss"). */
function doubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && consonant(w, n - 1);
}

/** Ends consonant-vowel-consonant, the last not w, x or y ("hop", "fil"): a short syllable. */
function shortSyllable(w: string): boolean {
  const n = w.length;
  if (n < 3 || !consonant(w, n - 1) || consonant(w, n - 2) || !consonant(w, n - 3)) return false;
  const last = w[n - 1]!;
  return last !== 'w' && last !== 'x' && last !== 'y';
}

type Rule = readonly [suffix: string, replacement: string];

/**
 * The longest suffix of `rules` that `w` ends with is replaced when `when(stem)` holds; when it does
 * not, the word is left alone (a shorter suffix of the same list is not tried).
 */
function replaceLongest(w: string, rules: readonly Rule[], when: (stem: string, suffix: string) => boolean): string {
  let best: Rule | null = null;
  for (const rule of rules) if (w.endsWith(rule[0]) && (!best || rule[0].length > best[0].length)) best = rule;
  if (!best) return w;
  const stem = w.slice(0, w.length - best[0].length);
  return when(stem, best[0]) ? stem + best[1] : w;
}

const STEP2: readonly Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];

const STEP3: readonly Rule[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];

const STEP4: readonly Rule[] = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
].map((s) => [s, ''] as const);

function step1ab(w: string): string {
  // 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  // 1b: -eed, -ed, -ing.
  if (w.endsWith('eed')) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  let stem: string | null = null;
  if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) stem = w.slice(0, -2);
  else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) stem = w.slice(0, -3);
  if (stem === null) return w;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  if (doubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && shortSyllable(stem)) return `${stem}e`;
  return stem;
}

/** The word's Porter stem (lower-case a–z words of 3 to 64 letters; any other word unchanged). */
export function porterStem(word: string): string {
  if (word.length < 3 || word.length > 64 || !/^[a-z]+$/.test(word)) return word;
  let w = step1ab(word);
  // 1c: a final y after a vowel in the stem becomes i.
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = replaceLongest(w, STEP2, (stem) => measure(stem) > 0);
  w = replaceLongest(w, STEP3, (stem) => measure(stem) > 0);
  w = replaceLongest(w, STEP4, (stem, suffix) => measure(stem) > 1 && (suffix !== 'ion' || /[st]$/.test(stem)));
  // 5a: a final e goes after a long stem, or after a stem of measure 1 that is not a short syllable.
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !shortSyllable(stem))) w = stem;
  }
  // 5b: -ll after a long stem loses one l.
  if (w.endsWith('ll') && measure(w) > 1) w = w.slice(0, -1);
  return w;
}
