/**
 * The bundled GloVe-SIF model as a plain word-vector lookup: no inference runtime. It reads the
 * model's tokenizer (tokenizer.json, tokenizer_config.json) and the files
 * scripts/build-offline-model.mjs writes under `static/` (static.json, the int8 table with its
 * per-row scales) and gives the SAME vectors as TransformersEmbedder running
 * `onnx/model_quantized.onnx` (test/models/staticEmbedder.test.ts compares them), so stored
 * vectors stay valid under the same `vectorId`.
 *
 * Why: the ONNX graph is a Gather, yet running it means loading onnxruntime-web's 26.8 MB
 * WebAssembly — 2.3–3.1 s of a cold open (bench/results/cold-open.md). A lookup loads in well under a second.
 *
 * Tokenization is transformers.js's own: a PreTrainedTokenizer built from the model's tokenizer
 * files (it runs @huggingface/tokenizers, which transformers.js bundles; importing that package
 * directly would put a second copy, +34 KB, in the model worker) called as TransformersEmbedder's
 * pipeline calls it, with `truncation: true` — so ids are [CLS] … [SEP] cut to the config's
 * `model_max_length`, and a long text loses its [SEP]. Nothing here loads onnxruntime: that
 * happens only when a model session is created.
 * Pooling repeats TransformersEmbedder.poolRows: the mean of the token rows (specials and [UNK]
 * are zero rows, but count), in doubles, stored as float32, then L2-normalised with a float32
 * norm; a row value is fround(int8 × scale), exactly what the graph's Cast and Mul compute.
 * A text with no known word gives a zero vector (never NaN), as the ONNX path does.
 */
import { PreTrainedTokenizer } from '@huggingface/transformers';
import type { Embedder, EmbedRole } from '../core/base/ports';
import { RecollectError } from '../core/base/errors';
import type { CatalogEntry } from './catalog';
import { clipText } from './loadOptions';

export const STATIC_FORMAT = 'recollect-static-embedding@1';

/** static/static.json as the build script writes it (the tokenizer fields are read from tokenizer.json instead). */
export interface StaticManifest {
  readonly format: string;
  readonly model: string;
  readonly dim: number;
  readonly rows: number;
  readonly table: string;
  readonly pooling: string;
}

/** The model's tokenizer files as JSON (tokenizer.json, tokenizer_config.json). */
export interface TokenizerFiles {
  readonly tokenizer: object;
  readonly config: { readonly model_max_length?: number } & object;
}

/** The files' contents (how they are read differs: fetch in a worker, the file system in Node). */
export interface StaticModelFiles extends TokenizerFiles {
  readonly manifest: StaticManifest;
  readonly table: ArrayBuffer;
}

/** Reads one file of the model's `static/` folder (`../name` for the model folder's own files). */
export type StaticFileReader = (file: string) => Promise<ArrayBuffer>;

export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  readonly entry: CatalogEntry;
  /** A lookup in JavaScript: it runs on the processor, on no inference backend. */
  readonly device = 'cpu' as const;
  readonly fallback: string | null = null;
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #scales: Float32Array;
  readonly #rows: Int8Array;

  private constructor(entry: CatalogEntry, files: StaticModelFiles, tokenizer: PreTrainedTokenizer) {
    const m = files.manifest;
    this.entry = entry;
    this.id = entry.vectorId;
    this.dim = m.dim;
    this.#tokenizer = tokenizer;
    this.#scales = new Float32Array(files.table, 0, m.rows);
    this.#rows = new Int8Array(files.table, m.rows * 4, m.rows * m.dim);
  }

  /** Checks the files against each other; a mismatch is a broken build, reported as MODEL_ERROR. */
  static fromFiles(entry: CatalogEntry, files: StaticModelFiles): StaticEmbedder {
    const m = files.manifest;
    const problem = (what: string) => new RecollectError('MODEL_ERROR', `The bundled model's lookup files are inconsistent (${what}); rebuild them with scripts/build-offline-model.mjs.`);
    if (m.format !== STATIC_FORMAT) throw problem(`format "${m.format}", expected "${STATIC_FORMAT}"`);
    if (m.dim !== entry.dim) throw problem(`dimension ${m.dim}, the catalog says ${entry.dim}`);
    if (m.pooling !== 'mean') throw problem(`pooling "${m.pooling}", this lookup only averages`);
    if (files.table.byteLength !== m.rows * (4 + m.dim)) throw problem(`table of ${files.table.byteLength} bytes for ${m.rows} rows`);
    let tokenizer: PreTrainedTokenizer;
    try {
      tokenizer = new PreTrainedTokenizer(files.tokenizer, files.config);
    } catch (err) {
      throw problem(`tokenizer.json: ${err instanceof Error ? err.message : String(err)}`);
    }
    // Every id the tokenizer can give must have a row.
    const words = tokenizer.get_vocab().size;
    if (words !== m.rows) throw problem(`${words} tokens in tokenizer.json for ${m.rows} rows`);
    return new StaticEmbedder(entry, files, tokenizer);
  }

  /** Reads `static.json`, the table and the tokenizer files through `read` (paths relative to `static/`). */
  static async load(entry: CatalogEntry, read: StaticFileReader): Promise<StaticEmbedder> {
    const json = async (file: string) => JSON.parse(new TextDecoder().decode(await read(file))) as object;
    let files: StaticModelFiles;
    try {
      const manifest = (await json('static.json')) as StaticManifest;
      const [table, tokenizer, config] = await Promise.all([read(manifest.table), json('../tokenizer.json'), json('../tokenizer_config.json')]);
      files = { manifest, table, tokenizer, config };
    } catch (err) {
      throw new RecollectError('MODEL_UNAVAILABLE', `The bundled model's lookup files could not be read: ${err instanceof Error ? err.message : String(err)}.`);
    }
    return StaticEmbedder.fromFiles(entry, files);
  }

  /** Token ids as transformers.js gives them for one text ([CLS] … [SEP], cut to model_max_length). */
  tokenIds(text: string): number[] {
    const encoded = this.#tokenizer(text, { truncation: true, return_tensor: false });
    return encoded.input_ids as number[];
  }

  async embed(texts: readonly string[], role: EmbedRole = 'document'): Promise<Float32Array[]> {
    const prefix = role === 'query' ? this.entry.queryPrefix : this.entry.documentPrefix;
    return texts.map((t) => this.#vector(this.tokenIds(prefix + clipText(t, this.entry.maxTokens))));
  }

  async dispose(): Promise<void> {}

  /** Mean of the rows, then L2-normalised, with TransformersEmbedder.poolRows' float steps. */
  #vector(ids: readonly number[]): Float32Array {
    const dim = this.dim;
    const sums = new Float64Array(dim);
    for (const id of ids) {
      const scale = this.#scales[id]!;
      if (scale === 0) continue; // a zero row (specials, [UNK]) adds nothing
      const at = id * dim;
      for (let k = 0; k < dim; k++) sums[k]! += Math.fround(this.#rows[at + k]! * scale);
    }
    const row = new Float32Array(dim);
    for (let k = 0; k < dim; k++) row[k] = sums[k]! / ids.length;
    let sq = 0;
    for (let k = 0; k < dim; k++) sq = Math.fround(sq + row[k]! ** 2);
    const norm = Math.fround(sq ** 0.5);
    if (!(norm > 0) || !Number.isFinite(norm)) return row.fill(0); // 0/0 would be NaN
    for (let k = 0; k < dim; k++) row[k]! /= norm;
    return row;
  }
}
