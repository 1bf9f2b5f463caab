/**
 * Embedder over a transformers.js feature-extraction pipeline (bundled GloVe model or a
 * downloaded sentence-transformer). Vectors are pooled as the catalog says, L2-normalised, and
 * guarded: an empty, all-unknown or otherwise degenerate text yields a zero vector, never NaN
 * (transformers.js normalises 0/0 to NaN).
 */
import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type { Embedder } from '../core/ports';
import type { CatalogEntry } from './catalog';
import {
  clipText,
  DEFAULT_BATCH_SIZE,
  loadWithFallback,
  resolveEntry,
  type ModelLoadOptions,
} from './loadOptions';
import { toModelError } from './modelErrors';
import type { Device } from './transformersEnv';

export type { EmbedRole } from '../core/ports';
import type { EmbedRole } from '../core/ports';

export class TransformersEmbedder implements Embedder {
  /** Stored next to each vector (catalog `vectorId`, e.g. "recollect/glove-100d-sif@1"). */
  readonly id: string;
  readonly dim: number;
  readonly entry: CatalogEntry;
  /** undefined = the library default (cpu in Node, wasm in a browser). */
  readonly device: Device | undefined;
  private readonly pipe: FeatureExtractionPipeline;
  private readonly batchSize: number;

  private constructor(entry: CatalogEntry, pipe: FeatureExtractionPipeline, dim: number, device: Device | undefined, batchSize: number) {
    this.entry = entry;
    this.id = entry.vectorId;
    this.pipe = pipe;
    this.dim = dim;
    this.device = device;
    this.batchSize = batchSize;
  }

  /** Loads from the local model path / cache only; throws MODEL_UNAVAILABLE when files are missing. */
  static async create(modelId: string, options: ModelLoadOptions = {}): Promise<TransformersEmbedder> {
    const entry = resolveEntry(modelId, 'embedder', options);
    const { value: pipe, device } = await loadWithFallback(entry, options, (device) =>
      pipeline('feature-extraction', entry.id, {
        dtype: entry.dtype,
        ...(device ? { device } : {}),
        ...(options.progress ? { progress_callback: options.progress } : {}),
      }),
    );
    const hidden = (pipe.model.config as unknown as { hidden_size?: number }).hidden_size;
    const dim = entry.dim ?? hidden ?? 0;
    return new TransformersEmbedder(entry, pipe, dim, device, options.batchSize ?? DEFAULT_BATCH_SIZE);
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
      let data: Float32Array;
      let dim: number;
      try {
        const tensor = await this.pipe(batch, { pooling: this.entry.pooling ?? 'mean', normalize: true });
        data = tensor.data as Float32Array;
        dim = tensor.dims[1] ?? this.dim;
      } catch (err) {
        throw toModelError(err, this.entry.id, this.entry, 'embed text');
      }
      idx.forEach((textIndex, row) => {
        out[textIndex] = finiteOrZero(data.slice(row * dim, (row + 1) * dim));
      });
    }
    return out;
  }

  async dispose(): Promise<void> {
    await this.pipe.dispose();
  }
}

/** Zero vector when any component is NaN/±Infinity (e.g. 0/0 from normalising an all-zero mean). */
export function finiteOrZero(v: Float32Array): Float32Array {
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]!)) return v.fill(0);
  }
  return v;
}
