import { describe, expect, it } from 'vitest';
import { SemanticIndex } from '../../src/core/capture/SemanticIndex';
import { jsVectorIndex } from '../../src/core/capture/vectorIndex';
import type { ItemVector, VectorStore } from '../../src/core/base/store';
import { nodeVectorIndex } from '../../src/wasm/nodeVectorKernel';
import { rng, unitVector } from './vectorIndexSuite';

/** The two VectorStore reads SemanticIndex makes, over a map (counts the rescoring reads). */
function storeOf(rows: Map<string, Float32Array>) {
  const reads = { get: 0 };
  const store = {
    loadVectors: async (): Promise<ItemVector[]> => [...rows].map(([itemId, vector]) => ({ itemId, vector })),
    getVectors: async (_kind: string, ids: readonly string[]): Promise<ItemVector[]> => {
      reads.get++;
      return ids.filter((id) => rows.has(id)).map((itemId) => ({ itemId, vector: rows.get(itemId)! }));
    },
  } as unknown as VectorStore;
  return { store, reads };
}

/** 3,000 random unit vectors, searched by the WASM int8 index and by the exact JS one over one store. */
async function indexes(seed: number) {
  const rand = rng(seed);
  const dim = 64;
  const rows = new Map<string, Float32Array>();
  for (let i = 0; i < 3000; i++) rows.set(`t${i}`, unitVector(dim, rand));
  const { store, reads } = storeOf(rows);
  const wasm = new SemanticIndex(store, 'message', (await nodeVectorIndex()).factory);
  const exact = new SemanticIndex(store, 'message', jsVectorIndex);
  return { rand, dim, rows, reads, wasm, exact };
}

describe('SemanticIndex over the WASM int8 index', () => {
  it('returns the exact top k with exact cosines: quantised candidates rescored from the store', async () => {
    const { rand, dim, rows, reads, wasm, exact } = await indexes(9);
    expect(wasm.implementation).toBe('wasm-simd-int8');
    expect(exact.implementation).toBe('js-float32');
    for (let t = 0; t < 20; t++) {
      const q = unitVector(dim, rand);
      const [got, want] = await Promise.all([wasm.search('m', dim, q, 10), exact.search('m', dim, q, 10)]);
      expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 6));
    }
    expect(reads.get).toBe(20);

    // Kept in sync with writes: a new vector equal to the query is found first, a removed one never.
    const q = unitVector(dim, rand);
    await wasm.add('m', [{ itemId: 'fresh', vector: q }]);
    rows.set('fresh', q);
    expect((await wasm.search('m', dim, q, 3))[0]).toEqual({ id: 'fresh', score: expect.closeTo(1, 5) });
    await wasm.remove('fresh');
    rows.delete('fresh');
    expect((await wasm.search('m', dim, q, 3)).map((h) => h.id)).not.toContain('fresh');
    expect(await wasm.size()).toBe(3000);
  });

  it('approximate: the quantised order as it is, without reading a stored vector, close to the exact top k', async () => {
    const { rand, dim, reads, wasm, exact } = await indexes(21);
    let shared = 0;
    for (let t = 0; t < 20; t++) {
      const q = unitVector(dim, rand);
      const [got, want] = await Promise.all([wasm.search('m', dim, q, 50, { approximate: true }), exact.search('m', dim, q, 50)]);
      expect(got).toHaveLength(50);
      for (let i = 1; i < got.length; i++) expect(got[i]!.score).toBeLessThanOrEqual(got[i - 1]!.score);
      const wanted = new Set(want.map((h) => h.id));
      shared += got.filter((h) => wanted.has(h.id)).length;
      expect(got[0]!.score).toBeCloseTo(want[0]!.score, 1);
    }
    expect(reads.get).toBe(0);
    // Quantisation moves only near-ties across the boundary of the top 50.
    expect(shared / (20 * 50)).toBeGreaterThan(0.9);
  });
});
