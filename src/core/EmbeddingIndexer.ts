/**
 * Embeds stored turns in the background, resumably: the work list is simply "messages with no
 * vector for the target model", recomputed from the database, so a closed tab or a crashed model
 * resumes where it stopped on the next open.
 *
 * Switching the embedder sets a new *target* model; retrieval keeps using the *active* model's
 * vectors until every message has a target vector, then the target becomes active and the old
 * vectors are deleted. `meta` records both (`embedder.active`, `embedder.target`).
 */
import { toErrorInfo, type ErrorInfo } from './errors';
import { BackgroundLoop } from './backgroundLoop';
import type { Embedder, EmbedderProvider } from './ports';
import type { SemanticIndex } from './SemanticIndex';
import type { PendingEmbedding, VectorStore } from './store';

export interface EmbeddingStatus {
  /** Catalog id of the model whose vectors retrieval uses. */
  readonly activeModel: string;
  /** Catalog id of the model being built (equal to activeModel when no switch is under way). */
  readonly targetModel: string;
  /** Messages that have a vector from the target model, and all messages. */
  readonly embedded: number;
  readonly total: number;
  readonly state: 'idle' | 'running' | 'error';
  readonly error: ErrorInfo | null;
}

export const META_ACTIVE = 'embedder.active';
export const META_TARGET = 'embedder.target';

export interface EmbeddingIndexerDeps {
  readonly store: VectorStore;
  readonly embedders: EmbedderProvider;
  readonly index: SemanticIndex;
  readonly onStatus?: (status: EmbeddingStatus) => void;
  readonly batchSize?: number;
}

export class EmbeddingIndexer {
  readonly #deps: EmbeddingIndexerDeps;
  readonly #batchSize: number;
  #active: string;
  #target: string;
  #embedded = 0;
  #total = 0;
  #state: EmbeddingStatus['state'] = 'idle';
  #error: ErrorInfo | null = null;
  /** Whether vectors of other models have been deleted since open / the last switch. */
  #cleaned = false;
  readonly #loopRunner = new BackgroundLoop(() => this.#loop(), () => this.#state !== 'error');

  constructor(deps: EmbeddingIndexerDeps) {
    this.#deps = deps;
    this.#batchSize = deps.batchSize ?? 32;
    this.#active = this.#target = deps.embedders.defaultModelId;
  }

  /** Reads the models from `meta` (choosing the default for a new database) and counts progress. */
  async init(): Promise<void> {
    const { store, embedders } = this.#deps;
    const active = (await store.getMeta(META_ACTIVE)) ?? embedders.defaultModelId;
    let target = (await store.getMeta(META_TARGET)) ?? active;
    if (!this.#known(target)) target = active; // e.g. a file imported from a build with other models
    if ((await store.getMeta(META_ACTIVE)) === null) await store.setMeta(META_ACTIVE, active);
    if ((await store.getMeta(META_TARGET)) === null) await store.setMeta(META_TARGET, target);
    this.#active = active;
    this.#target = target;
    this.#cleaned = false;
    this.#deps.index.reset();
    await this.#recount();
    this.#emit();
  }

  status(): EmbeddingStatus {
    return { activeModel: this.#active, targetModel: this.#target, embedded: this.#embedded, total: this.#total, state: this.#state, error: this.#error };
  }

  /** The embedder whose vectors retrieval uses now. */
  activeEmbedder(): Embedder {
    return this.#deps.embedders.embedder(this.#active);
  }

  /** Starts (or continues) embedding whatever is missing. Never throws; failures land in status(). */
  kick(): void {
    this.#loopRunner.kick();
  }

  /** Resolves when no embedding work is running (tests, benchmark ingest). */
  async idle(): Promise<void> {
    await this.#loopRunner.idle();
  }

  /** Switches the embedder: re-embeds everything in the background, then makes it active. */
  async setTarget(modelId: string): Promise<EmbeddingStatus> {
    this.#deps.embedders.embedder(modelId); // throws for an unknown model before anything changes
    this.#target = modelId;
    await this.#deps.store.setMeta(META_TARGET, modelId);
    this.#error = null;
    if (this.#state === 'error') this.#state = 'idle';
    await this.#recount();
    this.#emit();
    this.kick();
    return this.status();
  }

  stop(): void {
    this.#loopRunner.stop();
  }

  #known(modelId: string): boolean {
    try {
      this.#deps.embedders.embedder(modelId);
      return true;
    } catch {
      return false;
    }
  }

  async #recount(): Promise<void> {
    const { store, embedders } = this.#deps;
    this.#total = await store.countItems('message');
    this.#embedded = await store.countVectors('message', embedders.embedder(this.#target).id);
  }

  /**
   * One pass: embeds every message that lacks a target vector, oldest first. The pass reads on
   * from a cursor (the last batch's rowid) instead of re-scanning from the start for every batch,
   * and keeps the model busy: while the model embeds one batch, the previous batch's vectors are
   * written and the next batch is read (measured on the LoCoMo dev split in the browser:
   * README "Results"). Every pass starts from the beginning, so nothing an earlier failed pass
   * left behind is skipped.
   */
  async #loop(): Promise<void> {
    const { store, embedders, index } = this.#deps;
    try {
      this.#state = 'running';
      this.#error = null;
      const target = this.#target;
      const embedder = embedders.embedder(target);
      let after: number | undefined;
      const read = () => store.pendingEmbeddings('message', embedder.id, this.#batchSize, after);
      const embed = (batch: readonly PendingEmbedding[]) => {
        const vectors = embedder.embed(batch.map((b) => b.text), 'document');
        vectors.catch(() => undefined); // awaited below; meanwhile a rejection must not go unhandled
        return vectors;
      };
      let batch = await read();
      let embedding = batch.length > 0 ? embed(batch) : null;
      while (batch.length > 0 && embedding) {
        const vectors = await embedding;
        // Stopped, or switched to another model: the switch kicks a new pass for the new target.
        if (this.#loopRunner.stopped || target !== this.#target) return;
        after = batch[batch.length - 1]!.key;
        const next = await read();
        embedding = next.length > 0 ? embed(next) : null;
        const items = batch.map((b, i) => ({ itemId: b.itemId, vector: vectors[i]! }));
        await store.putVectors('message', embedder.id, items);
        if (target === this.#active) await index.add(embedder.id, items);
        this.#embedded += items.length;
        this.#total = Math.max(this.#total, this.#embedded);
        this.#emit();
        batch = next;
      }
      if (this.#target !== this.#active) {
        this.#active = this.#target;
        await store.setMeta(META_ACTIVE, this.#active);
        index.reset();
        this.#cleaned = false;
      }
      // Another model's vectors go once per switch (and once per open, for a switch completed
      // just before a crash): the delete reads every vector row, too costly for every pass.
      if (!this.#cleaned) {
        await store.deleteOtherVectors('message', embedder.id);
        this.#cleaned = true;
      }
      await this.#recount();
      this.#state = 'idle';
    } catch (err) {
      this.#state = 'error';
      this.#error = toErrorInfo(err);
    }
    this.#emit();
  }

  #emit(): void {
    try {
      this.#deps.onStatus?.(this.status());
    } catch {
      /* listeners must not break indexing */
    }
  }
}
