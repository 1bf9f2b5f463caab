/**
 * Brute-force cosine index over one contiguous Float32Array. Vectors are unit length (Embedder
 * contract), so cosine = dot product. ≈9 ms per query at 10k × 384 on 2 cores (docs/architecture.md, Measured facts); an
 * ANN structure is not worth its build time and persistence cost at personal-memory scale.
 *
 * Layout: row i of `data` holds the vector of `ids[i]`; rows [0, size) are live. Removal moves the
 * last row into the hole (O(dim)), so row order is arbitrary. The buffer doubles when full.
 * Top-k uses a size-k min-heap (O(n log k)), not a full sort.
 */

export interface VectorHit {
  readonly id: string;
  readonly score: number;
}

/**
 * What SemanticIndex needs from a vector index: a strategy interface (int8 WASM or
 * float32 JS, chosen at run time), with one behaviour suite (test/core/vectorIndexSuite.ts) run over every implementation.
 */
export interface VectorSearchIndex {
  readonly dim: number;
  readonly size: number;
  /** Rows the storage can hold before it grows. */
  readonly capacity: number;
  /** A short name for reports and the UI, e.g. "js-float32" or "wasm-simd-int8". */
  readonly kind: string;
  /**
   * False when scores are estimates (quantised vectors): callers that need exact scores or an
   * exact top-k over-fetch and rescore the candidates from the stored vectors (SemanticIndex).
   */
  readonly exact: boolean;
  /** Bytes held for the vectors themselves (ids and maps excluded). */
  readonly vectorBytes: number;
  has(id: string): boolean;
  add(id: string, vec: ArrayLike<number>): void;
  remove(id: string): boolean;
  clear(): void;
  mean(): Float32Array;
  search(query: ArrayLike<number>, k: number, filter?: (id: string) => boolean): VectorHit[];
}

/** Builds empty indexes of one implementation. */
export interface VectorIndexFactory {
  /** The `kind` of the indexes it creates. */
  readonly kind: string;
  /** An empty index of `dim`-d vectors with room for `initialCapacity` rows. */
  create(dim: number, initialCapacity: number): VectorSearchIndex;
}

/** The portable default: exact float32 brute force in JS. */
export const jsVectorIndex: VectorIndexFactory = {
  kind: 'js-float32',
  create: (dim, initialCapacity) => new VectorIndex(dim, initialCapacity),
};

export class VectorIndex implements VectorSearchIndex {
  readonly kind = 'js-float32';
  readonly exact = true;
  readonly dim: number;
  private data: Float32Array;
  private ids: string[] = [];
  private readonly rowOf = new Map<string, number>();

  constructor(dim: number, initialCapacity = 1024) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`VectorIndex: dim must be a positive integer, got ${dim}`);
    this.dim = dim;
    this.data = new Float32Array(Math.max(1, initialCapacity) * dim);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Rows the buffer can hold before it grows. */
  get capacity(): number {
    return this.data.length / this.dim;
  }

  get vectorBytes(): number {
    return this.data.byteLength;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  /** Adds or replaces the vector for `id` (copied). */
  add(id: string, vec: ArrayLike<number>): void {
    this.checkDim(vec.length);
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.ids.length;
      if (row >= this.capacity) this.grow();
      this.ids.push(id);
      this.rowOf.set(id, row);
    }
    this.data.set(vec, row * this.dim);
  }

  /** Returns whether `id` was present. */
  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      const lastId = this.ids[last]!;
      this.data.copyWithin(row * this.dim, last * this.dim, (last + 1) * this.dim);
      this.ids[row] = lastId;
      this.rowOf.set(lastId, row);
    }
    this.ids.pop();
    this.rowOf.delete(id);
    return true;
  }

  clear(): void {
    this.ids = [];
    this.rowOf.clear();
  }

  /** Mean of all stored vectors (the common direction that averaging embedders share). */
  mean(): Float32Array {
    const out = new Float32Array(this.dim);
    const n = this.size;
    if (n === 0) return out;
    for (let r = 0; r < n; r++) {
      const base = r * this.dim;
      for (let i = 0; i < this.dim; i++) out[i]! += this.data[base + i]!;
    }
    for (let i = 0; i < this.dim; i++) out[i]! /= n;
    return out;
  }

  /**
   * The k best rows by dot product with `query`, best first (ties: unspecified order).
   * A zero (or non-finite) query has no direction, so it matches nothing.
   */
  search(query: ArrayLike<number>, k: number, filter?: (id: string) => boolean): VectorHit[] {
    this.checkDim(query.length);
    if (k <= 0 || this.ids.length === 0) return [];
    let norm = 0;
    for (let d = 0; d < this.dim; d++) norm += query[d]! * query[d]!;
    if (!(norm > 0) || !Number.isFinite(norm)) return [];

    const q = query instanceof Float32Array ? query : Float32Array.from(query);
    const heap = new MinHeap(Math.min(k, this.ids.length));
    const { data, dim, ids } = this;
    for (let row = 0; row < ids.length; row++) {
      if (filter && !filter(ids[row]!)) continue;
      let s = 0;
      const o = row * dim;
      for (let d = 0; d < dim; d++) s += data[o + d]! * q[d]!;
      heap.offer(s, row);
    }
    return heap.drainDescending().map(({ score, row }) => ({ id: ids[row]!, score }));
  }

  private checkDim(n: number): void {
    if (n !== this.dim) throw new RangeError(`VectorIndex: expected a ${this.dim}-d vector, got ${n}-d`);
  }

  private grow(): void {
    const next = new Float32Array(this.data.length * 2);
    next.set(this.data.subarray(0, this.ids.length * this.dim));
    this.data = next;
  }
}

/** Fixed-capacity min-heap of (score, row): keeps the `capacity` largest scores seen. */
export class MinHeap {
  private readonly scores: Float64Array;
  private readonly rows: Int32Array;
  private n = 0;

  constructor(private readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.rows = new Int32Array(capacity);
  }

  /** The smallest kept score once full (a row scoring at most this cannot enter), else -Infinity. */
  get floor(): number {
    return this.n < this.capacity ? -Infinity : this.scores[0]!;
  }

  offer(score: number, row: number): void {
    if (Number.isNaN(score)) return;
    if (this.n < this.capacity) {
      let i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (this.scores[p]! <= score) break;
        this.scores[i] = this.scores[p]!;
        this.rows[i] = this.rows[p]!;
        i = p;
      }
      this.scores[i] = score;
      this.rows[i] = row;
    } else if (score > this.scores[0]!) {
      this.siftDown(score, row);
    }
  }

  /** Empties the heap, largest score first. */
  drainDescending(): { score: number; row: number }[] {
    const out = new Array<{ score: number; row: number }>(this.n);
    for (let i = this.n - 1; i >= 0; i--) {
      out[i] = { score: this.scores[0]!, row: this.rows[0]! };
      this.n--;
      if (this.n > 0) this.siftDown(this.scores[this.n]!, this.rows[this.n]!);
    }
    return out;
  }

  /** Replaces the root with (score, row) and restores the heap property. */
  private siftDown(score: number, row: number): void {
    const n = this.n;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.scores[r]! < this.scores[l]! ? r : l;
      if (this.scores[c]! >= score) break;
      this.scores[i] = this.scores[c]!;
      this.rows[i] = this.rows[c]!;
      i = c;
    }
    this.scores[i] = score;
    this.rows[i] = row;
  }
}
