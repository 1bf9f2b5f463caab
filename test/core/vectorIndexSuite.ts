/**
 * One behaviour suite for every VectorSearchIndex (one interface, one suite over all): each implementation's test
 * file is two lines. Exact indexes must reproduce a naive full sort; approximate (quantised) ones
 * must return a valid top-k within a score tolerance, agree with exact search on realistic shapes,
 * and keep their vectors in at most a third of float32's bytes.
 */
import { describe, expect, it } from 'vitest';
import type { VectorHit, VectorIndexFactory } from '../../src/core/capture/vectorIndex';
import { seededRandom } from '../../bench/seededRandom';

export const rng = seededRandom;

export function unitVector(dim: number, rand: () => number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = rand() * 2 - 1;
    n += v[i]! * v[i]!;
  }
  n = Math.sqrt(n);
  return v.map((x) => x / n);
}

function naive(vectors: Map<string, Float32Array>, q: ArrayLike<number>, k: number, filter?: (id: string) => boolean): VectorHit[] {
  const all: VectorHit[] = [];
  for (const [id, v] of vectors) {
    if (filter && !filter(id)) continue;
    let s = 0;
    for (let i = 0; i < q.length; i++) s += v[i]! * q[i]!;
    all.push({ id, score: s });
  }
  return all.sort((a, b) => b.score - a.score).slice(0, k);
}

/** Score error an int8 row × int8 query may make on unit vectors of these test sizes. */
const APPROX_TOLERANCE = 0.02;

export function describeVectorIndex(
  name: string,
  load: () => VectorIndexFactory | Promise<VectorIndexFactory>,
  expectedKind: string,
): void {
  describe(`vector index behaviour: ${name}`, () => {
    const factory = async () => {
      const f = await load();
      // A silent fallback to another implementation must fail the suite, not pass it.
      expect(f.kind).toBe(expectedKind);
      return f;
    };

    /** Exact: the same ids in the same order, same scores. Approximate: a valid top-k within tolerance. */
    function expectTopK(
      exact: boolean,
      actual: VectorHit[],
      truth: Map<string, Float32Array>,
      q: ArrayLike<number>,
      k: number,
      filter?: (id: string) => boolean,
    ): void {
      const expected = naive(truth, q, k, filter);
      expect(actual).toHaveLength(expected.length);
      if (exact) {
        expect(actual.map((h) => h.id)).toEqual(expected.map((h) => h.id));
        actual.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 5));
        return;
      }
      const trueScore = new Map(naive(truth, q, truth.size, filter).map((h) => [h.id, h.score]));
      const kth = expected.at(-1)!.score;
      for (const [i, h] of actual.entries()) {
        expect(trueScore.has(h.id)).toBe(true);
        expect(Math.abs(h.score - trueScore.get(h.id)!)).toBeLessThan(APPROX_TOLERANCE);
        // Nothing returned may rank clearly below the true k-th best…
        expect(trueScore.get(h.id)!).toBeGreaterThan(kth - 2 * APPROX_TOLERANCE);
        if (i > 0) expect(h.score).toBeLessThanOrEqual(actual[i - 1]!.score);
      }
      // …and nothing clearly better may be missing.
      const returned = new Set(actual.map((h) => h.id));
      const worstReturned = Math.min(...actual.map((h) => trueScore.get(h.id)!));
      for (const e of expected) if (!returned.has(e.id)) expect(e.score).toBeLessThan(worstReturned + 2 * APPROX_TOLERANCE);
    }

    it('returns the top k through adds, replacements and removals', async () => {
      const f = await factory();
      const rand = rng(42);
      const dim = 16;
      const index = f.create(dim, 4);
      const truth = new Map<string, Float32Array>();
      for (let step = 0; step < 600; step++) {
        const id = `m${Math.floor(rand() * 250)}`;
        if (rand() < 0.3) {
          expect(index.remove(id)).toBe(truth.delete(id));
        } else {
          const v = unitVector(dim, rand);
          index.add(id, v);
          truth.set(id, v);
        }
        expect(index.size).toBe(truth.size);
        if (step % 50 === 0) {
          const q = unitVector(dim, rand);
          for (const k of [1, 5, 300]) expectTopK(index.exact, index.search(q, k), truth, q, k);
        }
      }
    });

    it('grows past its initial capacity by doubling and keeps every vector', async () => {
      const rand = rng(7);
      const index = (await factory()).create(8, 2);
      const truth = new Map<string, Float32Array>();
      for (let i = 0; i < 1000; i++) {
        const v = unitVector(8, rand);
        index.add(`id-${i}`, v);
        truth.set(`id-${i}`, v);
      }
      expect(index.size).toBe(1000);
      expect(index.capacity).toBe(1024);
      for (const [id, v] of truth) {
        if (Number(id.slice(3)) % 97 !== 0) continue;
        const [best] = index.search(v, 1);
        expect(best?.id).toBe(id);
        expect(best?.score).toBeCloseTo(1, index.exact ? 5 : 1);
      }
    });

    it('removes by swapping the last row into the hole', async () => {
      const index = (await factory()).create(2, 4);
      index.add('a', [1, 0]);
      index.add('b', [0, 1]);
      index.add('c', [Math.SQRT1_2, Math.SQRT1_2]);
      expect(index.remove('a')).toBe(true);
      expect(index.remove('a')).toBe(false);
      expect(index.has('c')).toBe(true);
      expect(index.search([1, 0], 3).map((h) => h.id)).toEqual(['c', 'b']);
      index.add('a', [1, 0]);
      const [best] = index.search([1, 0], 1);
      expect(best?.id).toBe('a');
      expect(best?.score).toBeCloseTo(1, 5);
    });

    it('applies the filter before taking the top k', async () => {
      const rand = rng(3);
      const index = (await factory()).create(12, 1024);
      const truth = new Map<string, Float32Array>();
      for (let i = 0; i < 200; i++) {
        const v = unitVector(12, rand);
        index.add(String(i), v);
        truth.set(String(i), v);
      }
      const even = (id: string) => Number(id) % 2 === 0;
      const q = unitVector(12, rand);
      const hits = index.search(q, 10, even);
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => even(h.id))).toBe(true);
      expectTopK(index.exact, hits, truth, q, 10, even);
    });

    it('guards dimensions, zero queries and degenerate k', async () => {
      const f = await factory();
      const index = f.create(3, 1024);
      expect(() => index.add('x', [1, 0])).toThrow(RangeError);
      expect(() => index.search([1, 0], 1)).toThrow(RangeError);
      expect(() => f.create(0, 16)).toThrow(RangeError);
      index.add('x', [1, 0, 0]);
      expect(index.search([0, 0, 0], 5)).toEqual([]);
      expect(index.search([Number.NaN, 0, 0], 5)).toEqual([]);
      expect(index.search([1, 0, 0], 0)).toEqual([]);
      expect(f.create(3, 1024).search([1, 0, 0], 5)).toEqual([]);
      index.clear();
      expect(index.size).toBe(0);
      expect(index.search([1, 0, 0], 5)).toEqual([]);
    });

    it('keeps the mean of the stored vectors', async () => {
      const rand = rng(11);
      const index = (await factory()).create(24, 8);
      const sum = new Float64Array(24);
      for (let i = 0; i < 300; i++) {
        const v = unitVector(24, rand);
        index.add(String(i), v);
        v.forEach((x, d) => (sum[d]! += x));
      }
      const mean = index.mean();
      mean.forEach((m, d) => expect(Math.abs(m - sum[d]! / 300)).toBeLessThan(index.exact ? 1e-6 : 2e-3));
    });

    it('agrees with exact search at embedding shape (384-d) on ≥ 90% of the top 10', async () => {
      const rand = rng(5);
      const dim = 384;
      const index = (await factory()).create(dim, 1024);
      const truth = new Map<string, Float32Array>();
      for (let i = 0; i < 3000; i++) {
        const v = unitVector(dim, rand);
        index.add(String(i), v);
        truth.set(String(i), v);
      }
      let agree = 0;
      for (let t = 0; t < 20; t++) {
        const q = unitVector(dim, rand);
        const want = new Set(naive(truth, q, 10).map((h) => h.id));
        agree += index.search(q, 10).filter((h) => want.has(h.id)).length;
      }
      expect(agree / 200).toBeGreaterThanOrEqual(index.exact ? 1 : 0.9);
      // Quantised indexes exist to save memory: at most a third of float32's bytes.
      if (!index.exact) expect(index.vectorBytes).toBeLessThanOrEqual((index.capacity * dim * 4) / 3);
      else expect(index.vectorBytes).toBe(index.capacity * dim * 4);
    });
  });
}
