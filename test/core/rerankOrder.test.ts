import { describe, expect, it } from 'vitest';
import { rerankOrder, singledOut } from '../../src/core/recall/rerankOrder';

const K = 60;
const identity = (n: number) => Array.from({ length: n }, (_, i) => i);
/** Deterministic uniform noise in [0, 1). */
function lcg(seed: number) {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
}
/** Where each fused index ended up (0-based). */
const positions = (order: readonly number[]) => {
  const at = new Array<number>(order.length);
  order.forEach((i, p) => (at[i] = p));
  return at;
};

describe('singledOut (robust outliers of the rerank scores)', () => {
  it('never singles out uniform noise: its modified z-score stays below 1.35', () => {
    const next = lcg(7);
    for (let trial = 0; trial < 300; trial++) expect(singledOut(Array.from({ length: 100 }, next), 3.5).size).toBe(0);
  });

  it("finds a decisive reranker's hits however many there are (up to a fifth of the candidates)", () => {
    for (const hits of [1, 5, 12, 20]) {
      const scores = identity(100).map((i) => (i % 5 === 0 && i / 5 < hits ? 1 : 0));
      expect(singledOut(scores, 3.5).size).toBe(hits);
    }
    // A cross-encoder's logits: a spread of irrelevant scores and two far above them.
    const next = lcg(3);
    const logits = identity(50).map((i) => (i === 4 || i === 40 ? 6 + next() : -8 + 2 * next()));
    expect([...singledOut(logits, 3.5)].sort((a, b) => a - b)).toEqual([4, 40]);
  });

  it('finds nothing when all scores are equal, when off, or with fewer than three scores', () => {
    expect(singledOut(new Array(50).fill(0.3), 3.5).size).toBe(0);
    expect(singledOut([0, 0, 0, 0, 0, 1], 0).size).toBe(0);
    expect(singledOut([0, 9], 3.5).size).toBe(0);
    expect(singledOut([Number.NEGATIVE_INFINITY, 0, 0, 0, 0, 0, 0, 1], 3.5)).toEqual(new Set([7])); // a non-finite score is ignored
  });
});

describe('rerankOrder (fused order + what the reranker singles out, weighted by trust)', () => {
  it('trust 0 returns the fused order unchanged, whatever the scores', () => {
    const oracle = identity(100).map((i) => (i === 99 ? 1 : 0));
    expect(rerankOrder(oracle, { trust: 0, outlierZ: 3.5, k: K })).toEqual(identity(100));
    expect(rerankOrder(oracle, { trust: Number.NaN, outlierZ: 3.5, k: K })).toEqual(identity(100));
  });

  it('an oracle at trust 1 lifts every evidence candidate to the top, keeping their fused order', () => {
    const evidence = [3, 47, 72, 99];
    const oracle = identity(100).map((i) => (evidence.includes(i) ? 1 : 0));
    const order = rerankOrder(oracle, { trust: 1, outlierZ: 3.5, k: K });
    expect(order.slice(0, 4)).toEqual(evidence);
    expect(order.slice(4)).toEqual(identity(100).filter((i) => !evidence.includes(i)));
  });

  it('random scores cannot move an item more than the trust allows', () => {
    const next = lcg(11);
    for (const trust of [0.1, 0.5, 1]) {
      for (let trial = 0; trial < 100; trial++) {
        const noise = Array.from({ length: 100 }, next);
        const at = positions(rerankOrder(noise, { trust, outlierZ: 3.5, k: K }));
        // Noise singles nothing out, so nothing moves at any trust.
        expect(at).toEqual(identity(100));
      }
    }
  });

  it('a singled-out candidate rises only past candidates whose fused RRF score is below its own plus trust/(k+1)', () => {
    const scores = identity(100).map((i) => (i === 99 ? 1 : 0)); // fused rank 100, singled out
    for (const trust of [0.05, 0.2, 0.5, 1]) {
      const at = positions(rerankOrder(scores, { trust, outlierZ: 3.5, k: K }))[99]!;
      const lifted = 1 / (K + 100) + trust / (K + 1);
      // Everything above its new place had a fused score at least `lifted`, nothing below it did.
      const bound = identity(100).filter((i) => 1 / (K + i + 1) > lifted).length;
      expect(at).toBe(bound);
      expect(at).toBeLessThan(99);
    }
    expect(positions(rerankOrder(scores, { trust: 1, outlierZ: 3.5, k: K }))[99]).toBe(0);
    // Every other candidate keeps its relative order.
    const order = rerankOrder(scores, { trust: 0.2, outlierZ: 3.5, k: K }).filter((i) => i !== 99);
    expect(order).toEqual(identity(99));
  });
});
