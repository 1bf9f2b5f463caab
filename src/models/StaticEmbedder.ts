/**
 * The bundled GloVe-SIF model as a plain word-vector lookup: no inference runtime, no tokenizer
 * library. It reads the files scripts/build-offline-model.mjs writes under `static/` (the rules,
 * the vocabulary, the int8 table with its per-row scales) and gives the SAME vectors as
 * TransformersEmbedder running `onnx/model_quantized.onnx` (test/models/staticEmbedder.test.ts
 * compares them), so stored vectors stay valid under the same `vectorId`.
 *
 * Why: the ONNX graph is a Gather, yet running it means loading onnxruntime-web's 26.8 MB
 * WebAssembly — 2.3–3.1 s of a cold open (bench/results/cold-open.md). A lookup loads in well under a second.
 *
 * Tokenization repeats, step for step, what transformers.js 4.3.1 (@huggingface/tokenizers 0.2.0)
 * does with the model's tokenizer.json: literal special tokens ("[CLS]" typed in a message) are
 * split out first and never normalised; every other section is NFKC-normalised, lower-cased,
 * trimmed and split by BertPreTokenizer's pattern (runs of non-space non-punctuation, or one
 * punctuation character); a word outside the vocabulary is [UNK]; the ids are wrapped in [CLS] …
 * [SEP] and cut to `maxLength` (the library cuts after adding them, so a long text loses its [SEP]).
 * Pooling repeats TransformersEmbedder.poolRows: the mean of the token rows (specials and [UNK]
 * are zero rows, but count), in doubles, stored as float32, then L2-normalised with a float32
 * norm; a row value is fround(int8 × scale), exactly what the graph's Cast and Mul compute.
 * A text with no known word gives a zero vector (never NaN), as the ONNX path does.
 */
import type { Embedder, EmbedRole } from '../core/base/ports';
import { RecollectError } from '../core/base/errors';
import type { CatalogEntry } from './catalog';
import { clipText } from './loadOptions';

export const STATIC_FORMAT = 'recollect-static-embedding@1';

/** static/static.json as the build script writes it. */
export interface StaticManifest {
  readonly format: string;
  readonly model: string;
  readonly dim: number;
  readonly rows: number;
  readonly table: string;
  readonly vocab: string;
  readonly specials: Readonly<Record<string, number>>;
  readonly unk: string;
  readonly cls: string;
  readonly sep: string;
  readonly normalizer: readonly string[];
  readonly preTokenizer: string;
  readonly maxLength: number;
  readonly pooling: string;
}

/** The three files' contents (how they are read differs: fetch in a worker, the file system in Node). */
export interface StaticModelFiles {
  readonly manifest: StaticManifest;
  readonly vocab: string;
  readonly table: ArrayBuffer;
}

/** Reads one file of the model's `static/` folder. */
export type StaticFileReader = (file: string) => Promise<ArrayBuffer>;

// The same character classes as @huggingface/tokenizers' BertPreTokenizer (PUNCTUATION_REGEX).
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const WORDS = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');

export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  readonly entry: CatalogEntry;
  /** A lookup in JavaScript: it runs on the processor, on no inference backend. */
  readonly device = 'cpu' as const;
  readonly fallback: string | null = null;
  readonly #ids: ReadonlyMap<string, number>;
  readonly #specials: readonly string[];
  readonly #unk: number;
  readonly #cls: number;
  readonly #sep: number;
  readonly #maxLength: number;
  readonly #scales: Float32Array;
  readonly #rows: Int8Array;

  private constructor(entry: CatalogEntry, files: StaticModelFiles) {
    const m = files.manifest;
    this.entry = entry;
    this.id = entry.vectorId;
    this.dim = m.dim;
    const words = files.vocab.split('\n');
    const ids = new Map<string, number>();
    words.forEach((w, i) => ids.set(w, i));
    this.#ids = ids;
    this.#specials = Object.keys(m.specials);
    this.#unk = m.specials[m.unk]!;
    this.#cls = m.specials[m.cls]!;
    this.#sep = m.specials[m.sep]!;
    this.#maxLength = m.maxLength;
    this.#scales = new Float32Array(files.table, 0, m.rows);
    this.#rows = new Int8Array(files.table, m.rows * 4, m.rows * m.dim);
  }

  /** Checks the files against each other; a mismatch is a broken build, reported as MODEL_ERROR. */
  static fromFiles(entry: CatalogEntry, files: StaticModelFiles): StaticEmbedder {
    const m = files.manifest;
    const problem = (what: string) =>
      new RecollectError(
        'MODEL_ERROR',
        `The bundled model's lookup files are inconsistent (${what}); rebuild them with scripts/build-offline-model.mjs.`,
      );
    if (m.format !== STATIC_FORMAT) throw problem(`format "${m.format}", expected "${STATIC_FORMAT}"`);
    if (m.dim !== entry.dim) throw problem(`dimension ${m.dim}, the catalog says ${entry.dim}`);
    if (m.pooling !== 'mean' || m.preTokenizer !== 'BertPreTokenizer' || m.normalizer.join(',') !== 'NFKC,Lowercase') {
      throw problem('tokenizer or pooling rules this lookup does not implement');
    }
    if (files.table.byteLength !== m.rows * (4 + m.dim)) throw problem(`table of ${files.table.byteLength} bytes for ${m.rows} rows`);
    const lines = files.vocab.split('\n').length;
    if (lines !== m.rows) throw problem(`${lines} vocabulary lines for ${m.rows} rows`);
    for (const t of [m.unk, m.cls, m.sep]) if (m.specials[t] === undefined) throw problem(`no id for ${t}`);
    // #splitSpecials looks for them from their opening bracket.
    if (Object.keys(m.specials).some((t) => !t.startsWith('['))) throw problem('a special token that does not start with "["');
    return new StaticEmbedder(entry, files);
  }

  /** Reads `static.json`, the vocabulary and the table through `read` (paths relative to `static/`). */
  static async load(entry: CatalogEntry, read: StaticFileReader): Promise<StaticEmbedder> {
    const text = async (file: string) => new TextDecoder().decode(await read(file));
    let files: StaticModelFiles;
    try {
      const manifest = JSON.parse(await text('static.json')) as StaticManifest;
      const [vocab, table] = await Promise.all([text(manifest.vocab), read(manifest.table)]);
      files = { manifest, vocab, table };
    } catch (err) {
      throw new RecollectError(
        'MODEL_UNAVAILABLE',
        `The bundled model's lookup files could not be read: ${err instanceof Error ? err.message : String(err)}.`,
      );
    }
    return StaticEmbedder.fromFiles(entry, files);
  }

  /** Token ids as transformers.js gives them for one text ([CLS] … [SEP], cut to maxLength). */
  tokenIds(text: string): number[] {
    const ids = [this.#cls];
    for (const section of this.#splitSpecials(text)) {
      if (typeof section === 'number') {
        ids.push(section);
        continue;
      }
      const normalized = section.normalize('NFKC').toLowerCase().trim();
      for (const word of normalized.match(WORDS) ?? []) ids.push(this.#ids.get(word) ?? this.#unk);
    }
    ids.push(this.#sep);
    if (ids.length > this.#maxLength) ids.length = this.#maxLength;
    return ids;
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

  /**
   * Splits out literal special tokens (raw text, before normalisation), longest match first, as
   * the library's DictionarySplitter does. Returns text sections and special ids in order.
   */
  #splitSpecials(text: string): (string | number)[] {
    if (!text.includes('[')) return [text];
    const out: (string | number)[] = [];
    let start = 0;
    let i = text.indexOf('[');
    while (i >= 0 && i < text.length) {
      let match: string | null = null;
      for (const s of this.#specials) if (text.startsWith(s, i) && (!match || s.length > match.length)) match = s;
      if (match) {
        if (i > start) out.push(text.slice(start, i));
        out.push(this.#ids.get(match)!);
        start = i + match.length;
        i = text.indexOf('[', start);
      } else {
        i = text.indexOf('[', i + 1);
      }
    }
    if (start < text.length) out.push(text.slice(start));
    return out;
  }
}
