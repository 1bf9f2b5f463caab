import { describe, expect, it } from 'vitest';
import { focusClip, focusTerms, headClip } from '../../src/core/recall/snippet';

describe('focusClip', () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
  const long = `${filler(200)} For the omelette, whisk three eggs with a pinch of salt and cook them in butter. ${filler(200)}`;

  it('keeps the part of a long turn that holds the question words', () => {
    const out = focusClip(long, 200, focusTerms('How many eggs did you say the omelette needs?'));
    expect(out.length).toBeLessThanOrEqual(200);
    expect(out).toContain('whisk three eggs');
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
  });

  it('cuts from the head when no question word occurs, and leaves short text whole', () => {
    expect(focusClip(long, 100, focusTerms('What about zebras?'))).toBe(headClip(long, 100));
    expect(focusClip('Short  text.', 100, focusTerms('text'))).toBe('Short text.');
  });
});
