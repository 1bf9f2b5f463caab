/**
 * One sweep over the turns that lack a vector of one model, oldest first, reading on from a
 * cursor. It keeps the model busy: while the model embeds one batch, the previous batch's vectors
 * are written and the next batch is read (docs/benchmarks.md, "Ingest"). The indexer runs it for
 * the target model, and during a switch for the active one (catch-up).
 */
import type { Embedder } from '../base/ports';
import type { PendingEmbedding, VectorStore } from '../base/store';
import type { PauseGate } from '../base/pauseGate';
import { yieldToEvents } from '../base/yieldToEvents';
import type { SemanticIndex } from './SemanticIndex';

export interface SweepDeps {
  readonly store: VectorStore;
  /** The in-memory index of the active model's turn vectors. */
  readonly index: SemanticIndex;
  readonly batchSize: number;
  /** Sweeps wait here between batches while something paused embedding. */
  readonly pause: PauseGate;
}

export interface SweepHooks {
  /** True when the sweep must end now (the engine stops, or another model was chosen). */
  readonly cancelled: () => boolean;
  /** Whether this model's vectors also go into the in-memory index (it is the active model); asked per batch. */
  readonly indexed: () => boolean;
  /** After each batch is stored, with its size; false ends the sweep. */
  readonly stored?: (n: number) => Promise<boolean>;
}

/** Embeds the missing turns after `after` (all when undefined); false when cancelled or `stored` said stop. */
export async function sweepTurns(d: SweepDeps, embedder: Embedder, after: number | undefined, hooks: SweepHooks): Promise<boolean> {
  const { store, index } = d;
  const read = () => store.pendingEmbeddings('message', embedder.id, d.batchSize, after);
  const embed = (batch: readonly PendingEmbedding[]) => {
    const vectors = embedder.embed(batch.map((b) => b.text), 'document');
    vectors.catch(() => undefined); // awaited below; meanwhile a rejection must not go unhandled
    return vectors;
  };
  await d.pause.whilePaused();
  let batch = await read();
  let embedding = batch.length > 0 ? embed(batch) : null;
  while (batch.length > 0 && embedding) {
    const vectors = await embedding;
    // A model in this thread (or one that answered already) settles as a microtask: one batch per slice.
    await yieldToEvents();
    if (hooks.cancelled()) return false;
    await d.pause.whilePaused();
    after = batch[batch.length - 1]!.key;
    const next = await read();
    embedding = next.length > 0 ? embed(next) : null;
    const items = batch.map((b, i) => ({ itemId: b.itemId, vector: vectors[i]! }));
    await store.putVectors('message', embedder.id, items);
    if (hooks.indexed()) await index.add(embedder.id, items);
    if (hooks.stored && !(await hooks.stored(items.length))) return false;
    batch = next;
  }
  return true;
}

/**
 * The cursor a tail sweep starts from: the oldest of the newest missing turns (how many are
 * missing comes from two counts), past the end when nothing is missing.
 */
export async function tailStart(store: VectorStore, vectorModelId: string): Promise<number> {
  const missing = (await store.countItems('message')) - (await store.countVectors('message', vectorModelId));
  if (missing <= 0) return Number.MAX_SAFE_INTEGER;
  return (await store.newestPendingKey('message', vectorModelId, missing)) - 1;
}
