/**
 * The model catalog: every embedder and reranker the app can use. The bundled model is built at
 * install time (scripts/build-offline-model.mjs) and served from the app's own origin; the others
 * are downloaded from the Hugging Face Hub only when the user asks (ModelService.downloadModel).
 *
 * Invariant: an embedder's `vectorId` changes whenever its vectors would change, so stored vectors
 * can be matched to the model that produced them.
 */

import type { ModelKind } from '../core/protocol';

export type { ModelKind };
export type ModelDtype = 'q8' | 'fp32';
export type Pooling = 'mean' | 'cls';

export interface CatalogEntry {
  /** Hugging Face-style id, also the folder under the local model path. */
  readonly id: string;
  readonly kind: ModelKind;
  readonly label: string;
  /** Output dimension for embedders; null for rerankers (one score per pair). */
  readonly dim: number | null;
  /** Approximate download size of all files for `dtype`, for the UI and progress fallback. */
  readonly approxBytes: number;
  readonly dtype: ModelDtype;
  readonly pooling: Pooling | null;
  readonly maxTokens: number;
  /** Built at install time and served from the app's origin; always available. */
  readonly bundled: boolean;
  /** Prepended to queries / documents before embedding (bge's retrieval instruction). */
  readonly queryPrefix: string;
  readonly documentPrefix: string;
  /** Identity stored next to every vector this model produced (ports.ts Embedder.id). */
  readonly vectorId: string;
  /** Devices worth trying, best first ('gpu' = WebGPU when the browser has it). */
  readonly devices: readonly ('gpu' | 'cpu')[];
  readonly note: string;
  /** Languages the model was trained for, as shown to the person choosing. */
  readonly languages: string;
  /** `languages` as ISO 639-1 codes, or ['multilingual']. */
  readonly languageCodes: readonly string[];
  /** The model's licence (SPDX id). */
  readonly licence: string;
  /**
   * Rerankers only: how far recall lets the model's verdicts move the fused order, 0..1
   * (Reranker.trust, recall/rerankOrder.ts). 0 for a model measured not to help.
   */
  readonly rerankTrust?: number;
}

export const BUNDLED_MODEL_ID = 'recollect/glove-100d-sif';

const MB = 1_000_000;

export const MODEL_CATALOG: readonly CatalogEntry[] = [
  {
    id: BUNDLED_MODEL_ID,
    kind: 'embedder',
    label: 'Offline GloVe 100-d (SIF)',
    dim: 100,
    approxBytes: 6 * MB,
    dtype: 'q8',
    pooling: 'mean',
    maxTokens: 512,
    bundled: true,
    queryPrefix: '',
    documentPrefix: '',
    vectorId: `${BUNDLED_MODEL_ID}@1`,
    // A gather-only graph: GPU dispatch would cost more than the lookup itself.
    devices: ['cpu'],
    note: 'Always available, very fast, well below MiniLM in quality.',
    languages: 'English',
    languageCodes: ['en'],
    licence: 'MIT',
  },
  {
    id: 'Xenova/all-MiniLM-L6-v2',
    kind: 'embedder',
    label: 'all-MiniLM-L6-v2',
    dim: 384,
    approxBytes: 23 * MB,
    dtype: 'q8',
    pooling: 'mean',
    maxTokens: 256,
    bundled: false,
    queryPrefix: '',
    documentPrefix: '',
    vectorId: 'Xenova/all-MiniLM-L6-v2@q8',
    devices: ['gpu', 'cpu'],
    note: 'Good general-purpose sentence embeddings.',
    languages: 'English',
    languageCodes: ['en'],
    licence: 'Apache-2.0',
  },
  {
    id: 'Xenova/bge-small-en-v1.5',
    kind: 'embedder',
    label: 'BGE small en v1.5',
    dim: 384,
    approxBytes: 34 * MB,
    dtype: 'q8',
    pooling: 'cls',
    maxTokens: 512,
    bundled: false,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    documentPrefix: '',
    vectorId: 'Xenova/bge-small-en-v1.5@q8',
    devices: ['gpu', 'cpu'],
    note: 'Retrieval-tuned; queries get an instruction prefix.',
    languages: 'English',
    languageCodes: ['en'],
    licence: 'MIT',
  },
  {
    id: 'Xenova/multilingual-e5-small',
    kind: 'embedder',
    label: 'multilingual-e5-small',
    dim: 384,
    // onnx/model_quantized.onnx 118 MB + tokenizer.json 17 MB (a 250k-piece XLM-R vocabulary).
    approxBytes: 135 * MB,
    dtype: 'q8',
    pooling: 'mean',
    maxTokens: 512,
    bundled: false,
    // E5 was trained with these markers on every input; without them its vectors are worse.
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
    vectorId: 'Xenova/multilingual-e5-small@q8',
    devices: ['gpu', 'cpu'],
    note: 'For memories in more than one language: about 100 languages, queries and memories may differ in language.',
    languages: 'About 100 languages (Chinese, Japanese, Korean, Arabic, European languages, …)',
    languageCodes: ['multilingual'],
    licence: 'MIT',
  },
  {
    id: BUNDLED_MODEL_ID,
    kind: 'reranker',
    label: 'Offline GloVe cosine (stand-in)',
    dim: null,
    approxBytes: 6 * MB,
    dtype: 'q8',
    pooling: null,
    maxTokens: 512,
    bundled: true,
    queryPrefix: '',
    documentPrefix: '',
    vectorId: `${BUNDLED_MODEL_ID}@1`,
    devices: ['cpu'],
    note: 'Cosine of the averaged word vectors of query and document; a placeholder, not a cross-encoder: recall keeps its own order with it.',
    languages: 'English',
    languageCodes: ['en'],
    licence: 'MIT',
    // Trust 0 (docs/retrieval.md, Reranking: it cannot help): choosing it keeps the fused order exactly, and
    // recall does not spend time asking it.
    rerankTrust: 0,
  },
  {
    id: 'Xenova/ms-marco-MiniLM-L-6-v2',
    kind: 'reranker',
    label: 'ms-marco MiniLM-L-6 cross-encoder',
    dim: null,
    approxBytes: 23 * MB,
    dtype: 'q8',
    pooling: null,
    maxTokens: 512,
    bundled: false,
    queryPrefix: '',
    documentPrefix: '',
    vectorId: 'Xenova/ms-marco-MiniLM-L-6-v2@q8',
    devices: ['gpu', 'cpu'],
    note: 'Cross-encoder trained on MS MARCO passages.',
    languages: 'English',
    languageCodes: ['en'],
    licence: 'Apache-2.0',
    // A cross-encoder's relevant hits stand far out of its scores; what does not stand out keeps the fused order.
    rerankTrust: 1,
  },
  {
    id: 'mixedbread-ai/mxbai-rerank-xsmall-v1',
    kind: 'reranker',
    label: 'mxbai-rerank xsmall v1',
    dim: null,
    approxBytes: 87 * MB,
    dtype: 'q8',
    pooling: null,
    maxTokens: 512,
    bundled: false,
    queryPrefix: '',
    documentPrefix: '',
    vectorId: 'mixedbread-ai/mxbai-rerank-xsmall-v1@q8',
    devices: ['gpu', 'cpu'],
    note: 'Stronger cross-encoder, larger download.',
    languages: 'English',
    languageCodes: ['en'],
    licence: 'Apache-2.0',
    // A cross-encoder's relevant hits stand far out of its scores; what does not stand out keeps the fused order.
    rerankTrust: 1,
  },
];

export function findModel(id: string, kind: ModelKind, catalog: readonly CatalogEntry[] = MODEL_CATALOG): CatalogEntry | undefined {
  return catalog.find((m) => m.id === id && m.kind === kind);
}

/** The files transformers.js fetches for an entry (none of the catalog models uses external data). */
export function modelFiles(entry: CatalogEntry): readonly string[] {
  const suffix = entry.dtype === 'q8' ? '_quantized' : '';
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', `onnx/model${suffix}.onnx`];
}
