/**
 * A search hit's snippet: the window of a turn holding the most query words, with each match
 * wrapped in HIGHLIGHT_START / HIGHLIGHT_END. Built here rather than by FTS5's snippet(): the
 * indexes hold lexical text (character bigrams for scripts without spaces), not the turn, so FTS5
 * cannot map its matches back onto the words a person wrote.
 *
 * Matching mirrors the index: a character of a script without spaces is a token and a query
 * bigram marks the two characters it spans; any other word matches a query word that starts it,
 * or shares its first five letters (what porter stemming conflates: "puppies" ~ "puppy").
 */
import { HIGHLIGHT_END, HIGHLIGHT_START } from './types';
import { hasNoSpaceScript, runUnits } from './lexicalUnits';

interface Token {
  readonly start: number;
  readonly end: number;
  /** Comparable form: NFKC, lower case, Latin diacritics removed. */
  readonly key: string;
  /** A unit of a script without spaces (counts half a word toward the window). */
  readonly unit: boolean;
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

function fold(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(/(?<=[a-z])\p{M}+/gu, '')
    .normalize('NFC');
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    if (!hasNoSpaceScript(word)) {
      out.push({ start: m.index, end: m.index + word.length, key: fold(word), unit: false });
      continue;
    }
    // Units and any spaced-script letters between them, in order.
    let at = 0;
    const unitRe =
      /(?:(?=[\p{L}\p{N}])[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}\p{scx=Thai}\p{scx=Laoo}\p{scx=Khmr}\p{scx=Mymr}]\p{M}*)+/gu;
    for (const r of word.matchAll(unitRe)) {
      if (r.index > at) out.push({ start: m.index + at, end: m.index + r.index, key: fold(word.slice(at, r.index)), unit: false });
      let pos = m.index + r.index;
      for (const u of runUnits(r[0])) {
        out.push({ start: pos, end: pos + u.length, key: fold(u), unit: true });
        pos += u.length;
      }
      at = r.index + r[0].length;
    }
    if (at < word.length) out.push({ start: m.index + at, end: m.index + word.length, key: fold(word.slice(at)), unit: false });
  }
  return out;
}

/** A word matches a query word it starts with, or one it shares all but two letters with from the start. */
function wordMatches(w: string, t: string): boolean {
  if (w.startsWith(t)) return true;
  let common = 0;
  while (common < w.length && common < t.length && w[common] === t[common]) common++;
  return common >= Math.max(3, Math.min(w.length, t.length) - 2);
}

/** Which tokens the query terms (lower-case words and bigrams, as the FTS query used) match. */
function matchedTokens(tokens: readonly Token[], terms: readonly string[]): boolean[] {
  const hit = tokens.map(() => false);
  const spaced = terms.filter((t) => !hasNoSpaceScript(t)).map(fold);
  const grams = new Set(terms.filter(hasNoSpaceScript).map(fold));
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (!tok.unit) {
      if (spaced.some((t) => wordMatches(tok.key, t))) hit[i] = true;
      continue;
    }
    if (grams.has(tok.key)) hit[i] = true;
    const next = tokens[i + 1];
    if (next?.unit && next.start === tok.end && grams.has(tok.key + next.key)) hit[i] = hit[i + 1] = true;
  }
  return hit;
}

/**
 * The snippet of `text` for `terms`: at most `maxWords` words (a character of a script without
 * spaces counts half) around the densest matches, "…" where cut, matches marked.
 */
export function highlightSnippet(text: string, terms: readonly string[], maxWords = 24): string {
  const tokens = tokenize(text);
  if (tokens.length === 0) return text.slice(0, 200);
  const hit = matchedTokens(tokens, terms);
  const weight = (i: number) => (tokens[i]!.unit ? 0.5 : 1);
  /** The window from token `start` as long as `maxWords` allows: [start, end) and its matches. */
  const windowFrom = (start: number): { start: number; end: number; hits: number } => {
    let room = maxWords;
    let end = start;
    let hits = 0;
    for (; end < tokens.length && room - weight(end) >= 0; end++) {
      room -= weight(end);
      if (hit[end]) hits++;
    }
    return { start, end, hits };
  };
  // Candidate windows start at the text's head or a little before a match (to read in context);
  // the one with most matches wins, the earliest on ties.
  let win = windowFrom(0);
  for (let i = 0; i < tokens.length; i++) {
    if (!hit[i]) continue;
    const w = windowFrom(Math.max(0, i - 3));
    if (w.hits > win.hits) win = w;
  }
  const best = win.start;
  const bestEnd = win.end;
  const from = best === 0 ? 0 : tokens[best]!.start;
  const to = bestEnd >= tokens.length ? text.length : tokens[bestEnd - 1]!.end;
  let out = from > 0 ? '…' : '';
  let at = from;
  for (let i = best; i < bestEnd; i++) {
    if (!hit[i]) continue;
    let k = i;
    // Adjacent matched units of a script without spaces form one marked span ("北京").
    while (k + 1 < bestEnd && hit[k + 1] && tokens[k]!.unit && tokens[k + 1]!.unit && tokens[k + 1]!.start === tokens[k]!.end) k++;
    out += text.slice(at, tokens[i]!.start) + HIGHLIGHT_START + text.slice(tokens[i]!.start, tokens[k]!.end) + HIGHLIGHT_END;
    at = tokens[k]!.end;
    i = k;
  }
  out += text.slice(at, to);
  return to < text.length ? `${out}…` : out;
}
