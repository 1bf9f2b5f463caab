/**
 * The in-worker vector index for one item kind: loaded lazily from the VectorStore for the active
 * vector model, then kept in sync with inserts and deletes. The store stays the source of truth;
 * the index is a cache rebuilt from it. Which index runs is injected (`VectorIndexFactory`): the
 * JS float32 brute force by default, the WASM SIMD int8 index where the platform provides it. An
 * approximate index is over-fetched and its candidates rescored from the stored float vectors, so
 * callers always get exact cosines in exact order.
 */
import type { ItemKind, ItemVector, VectorStore } from '../base/store';
import { jsVectorIndex, type VectorHit, type VectorIndexFactory, type VectorSearchIndex } from './vectorIndex';

/** Extra candidates an approximate index returns for rescoring (measured: +16 gives 100% top-10 agreement at 100k × 384). */
export function rescoreDepth(k: number): number {
  return k + Math.max(16, Math.ceil(k / 4));
}

export interface SearchOptions {
  /**
   * Take a quantised index's order and estimated scores as they are: no over-fetch, no exact
   * rescoring from the stored vectors (reading those rows costs more than the search itself). For
   * callers that only use the ranks, such as a candidate list fused by rank.
   */
  readonly approximate?: boolean;
  /**
   * Only items this accepts are ranked: the filter runs inside the index's scan, so a caller with
   * a narrow scope (a project's few turns among many) still gets its k best, not whatever of the
   * global top k happens to fall inside the scope.
   */
  readonly filter?: (id: string) => boolean;
}

export class SemanticIndex {
  readonly #store: VectorStore;
  readonly #kind: ItemKind;
  #model: string | null = null;
  #dim = 0;
  #index: Promise<VectorSearchIndex> | null = null;
  #meanCache: { model: string; index: VectorSearchIndex; size: number; mean: Float32Array } | null = null;
  readonly #factory: VectorIndexFactory;

  constructor(store: VectorStore, kind: ItemKind, factory: VectorIndexFactory = jsVectorIndex) {
    this.#store = store;
    this.#kind = kind;
    this.#factory = factory;
  }

  /** Which index implementation this uses (e.g. "wasm-simd-int8"), for reports and the UI. */
  get implementation(): string {
    return this.#factory.kind;
  }

  /** The index for `vectorModelId`, loading it from storage on first use. */
  #load(vectorModelId: string, dim: number): Promise<VectorSearchIndex> {
    // Keyed by model and dimension: an index built for another dimension (a caller that still
    // holds the previous model's size during a switch) must never answer a query of this one.
    if (this.#model !== vectorModelId || this.#dim !== dim || !this.#index) {
      this.#model = vectorModelId;
      this.#dim = dim;
      this.#index = this.#store.loadVectors(this.#kind, vectorModelId).then((rows) => {
        const index = this.#factory.create(dim, Math.max(1024, rows.length));
        for (const r of rows) if (r.vector.length === dim) index.add(r.itemId, r.vector);
        return index;
      });
      this.#index.catch(() => this.reset());
    }
    return this.#index;
  }

  /** Loads the index for `vectorModelId` now (at open, so the first search does not wait for it). */
  async preload(vectorModelId: string, dim: number): Promise<void> {
    await this.#load(vectorModelId, dim);
  }

  async search(vectorModelId: string, dim: number, query: Float32Array, k: number, options: SearchOptions = {}): Promise<VectorHit[]> {
    const index = await this.#load(vectorModelId, dim);
    if (index.exact || options.approximate) return index.search(query, k, options.filter);
    const candidates = index.search(query, rescoreDepth(k), options.filter);
    if (candidates.length === 0) return [];
    const stored = await this.#store.getVectors(
      this.#kind,
      candidates.map((c) => c.id),
      vectorModelId,
    );
    const exact: VectorHit[] = [];
    for (const { itemId, vector } of stored) {
      if (vector.length !== dim) continue;
      let s = 0;
      for (let i = 0; i < dim; i++) s += vector[i]! * query[i]!;
      exact.push({ id: itemId, score: s });
    }
    return exact.sort((a, b) => b.score - a.score).slice(0, k);
  }

  /** Adds fresh vectors if the index for that model is loaded (otherwise the next load reads them). */
  async add(vectorModelId: string, items: readonly ItemVector[]): Promise<void> {
    if (this.#model !== vectorModelId || !this.#index) return;
    const index = await this.#index;
    if (items.some((item) => item.vector.length !== this.#dim)) return; // the next load reads them
    for (const item of items) {
      if (index.has(item.itemId)) index.remove(item.itemId);
      index.add(item.itemId, item.vector);
    }
  }

  async remove(itemId: string): Promise<void> {
    if (!this.#index) return;
    (await this.#index).remove(itemId);
  }

  /**
   * The mean of all vectors of `vectorModelId` (cached; recomputed when the index has grown or
   * shrunk by more than 2%). Subtracting it before comparing averages of many turns removes the
   * direction every text shares — without it, GloVe-SIF means of whole episodes all have cosine
   * > 0.9 with each other (measured on the LoCoMo dev split) and clustering degenerates.
   */
  async meanVector(vectorModelId: string, dim: number): Promise<Float32Array> {
    const index = await this.#load(vectorModelId, dim);
    const c = this.#meanCache;
    if (c && c.model === vectorModelId && c.index === index && Math.abs(index.size - c.size) <= Math.max(1, c.size * 0.02)) return c.mean;
    const mean = index.mean();
    this.#meanCache = { model: vectorModelId, index, size: index.size, mean };
    return mean;
  }

  /** Forgets the loaded index (after bulk deletes, an import or a model switch). */
  reset(): void {
    this.#model = null;
    this.#index = null;
  }

  /** Number of vectors in the loaded index (0 when not loaded). */
  async size(): Promise<number> {
    return this.#index ? (await this.#index).size : 0;
  }
}
