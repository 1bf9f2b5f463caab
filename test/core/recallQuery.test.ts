/** recallQuery.ts: what of a long message recall searches with. */
import { describe, expect, it } from 'vitest';
import { RECALL_QUERY_CHARS, recallQuery } from '../../src/core/recall/recallQuery';
import { PLAIN_100K } from '../support/markdownFixtures';

describe('recallQuery', () => {
  it('leaves a question as it is', () => {
    const q = 'Where did Ana run her first marathon, and how long did it take her?';
    expect(recallQuery(q)).toBe(q);
    const exact = 'x'.repeat(RECALL_QUERY_CHARS);
    expect(recallQuery(exact)).toBe(exact);
  });

  it('keeps the head and the tail of a 100,000-character paste, cut between words', () => {
    const message = `Summarise this report for me:\n\n${PLAIN_100K}\n\nWhat did I decide about the tram in Lisbon?`;
    const q = recallQuery(message);
    expect(q.length).toBeLessThanOrEqual(RECALL_QUERY_CHARS + 3);
    expect(q.length).toBeGreaterThan(RECALL_QUERY_CHARS * 0.8);
    expect(q.startsWith('Summarise this report for me:')).toBe(true);
    expect(q.endsWith('What did I decide about the tram in Lisbon?')).toBe(true);
    expect(q).toContain('\n…\n');
    const [head, tail] = q.split('\n…\n');
    expect(message.startsWith(head!)).toBe(true);
    expect(message.endsWith(tail!)).toBe(true);
    expect(message.charAt(head!.length)).toMatch(/\s/);
    expect(message.charAt(message.length - tail!.length - 1)).toMatch(/\s/);
  });

  it('never splits a character outside the basic plane', () => {
    const emoji = '😀'.repeat(5_000); // no spaces; each is two UTF-16 units
    for (const max of [2_000, 2_001, 999]) {
      const q = recallQuery(emoji, max);
      expect(q).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});
