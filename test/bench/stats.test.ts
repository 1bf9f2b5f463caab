import { describe, expect, it } from 'vitest';
import { median, percentile, rateStats } from '../../bench/stats';

describe('benchmark statistics (bench/stats.ts)', () => {
  const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5]; // 1..10, unsorted

  it('takes nearest-rank percentiles: the ⌈p·n⌉-th smallest sample, never an interpolation', () => {
    expect(percentile(ten, 50)).toBe(5);
    expect(percentile(ten, 95)).toBe(10);
    expect(percentile(ten, 90)).toBe(9);
    expect(percentile(ten, 91)).toBe(10);
    expect(percentile(ten, 10)).toBe(1);
    expect(percentile(ten, 0)).toBe(1);
    expect(percentile(ten, 100)).toBe(10);
    expect(percentile([3, 1, 2, 5, 4], 95)).toBe(5); // 5 samples: p95 is the largest
    const twenty = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(percentile(twenty, 95)).toBe(19);
    expect(percentile([42], 50)).toBe(42);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        95,
      ),
    ).toBe(95);
  });

  it('takes the conventional median: the mean of the two middle samples for an even count', () => {
    expect(median(ten)).toBe(5.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([3, 1, 2])).toBe(percentile([3, 1, 2], 50));
    expect(median([7])).toBe(7);
  });

  it('gives NaN for no samples, never 0', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(median([])).toBeNaN();
    expect(Object.values(rateStats([])).every(Number.isNaN)).toBe(true);
  });

  it('refuses a percentile outside 0..100 (a fraction passed by mistake would be read as p ≈ 1)', () => {
    expect(() => percentile(ten, 101)).toThrow(RangeError);
    expect(() => percentile(ten, -1)).toThrow(RangeError);
    expect(() => percentile(ten, Number.NaN)).toThrow(RangeError);
  });

  it('leaves its input unsorted', () => {
    const xs = [3, 1, 2];
    percentile(xs, 50);
    median(xs);
    rateStats(xs);
    expect(xs).toEqual([3, 1, 2]);
  });

  it('gives a rate its slow end as p95: the rate 95% of repetitions beat', () => {
    expect(rateStats([900, 1100, 1000])).toEqual({ median: 1000, p95: 900, min: 900, max: 1100 });
    expect(rateStats([4, 1, 3, 2])).toEqual({ median: 2.5, p95: 1, min: 1, max: 4 });
    const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) * 100);
    expect(rateStats(twenty).p95).toBe(100);
    const forty = Array.from({ length: 40 }, (_, i) => (i + 1) * 100);
    expect(rateStats(forty).p95).toBe(200);
  });
});
