/**
 * Capabilities injected into core code. Implementations live in src/models (transformers.js),
 * src/llm and test fakes; core never imports them directly.
 */

/** Turns texts into unit-length vectors. Never returns NaN: empty or all-unknown text gives a zero vector. */
export interface Embedder {
  /** Stable identity stored next to every vector it produced, e.g. "recollect/glove-100d-sif@1". */
  readonly id: string;
  readonly dim: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
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
