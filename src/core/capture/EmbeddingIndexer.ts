/**
 * Embeds stored turns in the background, resumably: the work list is simply "messages with no
 * vector for the target model", recomputed from the database, so a closed tab or a crashed model
 * resumes where it stopped on the next open.
 *
 * Switching the embedder sets a new *target* model; retrieval keeps using the *active* model's
 * vectors until every message has a target vector, then the target becomes active and the old
 * vectors are deleted. `meta` records both (`embedder.active`, `embedder.target`).
 *
 * A switch re-embeds every kind that has vectors, not only turns: facts and episodes with an
 * active-model vector get a target one (text by the model; a raw episode, which has no text of
 * its own, by `derived`: the mean of its turns), then the themes' centroids are rebuilt
 * (`onTargetComplete`), and only then does the target become active, for every kind at once.
 * Turns written during a switch first get the active model's vector, so they are searchable by
 * meaning (and segmented) at once. Facts and episodes written during the switch get the active
 * model's vector too; a second pass right after the target becomes active gives the ones the first
 * pass missed a target vector before the old model's vectors are deleted, and themes whose
 * centroid an episode closing meanwhile wrote with the old model are rebuilt (`onTargetActive`).
 * Progress counts all kinds in one bar.
 *
 * A target model that fails (not downloaded, a broken file, an ONNX error) ends the switch: the
 * target goes back to the active model, which keeps working, and the status says why; the failed
 * choice is not retried on the next pass or the next open. A call cut off because the model worker
 * was replaced (another model broke its runtime) is no such failure: the pass runs again on the new
 * worker, a switch goes on (a few times in a row at most, then it counts as a failure).
 */
import { RecollectError, toErrorInfo, type ErrorInfo } from '../base/errors';
import { BackgroundLoop } from '../base/backgroundLoop';
import { isWorkerReplaced } from '../base/swappableRemote';
import type { Embedder, EmbedderProvider } from '../base/ports';
import type { SemanticIndex } from './SemanticIndex';
import type { ItemKind, PendingEmbedding, VectorStore } from '../base/store';
import { yieldToEvents } from '../base/yieldToEvents';

/** Kinds besides turns whose vectors a switch rebuilds (the ones the consolidator and lifecycle embed);
 * themes have no vectors of their own, their centroids are rebuilt by `onTargetComplete`. */
const DERIVED_KINDS: readonly ItemKind[] = ['fact', 'memcell'];

/** One kind's share of a switch: items with the new model's vector (or centroid), of all. */
export interface KindProgress {
  readonly done: number;
  readonly total: number;
}

/** A switch's progress by kind, as the Models panel lists it. */
export interface SwitchProgress {
  readonly turns: KindProgress;
  readonly facts: KindProgress;
  readonly episodes: KindProgress;
  readonly themes: KindProgress;
}

/** Passes in a row that a model-worker replacement may cut off before the failure counts. */
const REPLACED_RETRIES = 3;

const KIND_NAMES = { message: 'turns', fact: 'facts', memcell: 'episodes' } as const;

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
  /** During a switch, its progress by kind (turns, facts, episodes: vectors; themes: centroids); else null. */
  readonly kinds: SwitchProgress | null;
}

export const META_ACTIVE = 'embedder.active';
export const META_TARGET = 'embedder.target';

export interface EmbeddingIndexerDeps {
  readonly store: VectorStore;
  readonly embedders: EmbedderProvider;
  readonly index: SemanticIndex;
  readonly onStatus?: (status: EmbeddingStatus) => void;
  readonly batchSize?: number;
  /** The target vector of an item without text of its own (a raw episode: its turns' mean), or null. */
  readonly derived?: (kind: ItemKind, itemId: string, vectorModelId: string, dim: number) => Promise<Float32Array | null>;
  /** Every item has a target vector; runs before the target becomes active (themes' centroids). */
  readonly onTargetComplete?: (vectorModelId: string, dim: number) => Promise<void>;
  /**
   * The target has become active (after the last pass over facts and episodes): themes whose
   * centroid an episode wrote with the old model after `onTargetComplete` rebuilt them.
   */
  readonly onTargetActive?: (vectorModelId: string, dim: number) => Promise<void>;
  /** New turns got the active model's vector during a switch (segmentation may go on). */
  readonly onActiveCaughtUp?: () => void;
  /** How many themes have a centroid of `vectorModelId` (a switch's theme progress); none without. */
  readonly themesWith?: (vectorModelId: string) => Promise<number>;
}

export class EmbeddingIndexer {
  readonly #deps: EmbeddingIndexerDeps;
  readonly #batchSize: number;
  #active: string;
  #target: string;
  #embedded = 0;
  #total = 0;
  /** During a switch, progress by kind (see SwitchProgress); null otherwise. */
  #kinds: { turns: KindProgress; facts: KindProgress; episodes: KindProgress; themes: KindProgress } | null = null;
  #state: EmbeddingStatus['state'] = 'idle';
  #error: ErrorInfo | null = null;
  /** Why the last switch was abandoned; shown until the next switch (embedding itself goes on). */
  #switchError: ErrorInfo | null = null;
  /** Whether vectors of other models have been deleted since open / the last switch. */
  #cleaned = false;
  /** Whether a pass has swept every message for the target since open / the last switch. */
  #swept = false;
  /** Turns arrived since the last pass looked (during a switch they get an active vector first). */
  #fresh = false;
  /** Passes cut off by a model-worker replacement since the last pass that ended well. */
  #replaced = 0;
  /** The warm-up under way after open, or null; until it ends, reads skip vectors (see vectorsReady). */
  #warming: Promise<void> | null = null;
  /**
   * While held (from open until the first search has answered, see hold()), the work that reads
   * the whole memory waits: the vector index load, the first embedding pass and the progress counts.
   * `#onRelease` runs once when the hold ends.
   */
  #held = false;
  #onRelease: (() => void)[] = [];
  /** Set while something asked embedding to wait (a history import: it stores first, see pause()). */
  #paused: { promise: Promise<void>; resume: () => void; count: number } | null = null;
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
    this.#swept = false;
    this.#deps.index.reset();
    this.#activate();
    // Counting reads an index over every turn and vector: after the first search when held.
    if (this.#held) {
      this.#onRelease.push(() => void this.#recount().then(() => this.#emit(), () => undefined)); // the first pass counts again
      return;
    }
    await this.#recount();
    this.#emit();
  }

  /**
   * Holds back the work that grows with the memory (loading the vector index, the first embedding
   * pass, the progress counts) so the first search after open does not queue behind it on the one
   * database connection: at 30,000 turns that work is seconds of reads. The model itself still
   * loads (in the model worker). `release()` ends the hold; `idle()` releases too.
   */
  hold(): void {
    this.#held = true;
  }

  /**
   * Makes embedding wait between batches until the returned function is called (every caller's,
   * when several paused it). A history import stores turns first: on two cores the model worker
   * embedding alongside, and its vectors written on the same connection, halved the import's pace.
   * Progress is kept: the pass resumes where it stopped.
   */
  pause(): () => void {
    if (!this.#paused) {
      let resume = () => undefined as void;
      const promise = new Promise<void>((r) => (resume = r));
      this.#paused = { promise, resume, count: 0 };
    }
    const paused = this.#paused;
    paused.count++;
    let once = false;
    return () => {
      if (once) return;
      once = true;
      if (--paused.count > 0) return;
      if (this.#paused === paused) this.#paused = null;
      paused.resume();
    };
  }

  async #whilePaused(): Promise<void> {
    while (this.#paused) await this.#paused.promise;
  }

  /** Starts what hold() kept back (once; later calls do nothing). */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    const pending = this.#onRelease;
    this.#onRelease = [];
    for (const run of pending) run();
  }

  /** Tells the model host which model is active (failures show on first use, not here). */
  #activate(): void {
    void this.#deps.embedders.activate?.(this.#active).catch(() => undefined);
  }

  status(): EmbeddingStatus {
    return {
      activeModel: this.#active, targetModel: this.#target, embedded: this.#embedded, total: this.#total, state: this.#state,
      error: this.#error ?? this.#switchError, kinds: this.#kinds && this.#target !== this.#active ? { ...this.#kinds } : null,
    };
  }

  /** The embedder whose vectors retrieval uses now. */
  activeEmbedder(): Embedder {
    return this.#deps.embedders.embedder(this.#active);
  }

  /**
   * Gets the first search ready while the app opens: the active model loads (its first embed, in
   * the model worker) while the message vector index loads from the database, instead of both
   * waiting for the first question one after the other. Never rejects: a model that is not on
   * this device reports itself on first use.
   */
  warmUp(): Promise<void> {
    const embedder = this.activeEmbedder();
    const model = embedder.embed(['warm up'], 'query').then(() => undefined, () => undefined);
    const preload = () => this.#deps.index.preload(embedder.id, embedder.dim).catch(() => undefined);
    const index = this.#held ? new Promise<void>((resolve) => this.#onRelease.push(() => void preload().then(resolve))) : preload();
    const warming = Promise.all([model, index]).then(() => {
      if (this.#warming === warming) this.#warming = null;
    });
    this.#warming = warming;
    return warming;
  }

  /**
   * False while the model and the vector index are still loading after open. The first question
   * of the day must not wait for that (seconds on a cold start, more for a downloaded model):
   * recall answers from keywords meanwhile and adds vectors once they are ready.
   */
  vectorsReady(): boolean {
    return this.#warming === null;
  }

  /** Starts (or continues) embedding whatever is missing. Never throws; failures land in status(). */
  kick(): void {
    this.#fresh = true;
    if (this.#held) {
      if (!this.#onRelease.includes(this.#kickLater)) this.#onRelease.push(this.#kickLater);
      return;
    }
    this.#loopRunner.kick();
  }

  readonly #kickLater = () => this.#loopRunner.kick();

  /** Resolves when no embedding work is running (tests, benchmark ingest); ends a hold. */
  async idle(): Promise<void> {
    this.release();
    await this.#warming;
    await this.#loopRunner.idle();
  }

  /** Switches the embedder: re-embeds everything in the background, then makes it active. */
  async setTarget(modelId: string): Promise<EmbeddingStatus> {
    this.#deps.embedders.embedder(modelId); // throws for an unknown model before anything changes
    this.#target = modelId;
    this.#swept = false;
    this.#switchError = null;
    this.#replaced = 0;
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

  /** Whether this build has the model (an imported file may name one it lacks). */
  knows(modelId: string): boolean {
    return this.#known(modelId);
  }

  #known(modelId: string): boolean {
    try {
      this.#deps.embedders.embedder(modelId);
      return true;
    } catch { // the provider throws for a model id it does not know
      return false;
    }
  }

  async #recount(): Promise<void> {
    const { store, embedders } = this.#deps;
    const target = embedders.embedder(this.#target).id;
    this.#total = await store.countItems('message');
    this.#embedded = await store.countVectors('message', target);
    if (this.#target === this.#active) {
      this.#kinds = null;
      return;
    }
    // During a switch the bar also counts the other kinds: those the active model has vectors for.
    const active = embedders.embedder(this.#active).id;
    const kinds = { turns: { done: this.#embedded, total: this.#total }, facts: { done: 0, total: 0 }, episodes: { done: 0, total: 0 }, themes: { done: 0, total: 0 } };
    for (const kind of DERIVED_KINDS) {
      const have = await store.countVectors(kind, active);
      const done = Math.min(have, await store.countVectors(kind, target));
      kinds[KIND_NAMES[kind as 'fact' | 'memcell']] = { done, total: have };
      this.#total += have;
      this.#embedded += done;
    }
    if (this.#deps.themesWith) {
      const done = await this.#deps.themesWith(target);
      kinds.themes = { done, total: done + (await this.#deps.themesWith(active)) };
    }
    this.#kinds = kinds;
  }

  /** Counts `n` more items of `kind` done for the target (during a switch). */
  #advance(kind: ItemKind, n: number): void {
    this.#embedded += n;
    const name = KIND_NAMES[kind as keyof typeof KIND_NAMES];
    if (this.#kinds && name) {
      const k = this.#kinds[name];
      this.#kinds[name] = { done: k.done + n, total: Math.max(k.total, k.done + n) };
    }
  }

  /**
   * One pass: embeds every message that lacks a target vector, oldest first.
   *
   * The first pass after open, import or a model switch sweeps every message. Later passes (one
   * per appended batch in the app) start at the oldest of the newest missing turns — how many
   * are missing comes from two counts — instead of probing every embedded turn again (≈150 ms
   * per pass at 50,000 turns, measured in Node); if the counts still disagree afterwards, a full
   * sweep follows, so nothing older is ever left behind.
   */
  async #loop(): Promise<void> {
    const { store, embedders, index } = this.#deps;
    let targetFailed = false;
    const switchingAtStart = this.#target !== this.#active;
    try {
      this.#state = 'running';
      this.#error = null;
      const target = this.#target;
      const embedder = switchingAtStart ? watched(embedders.embedder(target), () => { targetFailed = true; }) : embedders.embedder(target);
      const switching = target !== this.#active;
      if (switching && !(await this.#catchUpActive(target))) return;
      const tail = this.#swept;
      if (!(await this.#sweep(embedder, target, target, tail ? await this.#tailStart(embedder.id) : undefined))) return;
      await this.#recount();
      if (tail && this.#embedded < this.#total && !switching) {
        if (!(await this.#sweep(embedder, target, target, undefined))) return;
        await this.#recount();
      }
      let previous: string | null = null;
      if (switching) {
        if (!(await this.#reembedKinds(embedder, target, embedders.embedder(this.#active).id))) return;
        await this.#deps.onTargetComplete?.(embedder.id, embedder.dim);
        previous = embedders.embedder(this.#active).id;
        if (this.#kinds) this.#kinds.themes = { done: this.#kinds.themes.total, total: this.#kinds.themes.total };
      }
      if (target !== this.#target) return; // switched meanwhile: setTarget kicked a pass for the new one
      this.#swept = true;
      if (this.#target !== this.#active) {
        this.#active = this.#target;
        await store.setMeta(META_ACTIVE, this.#active);
        index.reset();
        this.#cleaned = false;
        this.#activate();
        // Facts and episodes written with the old model after the pass above looked at them: from
        // here on writers use the new model, so one more pass leaves none behind.
        if (previous && !(await this.#reembedKinds(embedder, target, previous))) return;
        await this.#deps.onTargetActive?.(embedder.id, embedder.dim);
      }
      // Another model's vectors (and vectors of items that no longer exist) go once per switch and
      // once per open: the delete reads every vector row, too costly for every pass.
      if (!this.#cleaned) {
        // 'memscene': theme summary vectors of older versions, no longer written or read.
        for (const kind of ['message', ...DERIVED_KINDS, 'memscene'] as const) await store.deleteOtherVectors(kind, kind === 'memscene' ? '' : embedder.id);
        this.#cleaned = true;
        await this.#recount();
      }
      this.#state = 'idle';
      this.#replaced = 0;
    } catch (err) {
      this.#swept = false;
      // Stopped (the engine closes or restarts): a call cut off by that is no verdict on the model,
      // and abandoning here would write the old model back as the target and lose the switch.
      if (this.#loopRunner.stopped) return;
      if (isWorkerReplaced(err) && this.#replaced < REPLACED_RETRIES) {
        // The model worker was replaced under this pass: ask the new one (the loop runs it again).
        this.#replaced++;
        this.#state = 'idle';
        this.#emit();
        this.#loopRunner.kick();
        return;
      }
      if (targetFailed && this.#target !== this.#active) {
        await this.#abandonSwitch(err).catch(() => undefined);
      } else {
        this.#state = 'error';
        this.#error = toErrorInfo(err);
      }
    }
    this.#emit();
  }

  /** The target model failed: go back to the active one, say why, and do not try it again. */
  async #abandonSwitch(err: unknown): Promise<void> {
    const failed = this.#target;
    const info = toErrorInfo(err);
    this.#target = this.#active;
    await this.#deps.store.setMeta(META_TARGET, this.#active);
    this.#cleaned = false; // the failed model's partial vectors go on the next pass
    this.#state = 'idle';
    this.#switchError = toErrorInfo(new RecollectError(info.code, `Switching to "${failed}" failed, so search keeps using "${this.#active}". ${info.message}`, info.detail));
    await this.#recount();
    this.kick();
  }

  /** During a switch: turns without the active model's vector (new ones) get it first. */
  async #catchUpActive(target: string): Promise<boolean> {
    this.#fresh = false;
    const active = this.#deps.embedders.embedder(this.#active);
    const ok = await this.#sweep(active, this.#active, target, await this.#tailStart(active.id));
    if (ok) this.#deps.onActiveCaughtUp?.();
    return ok;
  }

  /** Gives facts and episodes that have a `from` vector a target one; false when stopped or switched. */
  async #reembedKinds(embedder: Embedder, target: string, from: string): Promise<boolean> {
    const { store, derived } = this.#deps;
    for (const kind of DERIVED_KINDS) {
      let after: number | undefined;
      for (;;) {
        await yieldToEvents(); // one batch per slice
        if (this.#loopRunner.stopped || target !== this.#target) return false;
        const batch = await store.pendingReembed(kind, from, embedder.id, this.#batchSize, after);
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
        if (this.#target !== this.#active) {
          this.#advance(kind, items.length);
          this.#emit();
        }
      }
    }
    return true;
  }

  /** The cursor a tail pass starts from (see #loop); past the end when nothing is missing. */
  async #tailStart(vectorModelId: string): Promise<number> {
    const { store } = this.#deps;
    const missing = (await store.countItems('message')) - (await store.countVectors('message', vectorModelId));
    if (missing <= 0) return Number.MAX_SAFE_INTEGER;
    return (await store.newestPendingKey('message', vectorModelId, missing)) - 1;
  }

  /**
   * Embeds the missing messages after `after` (all when undefined), reading on from a cursor,
   * and keeps the model busy: while it embeds one batch, the previous batch's vectors are written
   * and the next batch is read (docs/benchmarks.md, "Ingest"). False when stopped or switched meanwhile (the
   * switch kicks a new pass for the new target).
   */
  async #sweep(embedder: Embedder, model: string, target: string, after: number | undefined): Promise<boolean> {
    const { store, index } = this.#deps;
    const read = () => store.pendingEmbeddings('message', embedder.id, this.#batchSize, after);
    const embed = (batch: readonly PendingEmbedding[]) => {
      const vectors = embedder.embed(batch.map((b) => b.text), 'document');
      vectors.catch(() => undefined); // awaited below; meanwhile a rejection must not go unhandled
      return vectors;
    };
    const forTarget = model === target;
    await this.#whilePaused();
    let batch = await read();
    let embedding = batch.length > 0 ? embed(batch) : null;
    while (batch.length > 0 && embedding) {
      const vectors = await embedding;
      // A model in this thread (or one that answered already) settles as a microtask: one batch per slice.
      await yieldToEvents();
      if (this.#loopRunner.stopped || target !== this.#target) return false;
      await this.#whilePaused();
      after = batch[batch.length - 1]!.key;
      const next = await read();
      embedding = next.length > 0 ? embed(next) : null;
      const items = batch.map((b, i) => ({ itemId: b.itemId, vector: vectors[i]! }));
      await store.putVectors('message', embedder.id, items);
      if (model === this.#active) await index.add(embedder.id, items);
      if (forTarget) {
        this.#advance('message', items.length);
        this.#total = Math.max(this.#total, this.#embedded);
        this.#emit();
        // A long switch: turns written meanwhile get the active model's vector between batches.
        if (model !== this.#active && this.#fresh) {
          if (!(await this.#catchUpActive(target))) return false;
        }
      }
      batch = next;
    }
    return true;
  }

  #emit(): void {
    try {
      this.#deps.onStatus?.(this.status());
    } catch {
      /* listeners must not break indexing */
    }
  }
}

/** `embedder` with a callback on any failure: tells a failing target model from other failures. */
function watched(embedder: Embedder, onFailure: () => void): Embedder {
  return {
    id: embedder.id,
    dim: embedder.dim,
    embed: (texts, role) => embedder.embed(texts, role).catch((err: unknown) => {
      onFailure();
      throw err;
    }),
  };
}
