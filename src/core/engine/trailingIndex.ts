/**
 * The indexing that trails a history import, so a large archive is stored (and found by its words)
 * at the pace of storing alone.
 *
 * An import stores each batch of turns with their own full-text rows in one transaction, so a
 * turn is found by its words as soon as the import counts it stored. What can wait is left for
 * afterwards: the turn index with neighbour context (queued in `turn_index_queue`), the vectors
 * (the EmbeddingIndexer, paused during the import) and the episodes (the lifecycle, which follows
 * embedding). This module pauses the embedding for the import's length, then drains the turn-index
 * queue in short transactions, and reports one progress figure — "Indexing 4,200 of 17,000
 * turns…" — for all of it.
 *
 * Invariants: all the work lists live in the database (the queue table, turns without a vector,
 * turns without an episode), so a reload or a killed tab resumes where it stopped (`kick()` on
 * open); nothing here holds state that a crash could lose. A chat append meanwhile still writes
 * its own turn index at once (and flushes what is queued with it).
 */
import { BackgroundLoop } from '../base/backgroundLoop';
import { yieldToEvents } from '../base/yieldToEvents';
import type { EmbeddingStatus } from '../capture/embeddingStatus';
import type { IndexingStatus } from '../protocol';

export type { IndexingStatus };

export interface TrailingIndexDeps {
  /** Turns still waiting for the turn index (0 when the memory does not keep it). */
  readonly backlog: () => Promise<number>;
  /** Indexes up to `max` queued turns in one transaction; returns how many still wait. */
  readonly indexSome: (max: number) => Promise<number>;
  readonly countTurns: () => Promise<number>;
  /** The embedding indexer's status (null: no embedder, vectors are not part of indexing). */
  readonly embedding: () => EmbeddingStatus | null;
  /** Pauses embedding; the returned function resumes it. */
  readonly pauseEmbedding: () => () => void;
  /** Starts the embedding pass (and, after it, segmentation). */
  readonly kickEmbedding: () => void;
  /** Whether the episode lifecycle is still working through the turns. */
  readonly episodesBusy: () => boolean;
  readonly onStatus: (status: IndexingStatus) => void;
  /** Resolves when no recall or search is in flight: each turn-index transaction waits for it. */
  readonly readsFirst?: () => Promise<void>;
  /** Turns per turn-index transaction (default 500: a step stays well under a chat's 200 ms). */
  readonly step?: number;
}

export class TrailingIndex {
  readonly #d: TrailingIndexDeps;
  readonly #loop = new BackgroundLoop(() => this.#drain());
  #backlog = 0;
  #total = 0;
  #imports = 0;
  #lastError: unknown = null;

  constructor(deps: TrailingIndexDeps) {
    this.#d = deps;
  }

  /**
   * Runs `work` (an import) with the trailing work held back, then starts it. Turns the import
   * stores meanwhile are written with their full-text rows; the rest follows here.
   */
  async during<T>(work: () => Promise<T>): Promise<T> {
    const resume = this.#d.pauseEmbedding();
    this.#imports++;
    this.#emit();
    try {
      return await work();
    } finally {
      this.#imports--;
      resume();
      this.kick();
      this.#d.kickEmbedding();
    }
  }

  /** Whether an import is storing turns (episodes and vectors wait for it). */
  get importing(): boolean {
    return this.#imports > 0;
  }

  /** Starts (or continues) draining the turn-index queue; on open it resumes an interrupted import's indexing. */
  kick(): void {
    this.#loop.kick();
  }

  /** Resolves when the turn-index queue has been drained (embedding has its own idle()). */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  stop(): void {
    this.#loop.stop();
  }

  get lastError(): unknown {
    return this.#lastError;
  }

  async status(): Promise<IndexingStatus> {
    this.#total = await this.#d.countTurns();
    this.#backlog = await this.#d.backlog();
    return this.#snapshot();
  }

  #snapshot(): IndexingStatus {
    const embedding = this.#d.embedding();
    const total = Math.max(this.#total, embedding?.total ?? 0);
    // An embedder that has not counted yet (total 0: its count waits for the first search after
    // open, EmbeddingIndexer's hold) knows nothing missing: "Indexing 0 of 5,048 turns…" once
    // showed at every open, for seconds, and never moved.
    const counted = embedding !== null && embedding.total > 0;
    const embedded = counted ? Math.min(embedding.embedded, total) : total;
    const indexed = Math.max(0, Math.min(total - this.#backlog, embedded));
    const running = this.#imports > 0 || this.#loop.running || embedding?.state === 'running' || indexed < total || this.#d.episodesBusy();
    return { state: running && embedding?.state !== 'error' ? 'running' : 'idle', indexed, total, importing: this.#imports > 0 };
  }

  /** The status from what is known now (no query): for the embedding indexer's frequent updates. */
  noteEmbedding(): void {
    this.#emit(false);
  }

  #emit(refresh = true): void {
    const send = () => {
      try {
        this.#d.onStatus(this.#snapshot());
      } catch {
        /* listeners must not break indexing */
      }
    };
    if (!refresh) return send();
    void Promise.all([this.#d.countTurns(), this.#d.backlog()]).then(([total, backlog]) => {
      this.#total = total;
      this.#backlog = backlog;
      send();
    }, () => undefined);
  }

  async #drain(): Promise<void> {
    try {
      this.#backlog = await this.#d.backlog();
      this.#total = await this.#d.countTurns();
      while (this.#backlog > 0 && this.#imports === 0 && !this.#loop.stopped) {
        await this.#d.readsFirst?.();
        this.#backlog = await this.#d.indexSome(this.#d.step ?? 500);
        this.#emit(false);
        await yieldToEvents(); // a chat append or a search gets the connection between steps
      }
      this.#lastError = null;
    } catch (err) {
      this.#lastError = err;
    }
    this.#emit();
  }
}
