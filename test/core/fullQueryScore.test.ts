import { describe, expect, it } from 'vitest';
import { fullQueryScores, stemKey } from '../../src/core/recall/fullQueryScore';

describe('fullQueryScores', () => {
  it('stems plurals, -ing, -ed and -ly alike and leaves short or non-ASCII words alone', () => {
    expect(stemKey('dogs')).toBe('dogs'); // four letters: kept whole
    expect(['puppies', 'puppy'].map(stemKey)).toEqual(['puppy', 'puppy']);
    expect(['running', 'planned', 'walked', 'walks', 'quickly'].map(stemKey)).toEqual(['run', 'plan', 'walk', 'walk', 'quick']);
    expect(stemKey('café')).toBe('café');
  });

  it('scores rare words above common ones, repeated words above single ones, short turns above long ones', () => {
    const stats = { docs: 1000, avgLength: 5, df: new Map([['paris', 900], ['trip', 3]]) };
    const texts = new Map([
      ['common', 'paris paris'],
      ['rare', 'one trip'],
      ['both', 'paris trip'],
      ['twice', 'trips and trip'],
      ['long', `trip ${'word '.repeat(40)}`],
      ['none', 'nothing here'],
    ]);
    const s = fullQueryScores(['trip', 'paris', 'trip'], texts, stats);
    expect(s.get('none')).toBe(0);
    expect(s.get('rare')!).toBeGreaterThan(s.get('common')!);
    expect(s.get('both')!).toBeGreaterThan(s.get('rare')!);
    expect(s.get('twice')!).toBeGreaterThan(s.get('rare')! * 0.9);
    expect(s.get('long')!).toBeLessThan(s.get('rare')!);
    // A word the index holds in nearly every turn still counts a little, never negatively.
    expect(s.get('common')!).toBeGreaterThan(0);
  });
});
