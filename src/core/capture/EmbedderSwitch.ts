/**
 * The embedder switch: which model's vectors retrieval uses (*active*) and which model is being
 * built (*target*), both kept in `meta` (META_ACTIVE, META_TARGET), and the steps of a switch
 * around the indexer's sweep of turns (EmbeddingIndexer runs them in its one background loop).
 *
 * Retrieval keeps using the active model's vectors until everything has a target vector; then the
 * target becomes active, for every kind at once, and the indexer deletes the old vectors. A switch
 * re-embeds every kind that has vectors, not only turns: facts and episodes with an active-model
 * vector get a target one (text by the model; a raw episode, which has no text of its own, by
 * `derived`: the mean of its turns), then the themes' centroids are rebuilt (`onTargetComplete`).
 * Turns written during a switch first get the active model's vector (catch-up), so they are
 * searchable by meaning (and segmented) at once. Facts and episodes written during the switch get
 * the active model's vector too; a second pass right after the target becomes active gives the
 * ones the first pass missed a target vector, and themes whose centroid an episode closing
 * meanwhile wrote with the old model are rebuilt (`onTargetActive`). Progress counts all kinds.
 *
 * A target model that fails ends the switch (`abandon`): the target goes back to the active model
 * and the status says why; the failed choice is not retried. An active model that fails (a
 * downloaded model whose files went bad) is the way out, not the way back: once it has failed, a
 * switch asks it for nothing (turns written meanwhile wait for the new model's vector), and a
 * catch-up that finds it failing lets the switch go on without it.
 */
import { RecollectError, toErrorInfo, type ErrorInfo } from '../base/errors';
import { isWorkerReplaced } from '../base/swappableRemote';
import type { Embedder, EmbedderProvider } from '../base/ports';
import type { ItemKind, VectorStore } from '../base/store';
import { yieldToEvents } from '../base/yieldToEvents';
import { META_ACTIVE, META_TARGET, type KindProgress, type SwitchProgress } from './embeddingStatus';

/** Kinds besides turns whose vectors a switch rebuilds (the ones the consolidator and lifecycle embed);
 * themes have no vectors of their own, their centroids are rebuilt by `onTargetComplete`. */
export const DERIVED_KINDS: readonly ItemKind[] = ['fact', 'memcell'];

const KIND_NAMES = { message: 'turns', fact: 'facts', memcell: 'episodes' } as const;

export interface EmbedderSwitchDeps {
  readonly store: VectorStore;
  readonly embedders: EmbedderProvider;
  readonly batchSize: number;
  /** The target vector of an item without text of its own (a raw episode: its turns' mean), or null. */
  readonly derived?: (kind: ItemKind, itemId: string, vectorModelId: string, dim: number) => Promise<Float32Array | null>;
  /** Every item has a target vector; runs before the target becomes active (themes' centroids). */
  readonly onTargetComplete?: (vectorModelId: string, dim: number) => Promise<void>;
  /** The target has become active (after the last pass over facts and episodes): themes an episode wrote with the old model meanwhile. */
  readonly onTargetActive?: (vectorModelId: string, dim: number) => Promise<void>;
  /** New turns got the active model's vector during a switch (segmentation may go on). */
  readonly onActiveCaughtUp?: () => void;
  /** How many themes have a centroid of `vectorModelId` (a switch's theme progress); none without. */
  readonly themesWith?: (vectorModelId: string) => Promise<number>;
}

/** What a switch borrows from the indexer that runs it. */
export interface SwitchRunner {
  /** Embeds the turns after `after` that lack a vector of `embedder` (see EmbeddingIndexer); false when stopped or switched. */
  sweep(embedder: Embedder, model: string, target: string, after: number | undefined): Promise<boolean>;
  /** The cursor from which the turns missing a vector of this model start. */
  tailStart(vectorModelId: string): Promise<number>;
  /** Counts `n` more items of `kind` done for the target, and reports it. */
  advance(kind: ItemKind, n: number): void;
  readonly stopped: () => boolean;
}

type Kinds = { -readonly [K in keyof SwitchProgress]: KindProgress };

export class EmbedderSwitch {
  readonly #deps: EmbedderSwitchDeps;
  readonly #runner: SwitchRunner;
  #active: string;
  #target: string;
  /** During a switch, progress by kind; null otherwise. */
  #kinds: Kinds | null = null;
  /** Why the last switch was abandoned; shown until the next switch (embedding itself goes on). */
  #error: ErrorInfo | null = null;
  /** Whether the active model failed to embed since it became active or last worked. */
  #activeFails = false;
  /** Turns arrived since the last catch-up looked (during a switch they get an active vector first). */
  #fresh = false;

  constructor(deps: EmbedderSwitchDeps, runner: SwitchRunner) {
    this.#deps = deps;
    this.#runner = runner;
    this.#active = this.#target = deps.embedders.defaultModelId;
  }

  get active(): string {
    return this.#active;
  }

  get target(): string {
    return this.#target;
  }

  get switching(): boolean {
    return this.#target !== this.#active;
  }

  /** Why the last switch was abandoned, or null. */
  get error(): ErrorInfo | null {
    return this.#error;
  }

  /** The switch's progress by kind, or null when none is under way. */
  get progress(): SwitchProgress | null {
    return this.#kinds && this.switching ? { ...this.#kinds } : null;
  }

  /** Whether the active model is known to fail: searches should not ask it. */
  get activeFails(): boolean {
    return this.#activeFails;
  }

  /** Reads the models from `meta` (choosing the default for a new database). */
  async init(): Promise<void> {
    const { store, embedders } = this.#deps;
    const active = (await store.getMeta(META_ACTIVE)) ?? embedders.defaultModelId;
    let target = (await store.getMeta(META_TARGET)) ?? active;
    if (!this.knows(target)) target = active; // e.g. a file imported from a build with other models
    if ((await store.getMeta(META_ACTIVE)) === null) await store.setMeta(META_ACTIVE, active);
    if ((await store.getMeta(META_TARGET)) === null) await store.setMeta(META_TARGET, target);
    this.#active = active;
    this.#target = target;
    this.#activeFails = false;
  }

  /** Whether this build has the model (an imported file may name one it lacks). */
  knows(modelId: string): boolean {
    try {
      this.#deps.embedders.embedder(modelId);
      return true;
    } catch { // the provider throws for a model id it does not know
      return false;
    }
  }

  /** Makes `modelId` the target. */
  async choose(modelId: string): Promise<void> {
    this.#target = modelId;
    this.#error = null;
    await this.#deps.store.setMeta(META_TARGET, modelId);
  }

  /** The active model failed to embed (or, false, embedded again). */
  activeFailed(fails: boolean): void {
    this.#activeFails = fails;
  }

  /** New turns were written: during a switch, the next catch-up gives them the active model's vector. */
  turnsArrived(): void {
    this.#fresh = true;
  }

  /** Counts the kinds besides turns for the switch's progress (nothing when none is under way). */
  async recount(turns: KindProgress): Promise<KindProgress> {
    if (!this.switching) {
      this.#kinds = null;
      return { done: 0, total: 0 };
    }
    const { store, embedders, themesWith } = this.#deps;
    const target = embedders.embedder(this.#target).id;
    const active = embedders.embedder(this.#active).id;
    const kinds: Kinds = { turns, facts: { done: 0, total: 0 }, episodes: { done: 0, total: 0 }, themes: { done: 0, total: 0 } };
    const extra = { done: 0, total: 0 };
    for (const kind of DERIVED_KINDS) {
      const have = await store.countVectors(kind, active);
      const done = Math.min(have, await store.countVectors(kind, target));
      kinds[KIND_NAMES[kind as 'fact' | 'memcell']] = { done, total: have };
      extra.total += have;
      extra.done += done;
    }
    if (themesWith) {
      const done = await themesWith(target);
      kinds.themes = { done, total: done + (await themesWith(active)) };
    }
    this.#kinds = kinds;
    return extra;
  }

  /** Counts `n` more items of `kind` in the progress by kind. */
  advance(kind: ItemKind, n: number): void {
    const name = KIND_NAMES[kind as keyof typeof KIND_NAMES];
    if (!this.#kinds || !name) return;
    const k = this.#kinds[name];
    this.#kinds[name] = { done: k.done + n, total: Math.max(k.total, k.done + n) };
  }

  /**
   * During a switch: turns without the active model's vector (new ones) get it first. A failing
   * active model is not asked (or, failing now, is left behind): the switch goes on without it.
   */
  async catchUp(target: string): Promise<boolean> {
    this.#fresh = false;
    if (this.#activeFails) return true;
    let failed = false;
    const active = watched(this.#deps.embedders.embedder(this.#active), () => { failed = true; });
    try {
      const ok = await this.#runner.sweep(active, this.#active, target, await this.#runner.tailStart(active.id));
      if (ok) this.#deps.onActiveCaughtUp?.();
      return ok;
    } catch (err) {
      if (!failed || isWorkerReplaced(err) || this.#runner.stopped()) throw err;
      this.#activeFails = true;
      return true;
    }
  }

  /** Between two batches of the target: catches up with turns written meanwhile, if any. */
  catchUpIfFresh(target: string): Promise<boolean> {
    return this.#fresh ? this.catchUp(target) : Promise.resolve(true);
  }

  /**
   * Every turn has a target vector: facts and episodes get theirs, then the themes' centroids.
   * False when stopped or switched meanwhile.
   */
  async complete(embedder: Embedder, target: string): Promise<boolean> {
    if (!(await this.#reembedKinds(embedder, target, this.#activeVectorId()))) return false;
    await this.#deps.onTargetComplete?.(embedder.id, embedder.dim);
    if (this.#kinds) this.#kinds.themes = { done: this.#kinds.themes.total, total: this.#kinds.themes.total };
    return true;
  }

  /** The target becomes active; returns the vector id of the model it replaces. */
  async promote(): Promise<string> {
    const previous = this.#activeVectorId();
    this.#active = this.#target;
    this.#activeFails = false;
    await this.#deps.store.setMeta(META_ACTIVE, this.#active);
    return previous;
  }

  /**
   * Right after `promote`: facts and episodes written with the old model after `complete` looked
   * at them (from here on writers use the new model, so one more pass leaves none behind), then
   * the themes such an episode touched. False when stopped or switched meanwhile.
   */
  async settle(embedder: Embedder, target: string, previous: string): Promise<boolean> {
    if (!(await this.#reembedKinds(embedder, target, previous))) return false;
    await this.#deps.onTargetActive?.(embedder.id, embedder.dim);
    return true;
  }

  /** The target model failed: go back to the active one, say why, and do not try it again. */
  async abandon(err: unknown): Promise<void> {
    const failed = this.#target;
    const info = toErrorInfo(err);
    this.#target = this.#active;
    await this.#deps.store.setMeta(META_TARGET, this.#active);
    this.#error = toErrorInfo(new RecollectError(info.code, `Switching to "${failed}" failed, so search keeps using "${this.#active}". ${info.message}`, info.detail));
  }

  #activeVectorId(): string {
    return this.#deps.embedders.embedder(this.#active).id;
  }

  /** Gives facts and episodes that have a `from` vector a target one; false when stopped or switched. */
  async #reembedKinds(embedder: Embedder, target: string, from: string): Promise<boolean> {
    const { store, derived, batchSize } = this.#deps;
    for (const kind of DERIVED_KINDS) {
      let after: number | undefined;
      for (;;) {
        await yieldToEvents(); // one batch per slice
        if (this.#runner.stopped() || target !== this.#target) return false;
        const batch = await store.pendingReembed(kind, from, embedder.id, batchSize, after);
        if (batch.length === 0) break;
        after = batch[batch.length - 1]!.key;
        const withText = batch.filter((b) => b.text.trim());
        const vectors = withText.length ? await embedder.embed(withText.map((b) => b.text), 'document') : [];
        const items = withText.map((b, i) => ({ itemId: b.itemId, vector: vectors[i]! }));
        for (const b of batch) {
          if (b.text.trim() || !derived) continue;
          const v = await derived(kind, b.itemId, embedder.id, embedder.dim);
          if (v) items.push({ itemId: b.itemId, vector: v });
        }
        await store.putVectors(kind, embedder.id, items);
        if (this.switching) this.#runner.advance(kind, items.length);
      }
    }
    return true;
  }
}

/** `embedder` with a callback on any failure: tells a failing model from other failures. */
export function watched(embedder: Embedder, onFailure: () => void): Embedder {
  return {
    id: embedder.id,
    dim: embedder.dim,
    embed: (texts, role) => embedder.embed(texts, role).catch((err: unknown) => {
      onFailure();
      throw err;
    }),
  };
}
