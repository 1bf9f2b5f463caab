/**
 * Capabilities injected into core code. Implementations live in src/models (transformers.js),
 * src/llm and test fakes; core never imports them directly.
 */

/** Queries and documents may be embedded differently (e.g. bge's instruction prefix on queries). */
export type EmbedRole = 'query' | 'document';

/** Turns texts into unit-length vectors. Never returns NaN: empty or all-unknown text gives a zero vector. */
export interface Embedder {
  /** Stable identity stored next to every vector it produced, e.g. "recollect/glove-100d-sif@1". */
  readonly id: string;
  readonly dim: number;
  embed(texts: readonly string[], role?: EmbedRole): Promise<Float32Array[]>;
}

/** Embedders by catalog model id (the engine may need two at once while re-embedding). */
export interface EmbedderProvider {
  /** The model used when the database has not chosen one yet (the bundled offline model). */
  readonly defaultModelId: string;
  /** Throws MODEL_UNAVAILABLE (lazily, on embed) when the model is not on this device. */
  embedder(modelId: string): Embedder;
}

/** Scores (query, document) pairs; higher is more relevant. One score per document, in order. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, docs: readonly string[]): Promise<number[]>;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
