/**
 * The pre-check that decides whether a message is formatted on the page (markdownBudget.ts), over
 * the shapes that froze or blanked a conversation and the ordinary ones that must stay formatted.
 */
import { describe, expect, it } from 'vitest';
import { MARKDOWN_LIMITS, assessMarkdown, plainReasonText } from '../../src/app/markdown/markdownBudget';
import {
  DEEP_LIST,
  DEEP_LIST_ONE_LINE,
  EDGE_OF_LIMITS,
  EMPHASIS_OPENERS,
  EMPHASIS_SHORT,
  LONG_CODE_BLOCK,
  NESTED_LIST_6,
  NESTED_QUOTES,
  NORMAL_ANSWER,
  PLAIN_100K,
  WIDE_TABLE,
} from '../support/markdownFixtures';

const reason = (text: string) => {
  const v = assessMarkdown(text);
  return v.formatted ? 'formatted' : v.reason;
};

describe('assessMarkdown: what is formatted on the page', () => {
  it('formats ordinary answers, a long code block, a 40-column table and a 6-deep list', () => {
    expect(reason(NORMAL_ANSWER)).toBe('formatted');
    expect(LONG_CODE_BLOCK.split('\n').length).toBeGreaterThan(300);
    expect(reason(LONG_CODE_BLOCK)).toBe('formatted');
    expect(reason(WIDE_TABLE)).toBe('formatted');
    expect(reason(NESTED_LIST_6)).toBe('formatted');
  });

  it("formats a message at the edge of the weighted total (the benchmark's slowest formatted text), and not one mark more", () => {
    const edge = assessMarkdown(EDGE_OF_LIMITS);
    expect(edge.formatted).toBe(true);
    expect(edge.formatted && edge.cost).toBeGreaterThan(MARKDOWN_LIMITS.cost - 200);
    // Each kind of mark counts toward the total.
    for (const more of [' [x](https://e.x)', ' *y*', ' | z |']) expect(reason(`${EDGE_OF_LIMITS}${more}`), more).toBe('dense');
  });

  it('a wide table with links and emphasis, each within its own limit, is too much together', () => {
    const table = WIDE_TABLE.split('\n').slice(0, 19).join('\n'); // 40 columns, 16 rows: ≈740 separators
    const links = Array.from({ length: 250 }, (_, i) => `[l${i}](https://e.x/${i})`).join(' ');
    const emphasis = Array.from({ length: 250 }, (_, i) => `*w${i}*`).join(' ');
    for (const part of [table, links, emphasis]) expect(reason(part)).toBe('formatted');
    expect(reason([table, links, emphasis].join('\n\n'))).toBe('dense');
  });

  it('does not count snake_case underscores or indented code as emphasis or nesting', () => {
    const code = [
      '```python',
      ...Array.from({ length: 300 }, (_, i) => `${' '.repeat(4 * (i % 12))}my_name_${i} = other_${i}`),
      '```',
    ].join('\n');
    expect(code.length).toBeLessThan(MARKDOWN_LIMITS.chars);
    expect(reason(code)).toBe('formatted');
  });
});

describe('assessMarkdown: what is shown as plain text', () => {
  it('5,000 nested quotes (5 KB) are too deep', () => {
    expect(NESTED_QUOTES.length).toBeLessThan(MARKDOWN_LIMITS.chars);
    expect(assessMarkdown(NESTED_QUOTES)).toMatchObject({ formatted: false, reason: 'nested', limit: MARKDOWN_LIMITS.nesting });
    expect(reason('> '.repeat(17) + 'x')).toBe('nested');
    expect(reason('> '.repeat(16) + 'x')).toBe('formatted');
  });

  it('a 200-deep list is too deep, written on one line or indented level by level', () => {
    expect(reason(DEEP_LIST_ONE_LINE)).toBe('nested');
    expect(reason(DEEP_LIST)).not.toBe('formatted');
    // The same indented shape, cut below the length limit, is caught by its depth.
    const short = DEEP_LIST.split('\n').slice(0, 40).join('\n');
    expect(short.length).toBeLessThan(MARKDOWN_LIMITS.chars);
    expect(reason(short)).toBe('nested');
  });

  it('counts levels that quotes, list items and footnote definitions open together', () => {
    expect(reason('> - > 1. '.repeat(5) + 'x')).toBe('nested'); // 20 levels on one line
    // Items continued by indentation inside a quote: "> - a", ">   - b", ">     - c" …
    expect(reason(Array.from({ length: 20 }, (_, i) => `> ${'  '.repeat(i)}- item`).join('\n'))).toBe('nested');
    // Two markers on one line open two levels; the next line nests under both.
    expect(reason(Array.from({ length: 10 }, (_, i) => `${'    '.repeat(i)}- - pair ${i}`).join('\n'))).toBe('nested');
    expect(reason(`[^1]: ${'>'.repeat(3_000)} hidden behind a footnote label`)).toBe('nested');
  });

  it('lines at the margin between indented items do not reset the count (a parser continues the list)', () => {
    const lazy = Array.from({ length: 20 }, (_, i) => `${'  '.repeat(i)}- item ${i}\nlazy continuation ${i}`).join('\n');
    expect(lazy.length).toBeLessThan(MARKDOWN_LIMITS.chars);
    expect(reason(lazy)).toBe('nested');
  });

  it('40,000 emphasis openers (80 KB) are too long; 5,000 of them (10 KB) are too many', () => {
    expect(reason(EMPHASIS_OPENERS)).toBe('long');
    expect(EMPHASIS_SHORT.length).toBeLessThan(MARKDOWN_LIMITS.chars);
    expect(assessMarkdown(EMPHASIS_SHORT)).toMatchObject({ formatted: false, reason: 'emphasis', count: 5_000 });
    expect(reason('~a'.repeat(2_000))).toBe('emphasis');
    expect(reason(' _a'.repeat(2_000))).toBe('emphasis');
  });

  it('a plain message of 100,000 characters is too long', () => {
    expect(PLAIN_100K.length).toBe(100_000);
    expect(assessMarkdown(PLAIN_100K)).toEqual({ formatted: false, reason: 'long', count: 100_000, limit: MARKDOWN_LIMITS.chars });
  });

  it('too many link brackets or table separators', () => {
    expect(reason('[a'.repeat(1_000))).toBe('brackets');
    expect(reason('|a'.repeat(3_000))).toBe('pipes');
  });

  it('says why in words', () => {
    const v = assessMarkdown(PLAIN_100K);
    if (v.formatted) throw new Error('formatted');
    expect(plainReasonText(v)).toBe('it is 100,000 characters long (formatting is automatic up to 20,000)');
    const deep = assessMarkdown(NESTED_QUOTES);
    if (deep.formatted) throw new Error('formatted');
    expect(plainReasonText(deep)).toBe('it nests quotes or lists more than 16 levels deep');
    const dense = assessMarkdown(`${EDGE_OF_LIMITS} [x](https://e.x)`);
    if (dense.formatted) throw new Error('formatted');
    expect(plainReasonText(dense)).toBe('it is long and densely formatted (tables, links and emphasis together)');
  });
});
