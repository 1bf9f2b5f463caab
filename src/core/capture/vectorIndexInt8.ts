/**
 * Quantised vector index: each vector stored as int8 with one float scale per row (a quarter of
 * float32's bytes), scored by a WASM SIMD kernel (src/wasm/int8Dot.wat) that the platform injects
 * through `Int8DotKernel` — core itself never touches WebAssembly: the
 * kernel is injected, so core runs in Node and tests swap in a JS kernel.
 *
 * Scores are estimates (int8 × int8 dot products): `exact` is false, so SemanticIndex over-fetches
 * and rescores the candidates from the stored float vectors. Measured on 100k × 384 random unit
 * vectors: the int8 top-10 alone agrees with exact search on ≈97–98.6% of results; rescoring a
 * few more candidates than asked restores 100% (bench/vector-index.ts).
 *
 * Kernel memory layout (offsets in bytes, every region 16-aligned):
 *   [0, stride)                 the quantised query
 *   [scalesAt, +4·capacity)     per-row scale (max |x| / 127)
 *   [outAt, +4·capacity)        scratch: the kernel's scores
 *   [rowsAt, +stride·capacity)  rows, int8, `stride` = dim rounded up to 32 (zero padding)
 * Rows [0, size) are live; removal moves the last row into the hole, as in the JS index.
 */
import { MinHeap, type VectorHit, type VectorIndexFactory, type VectorSearchIndex } from './vectorIndex';

/** The WASM module's exports, as core sees them (a WebAssembly.Instance's exports satisfy it). */
export interface Int8DotKernel {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  /** out[r] = f32(Σ query[i]·rows[r·stride + i]) · scales[r] for r in [0, count). */
  scores(query: number, rows: number, count: number, stride: number, scales: number, out: number): void;
}

const PAGE = 65536;
const INT8_KIND = 'wasm-simd-int8';
const Q_MAX = 127;

/** An index factory over a kernel factory (one kernel instance, i.e. one linear memory, per index). */
export function int8VectorIndex(kernel: () => Int8DotKernel): VectorIndexFactory {
  return { kind: INT8_KIND, create: (dim, initialCapacity) => new Int8VectorIndex(dim, kernel(), initialCapacity) };
}

export class Int8VectorIndex implements VectorSearchIndex {
  readonly kind = INT8_KIND;
  readonly exact = false;
  readonly dim: number;
  readonly #stride: number;
  readonly #kernel: Int8DotKernel;
  #capacity = 0;
  #scalesAt = 0;
  #outAt = 0;
  #rowsAt = 0;
  #bytes = new Int8Array(0);
  #scales = new Float32Array(0);
  #out = new Float32Array(0);
  #ids: string[] = [];
  readonly #rowOf = new Map<string, number>();

  constructor(dim: number, kernel: Int8DotKernel, initialCapacity = 1024) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`VectorIndex: dim must be a positive integer, got ${dim}`);
    this.dim = dim;
    this.#stride = Math.ceil(dim / 32) * 32;
    this.#kernel = kernel;
    this.#resize(Math.max(1, initialCapacity));
  }

  get size(): number {
    return this.#ids.length;
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** The int8 rows plus their scales (padding included). */
  get vectorBytes(): number {
    return this.#capacity * (this.#stride + 4);
  }

  has(id: string): boolean {
    return this.#rowOf.has(id);
  }

  add(id: string, vec: ArrayLike<number>): void {
    this.#checkDim(vec.length);
    let row = this.#rowOf.get(id);
    if (row === undefined) {
      row = this.#ids.length;
      if (row >= this.#capacity) this.#resize(this.#capacity * 2);
      this.#ids.push(id);
      this.#rowOf.set(id, row);
    }
    const at = this.#rowsAt + row * this.#stride;
    this.#scales[row] = quantise(vec, this.#bytes, at, this.dim);
    // The padding must read as zero; a resize may have left bytes of moved rows there.
    this.#bytes.fill(0, at + this.dim, at + this.#stride);
  }

  remove(id: string): boolean {
    const row = this.#rowOf.get(id);
    if (row === undefined) return false;
    const last = this.#ids.length - 1;
    if (row !== last) {
      const lastId = this.#ids[last]!;
      const s = this.#stride;
      this.#bytes.copyWithin(this.#rowsAt + row * s, this.#rowsAt + last * s, this.#rowsAt + (last + 1) * s);
      this.#scales[row] = this.#scales[last]!;
      this.#ids[row] = lastId;
      this.#rowOf.set(lastId, row);
    }
    this.#ids.pop();
    this.#rowOf.delete(id);
    return true;
  }

  clear(): void {
    this.#ids = [];
    this.#rowOf.clear();
  }

  /** Mean of the stored (dequantised) vectors. */
  mean(): Float32Array {
    const out = new Float32Array(this.dim);
    const n = this.size;
    if (n === 0) return out;
    const acc = new Float64Array(this.dim);
    for (let r = 0; r < n; r++) {
      const base = this.#rowsAt + r * this.#stride;
      const scale = this.#scales[r]!;
      for (let i = 0; i < this.dim; i++) acc[i]! += this.#bytes[base + i]! * scale;
    }
    for (let i = 0; i < this.dim; i++) out[i] = acc[i]! / n;
    return out;
  }

  /** The k best rows by estimated dot product, best first; a zero or non-finite query matches nothing. */
  search(query: ArrayLike<number>, k: number, filter?: (id: string) => boolean): VectorHit[] {
    this.#checkDim(query.length);
    const n = this.#ids.length;
    if (k <= 0 || n === 0) return [];
    let norm = 0;
    for (let d = 0; d < this.dim; d++) norm += query[d]! * query[d]!;
    if (!(norm > 0) || !Number.isFinite(norm)) return [];

    const qScale = quantise(query, this.#bytes, 0, this.dim);
    this.#kernel.scores(0, this.#rowsAt, n, this.#stride, this.#scalesAt, this.#outAt);
    const out = this.#out;
    const ids = this.#ids;
    const heap = new MinHeap(Math.min(k, n));
    for (let row = 0; row < n; row++) {
      const s = out[row]!;
      // Most rows fall below the heap's floor: skip them before paying for the filter call.
      if (s <= heap.floor) continue;
      if (filter && !filter(ids[row]!)) continue;
      heap.offer(s, row);
    }
    return heap.drainDescending().map(({ score, row }) => ({ id: ids[row]!, score: score * qScale }));
  }

  #checkDim(n: number): void {
    if (n !== this.dim) throw new RangeError(`VectorIndex: expected a ${this.dim}-d vector, got ${n}-d`);
  }

  /** Lays the regions out for `capacity` rows, growing the linear memory and moving live data. */
  #resize(capacity: number): void {
    const oldRowsAt = this.#rowsAt;
    const oldScales = this.#scales.slice(0, this.#ids.length);
    const scalesAt = this.#stride;
    const outAt = scalesAt + align16(capacity * 4);
    const rowsAt = outAt + align16(capacity * 4);
    const total = rowsAt + capacity * this.#stride;
    const memory = this.#kernel.memory;
    if (total > memory.buffer.byteLength) memory.grow(Math.ceil((total - memory.buffer.byteLength) / PAGE));
    // A grow detaches the old views: rebuild them all over the new buffer.
    const buffer = memory.buffer;
    this.#bytes = new Int8Array(buffer);
    // Rows move up (rowsAt only grows with capacity); copyWithin handles the overlap.
    if (this.#ids.length > 0 && rowsAt !== oldRowsAt) {
      this.#bytes.copyWithin(rowsAt, oldRowsAt, oldRowsAt + this.#ids.length * this.#stride);
    }
    this.#scales = new Float32Array(buffer, scalesAt, capacity);
    this.#scales.set(oldScales);
    this.#out = new Float32Array(buffer, outAt, capacity);
    this.#scalesAt = scalesAt;
    this.#outAt = outAt;
    this.#rowsAt = rowsAt;
    this.#capacity = capacity;
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}

/**
 * Writes `vec` as int8 at `bytes[at…]` (scaled so the largest |x| maps to 127) and returns the
 * scale that maps the ints back. Non-finite components become 0; an all-zero vector gets scale 0.
 */
function quantise(vec: ArrayLike<number>, bytes: Int8Array, at: number, dim: number): number {
  let max = 0;
  for (let i = 0; i < dim; i++) {
    const a = Math.abs(vec[i]!);
    if (a > max && Number.isFinite(a)) max = a;
  }
  if (max === 0) {
    bytes.fill(0, at, at + dim);
    return 0;
  }
  const inv = Q_MAX / max;
  for (let i = 0; i < dim; i++) {
    const x = vec[i]!;
    bytes[at + i] = Number.isFinite(x) ? Math.round(x * inv) : 0;
  }
  return max / Q_MAX;
}
