/**
 * Date foresight comes only from statements about the future. Measured on a labelled set of chat
 * sentences (dateForesight.labelled.ts): precision (how many foresight items are real plans) and
 * recall (how many plans became foresight), reported and held above a floor.
 */
import { describe, expect, it } from 'vitest';
import { findDateForesight } from '../../src/core/episodes/dateForesight';
import { classifyDateMention } from '../../src/core/episodes/futureStatement';
import { LABELLED, UNSEEN, WRITTEN_AT, type Label } from './dateForesight.labelled';

function score(set: typeof LABELLED) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const wrong: string[] = [];
  const falsePositives: Partial<Record<Label, number>> = {};
  for (const [text, label] of set) {
    const found = findDateForesight(text, WRITTEN_AT, 'UTC').length > 0;
    const future = label === 'future';
    if (found && future) tp++;
    else if (found) {
      fp++;
      falsePositives[label] = (falsePositives[label] ?? 0) + 1;
      wrong.push(`FP ${label}: ${text}`);
    } else if (future) {
      fn++;
      wrong.push(`FN: ${text}`);
    }
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  const counts = set.reduce<Record<string, number>>((a, [, l]) => ({ ...a, [l]: (a[l] ?? 0) + 1 }), {});
  const report = `${set.length} sentences ${JSON.stringify(counts)}: precision ${precision.toFixed(3)} (${tp}/${tp + fp}), recall ${recall.toFixed(3)} (${tp}/${tp + fn}); false positives by kind ${JSON.stringify(falsePositives)}\n${wrong.join('\n')}`;
  return { precision, recall, falsePositives, report };
}

describe('date foresight on labelled chat sentences', () => {
  it('keeps precision and recall above their floors, and no question becomes a plan', () => {
    const { precision, recall, falsePositives, report } = score(LABELLED);
    console.log(`date foresight, tuning set: ${report}`);
    expect(LABELLED.length).toBeGreaterThanOrEqual(200);
    expect(falsePositives.question ?? 0).toBe(0);
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.85);
  });

  it('carries to sentences the rules were not fitted to', () => {
    const { precision, recall, falsePositives, report } = score(UNSEEN);
    console.log(`date foresight, unseen set: ${report}`);
    expect(falsePositives.question ?? 0).toBe(0);
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(recall).toBeGreaterThanOrEqual(0.6);
  });

  it("reads the issue's cases as what they are", () => {
    const kind = (sentence: string, phrase: string) => classifyDateMention({ sentence, phrase });
    expect(kind('what should I cook for Ana this weekend?', 'this weekend')).toBe('question');
    expect(kind('Any dinner ideas for tonight?', 'tonight')).toBe('question');
    expect(kind('Where am I moving in March?', 'March')).toBe('question');
    expect(kind('How many km should I run next week?', 'next week')).toBe('question');
    expect(kind('my 3 years and 9 months experience', '3 years and 9 months')).toBe('duration');
    expect(kind('I started my new job in March.', 'March')).toBe('past');
    expect(kind('I am moving to Porto in March.', 'March')).toBe('future');
    expect(kind("I'm flying to Tokyo next month, any tips?", 'next month')).toBe('future');
    // An assistant's sentence counts only as its own commitment.
    expect(classifyDateMention({ sentence: 'Your dentist appointment is on Friday.', phrase: 'Friday', role: 'assistant' })).not.toBe(
      'future',
    );
    expect(classifyDateMention({ sentence: "I'll remind you about it on Friday.", phrase: 'Friday', role: 'assistant' })).toBe('future');
  });
});
