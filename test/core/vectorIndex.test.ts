import { describe, expect, it } from 'vitest';
import { VectorIndex, type VectorHit } from '../../src/core/capture/vectorIndex';

/** Deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVector(dim: number, rand: () => number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = rand() * 2 - 1;
    n += v[i]! * v[i]!;
  }
  n = Math.sqrt(n);
  return v.map((x) => x / n);
}

function naive(vectors: Map<string, Float32Array>, q: Float32Array, k: number, filter?: (id: string) => boolean): VectorHit[] {
  const all: VectorHit[] = [];
  for (const [id, v] of vectors) {
    if (filter && !filter(id)) continue;
    let s = 0;
    for (let i = 0; i < q.length; i++) s += v[i]! * q[i]!;
    all.push({ id, score: s });
  }
  return all.sort((a, b) => b.score - a.score).slice(0, k);
}

function expectSameHits(actual: VectorHit[], expected: VectorHit[]): void {
  expect(actual.map((h) => h.id)).toEqual(expected.map((h) => h.id));
  actual.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 5));
}

describe('VectorIndex', () => {
  it('matches a naive full sort through adds, replacements and removals', () => {
    const rand = rng(42);
    const dim = 16;
    const index = new VectorIndex(dim, 4);
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
        for (const k of [1, 5, 300]) expectSameHits(index.search(q, k), naive(truth, q, k));
      }
    }
  });

  it('grows past its initial capacity by doubling and keeps every vector', () => {
    const rand = rng(7);
    const index = new VectorIndex(8, 2);
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
      expect(best?.score).toBeCloseTo(1, 5);
    }
  });

  it('removes by swapping the last row into the hole', () => {
    const index = new VectorIndex(2, 4);
    index.add('a', [1, 0]);
    index.add('b', [0, 1]);
    index.add('c', [Math.SQRT1_2, Math.SQRT1_2]);
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.has('c')).toBe(true);
    expect(index.search([1, 0], 3).map((h) => h.id)).toEqual(['c', 'b']);
    index.add('a', [1, 0]);
    expect(index.search([1, 0], 1)).toEqual([{ id: 'a', score: 1 }]);
  });

  it('applies the filter before taking the top k', () => {
    const rand = rng(3);
    const index = new VectorIndex(12);
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
    expectSameHits(hits, naive(truth, q, 10, even));
  });

  it('guards dimensions, zero queries and degenerate k', () => {
    const index = new VectorIndex(3);
    expect(() => index.add('x', [1, 0])).toThrow(RangeError);
    expect(() => index.search([1, 0], 1)).toThrow(RangeError);
    expect(() => new VectorIndex(0)).toThrow(RangeError);
    index.add('x', [1, 0, 0]);
    expect(index.search([0, 0, 0], 5)).toEqual([]);
    expect(index.search([Number.NaN, 0, 0], 5)).toEqual([]);
    expect(index.search([1, 0, 0], 0)).toEqual([]);
    expect(new VectorIndex(3).search([1, 0, 0], 5)).toEqual([]);
  });
});
