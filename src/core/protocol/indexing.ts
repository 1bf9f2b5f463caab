/**
 * The indexes that follow stored turns: embeddings (which model, switching it) and the trailing
 * indexing after a history import.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.indexing.…`.
 */
import type { EmbeddingStatus } from '../capture/embeddingStatus';

/** The indexing that trails a history import (turn index, vectors, episodes) as one progress figure. */
export interface IndexingStatus {
  /** 'running' while any trailing work (turn index, embedding, episodes) is under way. */
  readonly state: 'idle' | 'running';
  /** Turns whose trailing indexes are all written, and all turns. */
  readonly indexed: number;
  readonly total: number;
  /** A history import is storing turns: trailing work waits for it. */
  readonly importing: boolean;
}

export interface IndexingApi {
  embeddingStatus(): Promise<EmbeddingStatus | null>;
  /** The indexing that trails a history import (turn index with context, vectors, episodes); resumes after a reload. */
  status(): Promise<IndexingStatus>;
  setEmbedder(modelId: string): Promise<EmbeddingStatus>;
}
