/**
 * Whether a message's Markdown can be formatted on the page's thread within a bounded time, read
 * from its text in one linear pass before any parsing. A message can come from anywhere (a paste,
 * an import, a model), and CommonMark parsing is not linear in every input: in micromark (under
 * remark-parse) emphasis and link resolution look back over open delimiters, and each nested
 * container is a level of recursion when the tree is turned into elements. Measured on a 2-core
 * machine: 20,000 `*a` took 7 s to parse in Node and 40,000 held the browser's thread ≈29 s;
 * 5,000 nested `>` overflowed the stack and blanked the whole conversation.
 *
 * The limits sit well above what people and models write (an answer is ≈1–3k characters; nesting
 * past six levels is rare), and a weighted total bounds them together; bench/markdownLimits.ts
 * measures the longest task of drawing the costliest text within them in the browser. A message
 * past one of them is shown as plain text, with "Show formatted" parsing it in a worker under a
 * deadline (formatOffThread.ts). The counts only ever over-estimate, so a text they pass is within
 * the limits.
 */
import { formatCount } from '../../core/base/numbers';

export const MARKDOWN_LIMITS = {
  /** Characters: a long text's parse time grows with it, whatever it holds. */
  chars: 20_000,
  /** Blockquote and list levels, as written at the start of lines (`> > -`, indented markers). */
  nesting: 16,
  /** Runs of `*` and `~`, and of `_` where it can open or close emphasis (not inside snake_case): 300 bold phrases. */
  emphasisRuns: 600,
  /** `[`: link, image, footnote and reference labels are resolved by looking back over open ones. */
  brackets: 300,
  /** `|`: every one may be a table cell boundary (a 40-column table of 17 rows has ≈780). */
  pipes: 800,
  /**
   * All of it together, in characters of plain prose: the length plus each mark weighted by what
   * it costs to parse and draw (MARK_COST). Each limit above alone stays near 100–200 ms in
   * Chromium here; a message at all of them at once held the page ≈0.5 s (bench/markdownLimits.ts).
   */
  cost: 25_000,
} as const;

/**
 * What one mark costs, in characters of prose, from the browser benchmark: 20,000 characters of
 * prose or of a code block draw in well under 100 ms, a 40-column table of 16 rows (≈740 `|`,
 * 5,900 characters) in ≈180 ms; a link or an emphasis pair costs several words.
 */
export const MARK_COST = { emphasisRuns: 10, brackets: 30, pipes: 20 } as const;

export type PlainReason = 'long' | 'nested' | 'emphasis' | 'brackets' | 'pipes' | 'dense';

export type MarkdownVerdict =
  | { readonly formatted: true; readonly cost: number }
  | { readonly formatted: false; readonly reason: PlainReason; readonly count: number; readonly limit: number };

type Limits = { readonly [K in keyof typeof MARKDOWN_LIMITS]: number };

const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const CR = 0x0d;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** Letters and digits in any script count as "inside a word" for `_` (CommonMark: no intraword `_` emphasis). */
const WORD = /[\p{L}\p{N}]/u;
const isWordAt = (text: string, i: number) => i >= 0 && i < text.length && WORD.test(text[i]!);

/**
 * After a list marker at `i` (`-`, `+`, `*`, or up to nine digits and `.`/`)`), the index just past
 * it when it is followed by a space, a tab or the end of the line; else -1.
 */
function afterListMarker(text: string, i: number): number {
  const c = text.charCodeAt(i);
  let j = i;
  if (c === 0x2d || c === 0x2b || c === 0x2a) j = i + 1;
  else if (isDigit(c)) {
    while (j < text.length && j - i < 9 && isDigit(text.charCodeAt(j))) j++;
    const d = text.charCodeAt(j);
    if (d !== 0x2e && d !== 0x29) return -1;
    j++;
  } else return -1;
  const next = text.charCodeAt(j);
  return j >= text.length || next === SPACE || next === TAB || next === NEWLINE || next === CR ? j : -1;
}

/** After a GFM footnote definition's label at `i` (`[^note]:`), the index just past it; else -1. */
function afterFootnoteLabel(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x5b || text.charCodeAt(i + 1) !== 0x5e) return -1; // '[^'
  const end = text.indexOf(']:', i + 2);
  // A label is at most 999 characters, on one line.
  if (end < 0 || end - i > 1_000) return -1;
  for (let j = i + 2; j < end; j++) if (text.charCodeAt(j) === NEWLINE || text.charCodeAt(j) === 0x5b) return -1;
  return end + 2;
}

/**
 * The deepest nesting of containers (blockquotes, list items, footnote definitions) the text can
 * produce, estimated from line starts: the markers that open a line (`> - > 1. text` is four
 * levels), plus the levels that earlier lines opened at smaller indentation and that this line may
 * continue. The estimate only over-counts (every level a parser could see is counted at least
 * once), so a text it passes is never deeper than the limit; over-counting only sends a text to
 * plain view. Stops once past `stopAbove`: the count is then "at least".
 */
function nestingOf(text: string, stopAbove: number): number {
  let deepest = 0;
  // Columns of the list markers and footnote labels that may still be open (continued by indentation).
  const open: number[] = [];
  let i = 0;
  while (i < text.length) {
    let column = 0;
    let markers = 0;
    let firstOpener = -1;
    const openers: number[] = [];
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === SPACE) {
        column++;
        i++;
        continue;
      }
      if (c === TAB) {
        column += 4 - (column % 4);
        i++;
        continue;
      }
      if (c === 0x3e) {
        markers++;
        column++;
        i++;
        continue;
      } // '>': continued only by another '>' (or lazily, never deeper)
      const after = Math.max(afterListMarker(text, i), afterFootnoteLabel(text, i));
      if (after < 0) break;
      if (firstOpener < 0) firstOpener = column;
      openers.push(column);
      markers++;
      column += after - i;
      i = after;
    }
    // A line that opens a list item at column c is outside every level opened at c or further
    // right; any other line may continue all of them.
    if (firstOpener >= 0) while (open.length > 0 && open[open.length - 1]! >= firstOpener) open.pop();
    const levels = markers + open.length;
    open.push(...openers);
    if (levels > deepest) {
      deepest = levels;
      if (deepest > stopAbove) return deepest;
    }
    while (i < text.length && text.charCodeAt(i) !== NEWLINE) i++;
    i++;
  }
  return deepest;
}

/** Counts of the characters whose handling can grow faster than the text. */
function delimiterCounts(text: string): { emphasisRuns: number; brackets: number; pipes: number } {
  let emphasisRuns = 0;
  let brackets = 0;
  let pipes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b)
      brackets++; // '['
    else if (c === 0x7c)
      pipes++; // '|'
    else if (c === 0x2a || c === 0x7e || c === 0x5f) {
      // '*' '~' '_'
      const start = i;
      while (i + 1 < text.length && text.charCodeAt(i + 1) === c) i++;
      // `snake_case_name`: an underscore run between two word characters can neither open nor close.
      if (c === 0x5f && isWordAt(text, start - 1) && isWordAt(text, i + 1)) continue;
      emphasisRuns++;
    }
  }
  return { emphasisRuns, brackets, pipes };
}

/** Formatted, or plain text and the first limit the text is past. Linear in the text; stops at the first limit passed. */
export function assessMarkdown(text: string, limits: Limits = MARKDOWN_LIMITS): MarkdownVerdict {
  const plain = (reason: PlainReason, count: number, limit: number): MarkdownVerdict => ({ formatted: false, reason, count, limit });
  if (text.length > limits.chars) return plain('long', text.length, limits.chars);
  const nesting = nestingOf(text, limits.nesting);
  if (nesting > limits.nesting) return plain('nested', nesting, limits.nesting);
  const counts = delimiterCounts(text);
  if (counts.emphasisRuns > limits.emphasisRuns) return plain('emphasis', counts.emphasisRuns, limits.emphasisRuns);
  if (counts.brackets > limits.brackets) return plain('brackets', counts.brackets, limits.brackets);
  if (counts.pipes > limits.pipes) return plain('pipes', counts.pipes, limits.pipes);
  const cost =
    text.length + MARK_COST.emphasisRuns * counts.emphasisRuns + MARK_COST.brackets * counts.brackets + MARK_COST.pipes * counts.pipes;
  if (cost > limits.cost) return plain('dense', cost, limits.cost);
  return { formatted: true, cost };
}

/** Why a message is plain text, in words a person reading the chat can follow. */
export function plainReasonText(verdict: Extract<MarkdownVerdict, { formatted: false }>): string {
  const n = formatCount(verdict.count);
  const limit = formatCount(verdict.limit);
  switch (verdict.reason) {
    case 'long':
      return `it is ${n} characters long (formatting is automatic up to ${limit})`;
    case 'nested':
      return `it nests quotes or lists more than ${limit} levels deep`;
    case 'emphasis':
      return `it has ${n} emphasis marks (* _ ~; formatting is automatic up to ${limit})`;
    case 'brackets':
      return `it has ${n} link brackets ([; formatting is automatic up to ${limit})`;
    case 'pipes':
      return `it has ${n} table separators (|; formatting is automatic up to ${limit})`;
    case 'dense':
      return 'it is long and densely formatted (tables, links and emphasis together)';
  }
}
