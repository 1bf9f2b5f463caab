/**
 * Embedder over a transformers.js feature-extraction pipeline (bundled GloVe model or a
 * downloaded sentence-transformer). Vectors are pooled as the catalog says, L2-normalised, and
 * guarded: an empty, all-unknown or otherwise degenerate text yields a zero vector, never NaN
 * (transformers.js normalises 0/0 to NaN).
 *
 * We run the pipeline's tokenizer and model ourselves and pool here ('mean' or 'cls').
 * In transformers.js 4.3.1 `mean_pooling` walks the states dimension-major and calls `Number()`
 * on the BigInt64 attention mask per element (a quarter of the bundled model's embedding time),
 * and the tokenizer builds its int64 tensors through one BigInt per element (another fifth).
 * `poolRows` repeats the library's arithmetic step for step, so vectors are bit-for-bit the same.
 */
import { pipeline, Tensor, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type { Embedder } from '../core/base/ports';
import type { CatalogEntry, Pooling } from './catalog';
import { clipText, DEFAULT_BATCH_SIZE, loadWithFallback, resolveEntry, type ModelLoadOptions } from './loadOptions';
import { toModelError } from './modelErrors';
import type { Device } from './transformersEnv';

export type { EmbedRole } from '../core/base/ports';
import type { EmbedRole } from '../core/base/ports';

/** Tokenizer output with `return_tensor: false` and padding: key → one equal-length row per text. */
type PaddedIds = Record<string, number[][]>;

export class TransformersEmbedder implements Embedder {
  /** Stored next to each vector (catalog `vectorId`, e.g. "recollect/glove-100d-sif@1"). */
  readonly id: string;
  readonly dim: number;
  readonly entry: CatalogEntry;
  /** undefined = the library default (cpu in Node, wasm in a browser). */
  readonly device: Device | undefined;
  /** Why a preferred device was not used (null when the first choice loaded). */
  readonly fallback: string | null;
  private readonly pipe: FeatureExtractionPipeline;
  private readonly batchSize: number;

  private constructor(
    entry: CatalogEntry,
    pipe: FeatureExtractionPipeline,
    dim: number,
    device: Device | undefined,
    batchSize: number,
    fallback: string | null,
  ) {
    this.entry = entry;
    this.fallback = fallback;
    this.id = entry.vectorId;
    this.pipe = pipe;
    this.dim = dim;
    this.device = device;
    this.batchSize = batchSize;
  }

  /** Loads from the local model path / cache only; throws MODEL_UNAVAILABLE when files are missing. */
  static async create(modelId: string, options: ModelLoadOptions = {}): Promise<TransformersEmbedder> {
    const entry = resolveEntry(modelId, 'embedder', options);
    const {
      value: pipe,
      device,
      fallback,
    } = await loadWithFallback(entry, options, (device) =>
      pipeline('feature-extraction', entry.id, {
        dtype: entry.dtype,
        ...(device ? { device } : {}),
        ...(options.progress ? { progress_callback: options.progress } : {}),
      }),
    );
    const hidden = (pipe.model.config as unknown as { hidden_size?: number }).hidden_size;
    const dim = entry.dim ?? hidden ?? 0;
    return new TransformersEmbedder(entry, pipe, dim, device, options.batchSize ?? DEFAULT_BATCH_SIZE, fallback);
  }

  async embed(texts: readonly string[], role: EmbedRole = 'document'): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    if (texts.length === 0) return out;
    const prefix = role === 'query' ? this.entry.queryPrefix : this.entry.documentPrefix;
    // Batch texts of similar length together: the pipeline pads each batch to its longest text.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const idx = order.slice(start, start + this.batchSize);
      const batch = idx.map((i) => prefix + clipText(texts[i]!, this.entry.maxTokens));
      let rows: Float32Array[];
      try {
        rows = await this.embedBatch(batch);
      } catch (err) {
        throw toModelError(err, this.entry.id, this.entry, 'embed text');
      }
      idx.forEach((textIndex, row) => {
        out[textIndex] = finiteOrZero(rows[row]!);
      });
    }
    return out;
  }

  /** One L2-normalised vector per text, in batch order (may contain NaN; the caller guards). */
  private async embedBatch(batch: string[]): Promise<Float32Array[]> {
    // An entry without a pooling is mean-pooled, as the pipeline call this replaced did.
    const pooling = this.entry.pooling ?? 'mean';
    // Same tokenizer options and output choice as FeatureExtractionPipeline._call in 4.3.1, but
    // the padded ids come back as plain arrays: the library's own tensor building
    // (`BigInt64Array.from(flatMap(...).map(BigInt))`) costs about as much as the pooling did.
    const encoded = this.pipe.tokenizer(batch, { padding: true, truncation: true, return_tensor: false }) as unknown as PaddedIds;
    const inputs: Record<string, Tensor> = {};
    for (const [key, rows] of Object.entries(encoded)) inputs[key] = int64Tensor(rows);
    const outputs = (await this.pipe.model(inputs)) as Record<string, Tensor | undefined>;
    const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
    if (!hidden)
      throw new Error(`model returned none of last_hidden_state, logits, token_embeddings (got ${Object.keys(outputs).join(', ')})`);
    // Every catalog dtype (q8, fp32) yields float32 states; anything else needs its own pooling.
    if (hidden.type !== 'float32') throw new Error(`expected float32 token states, got ${hidden.type}`);
    return poolRows(hidden, encoded.attention_mask!, pooling);
  }

  async dispose(): Promise<void> {
    await this.pipe.dispose();
  }
}

/**
 * Pools per-token states [batch, tokens, dim] into one L2-normalised row per text, with the same
 * floating-point steps as transformers.js 4.3.1 (`mean_pooling`, `slice(null, 0)`,
 * `normalize(2, -1)`): the mean is summed in doubles token by token and stored as float32; the
 * squared norm accumulates in a float32 slot (the library reduces into a Float32Array), its
 * square root is stored as float32, and each component is divided by it. Token-major loops
 * keep reads contiguous, and the mask is read as plain numbers, not one BigInt per element.
 * A zero vector normalises to NaN here, exactly as in the library; `finiteOrZero` maps it to 0.
 */
export function poolRows(hidden: Tensor, attentionMask: readonly (readonly number[])[], pooling: Pooling): Float32Array[] {
  const [batch = 0, tokens = 0, dim = 0] = hidden.dims;
  const data = hidden.data as Float32Array;
  const sums = new Float64Array(dim);
  const rows = new Array<Float32Array>(batch);
  for (let b = 0; b < batch; b++) {
    const row = new Float32Array(dim);
    const rowStart = b * tokens * dim;
    if (pooling === 'cls') {
      row.set(data.subarray(rowStart, rowStart + dim));
    } else {
      sums.fill(0);
      let count = 0;
      const mask = attentionMask[b]!;
      for (let t = 0; t < tokens; t++) {
        const m = mask[t]!;
        count += m;
        if (m === 0) continue; // x * 0 adds nothing to a finite sum
        const at = rowStart + t * dim;
        for (let k = 0; k < dim; k++) sums[k]! += data[at + k]! * m;
      }
      for (let k = 0; k < dim; k++) row[k] = sums[k]! / count;
    }
    let sq = 0;
    for (let k = 0; k < dim; k++) sq = Math.fround(sq + row[k]! ** 2);
    const norm = Math.fround(sq ** 0.5); // `** (1 / p)`, as Tensor.norm writes it
    for (let k = 0; k < dim; k++) row[k]! /= norm;
    rows[b] = row;
  }
  return rows;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * An int64 tensor [rows, width] from equal-length rows of integers (token ids, masks). Writes
 * int32 values as two 32-bit words (value, sign) instead of allocating a BigInt per element.
 */
export function int64Tensor(rows: readonly (readonly number[])[]): Tensor {
  const width = rows[0]?.length ?? 0;
  const out = new BigInt64Array(rows.length * width);
  const words = new Int32Array(out.buffer);
  let i = 0;
  for (const row of rows) {
    if (row.length !== width) throw new Error(`ragged tokenizer output: rows of ${width} and ${row.length}`);
    for (let j = 0; j < width; j++, i++) {
      const v = row[j]!;
      if (LITTLE_ENDIAN && (v | 0) === v) {
        words[2 * i] = v;
        words[2 * i + 1] = v >> 31;
      } else {
        out[i] = BigInt(v);
      }
    }
  }
  return new Tensor('int64', out, [rows.length, width]);
}

/** Zero vector when any component is NaN/±Infinity (e.g. 0/0 from normalising an all-zero mean). */
export function finiteOrZero(v: Float32Array): Float32Array {
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]!)) return v.fill(0);
  }
  return v;
}
