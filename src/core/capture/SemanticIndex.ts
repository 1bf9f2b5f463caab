/**
 * The in-worker vector index for one item kind: loaded lazily from the VectorStore for the active
 * vector model, then kept in sync with inserts and deletes. Brute-force cosine over a contiguous
 * Float32Array (DESIGN §9: ≈9 ms at 10k × 384), the measured baseline.
 */
import type { ItemKind, ItemVector, VectorStore } from '../base/store';
import { VectorIndex, type VectorHit } from './vectorIndex';

export class SemanticIndex {
  readonly #store: VectorStore;
  readonly #kind: ItemKind;
  #model: string | null = null;
  #index: Promise<VectorIndex> | null = null;
  #meanCache: { model: string; index: VectorIndex; size: number; mean: Float32Array } | null = null;

  constructor(store: VectorStore, kind: ItemKind) {
    this.#store = store;
    this.#kind = kind;
  }

  /** The index for `vectorModelId`, loading it from storage on first use. */
  #load(vectorModelId: string, dim: number): Promise<VectorIndex> {
    if (this.#model !== vectorModelId || !this.#index) {
      this.#model = vectorModelId;
      this.#index = this.#store.loadVectors(this.#kind, vectorModelId).then((rows) => {
        const index = new VectorIndex(dim, Math.max(1024, rows.length));
        for (const r of rows) if (r.vector.length === dim) index.add(r.itemId, r.vector);
        return index;
      });
      this.#index.catch(() => this.reset());
    }
    return this.#index;
  }

  async search(vectorModelId: string, dim: number, query: Float32Array, k: number): Promise<VectorHit[]> {
    const index = await this.#load(vectorModelId, dim);
    return index.search(query, k);
  }

  /** Adds fresh vectors if the index for that model is loaded (otherwise the next load reads them). */
  async add(vectorModelId: string, items: readonly ItemVector[]): Promise<void> {
    if (this.#model !== vectorModelId || !this.#index) return;
    const index = await this.#index;
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
