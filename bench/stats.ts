/**
 * The one place benchmarks summarise repeated measurements (latencies, per-repetition rates).
 *
 * Rules, the same for every benchmark:
 * - **Percentiles are nearest-rank, never interpolated**: the p-th percentile of n samples is the
 *   ⌈p/100 · n⌉-th smallest (the smallest for p = 0), so every reported figure is a value that was
 *   measured. With 5 samples p95 is the largest; with 20 it is the 19th.
 * - **The median is the conventional one**: the middle sample, or the mean of the two middle
 *   samples when n is even. For an odd n it equals `percentile(xs, 50)`; for an even n that is the
 *   lower of the two middle samples, so a column headed "median" uses `median` and one headed
 *   "p50" uses `percentile`.
 * - **No samples, no figure**: an empty list gives NaN (printed "NaN", stored as null), never 0,
 *   which would read as an instant operation.
 * - **The p95 of a rate is its slow end**: the rate 95% of repetitions beat, i.e. the 5th
 *   percentile (`rateStats`).
 */

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile of `values`, p in 0..100; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be within 0..100, got ${p}`);
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** The middle value (the mean of the two middle values for an even count); NaN for an empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface RateStats {
  readonly median: number;
  /** The slow end: the rate 95% of repetitions beat (nearest-rank 5th percentile). */
  readonly p95: number;
  readonly min: number;
  readonly max: number;
}

/** Median and slow-end p95 of per-repetition rates (items per second); all NaN for no repetitions. */
export function rateStats(rates: readonly number[]): RateStats {
  if (rates.length === 0) return { median: Number.NaN, p95: Number.NaN, min: Number.NaN, max: Number.NaN };
  const s = sorted(rates);
  return { median: median(s), p95: percentile(s, 5), min: s[0]!, max: s[s.length - 1]! };
}
