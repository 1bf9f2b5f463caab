/**
 * Embeds stored turns in the background, resumably: the work list is simply "messages with no
 * vector for the target model", recomputed from the database, so a closed tab or a crashed model
 * resumes where it stopped on the next open. One background loop runs every pass; an embedder
 * switch (EmbedderSwitch: the active and target models, the steps of a switch) runs inside it.
 *
 * After a switch and once per open, other models' vectors (and vectors of items that no longer
 * exist) are deleted. A call cut off because the model worker was replaced (another model broke
 * its runtime) is no verdict on the model: the pass runs again on the new worker, a switch goes
 * on (a few times in a row at most, then it counts as a failure).
 */
import { toErrorInfo, type ErrorInfo } from '../base/errors';
import { BackgroundLoop } from '../base/backgroundLoop';
import { isWorkerReplaced } from '../base/swappableRemote';
import type { Embedder, EmbedderProvider } from '../base/ports';
import type { SemanticIndex } from './SemanticIndex';
import type { ItemKind, VectorStore } from '../base/store';
import { HoldGate } from '../base/holdGate';
import { PauseGate } from '../base/pauseGate';
import { sweepTurns, tailStart } from './sweepTurns';
import { DERIVED_KINDS, EmbedderSwitch, watched, type EmbedderSwitchDeps } from './EmbedderSwitch';
import type { EmbeddingStatus } from './embeddingStatus';

/** Passes in a row that a model-worker replacement may cut off before the failure counts. */
const REPLACED_RETRIES = 3;

export interface EmbeddingIndexerDeps extends Omit<EmbedderSwitchDeps, 'batchSize'> {
  readonly store: VectorStore;
  readonly embedders: EmbedderProvider;
  readonly index: SemanticIndex;
  readonly onStatus?: (status: EmbeddingStatus) => void;
  readonly batchSize?: number;
}

export class EmbeddingIndexer {
  readonly #deps: EmbeddingIndexerDeps;
  readonly #batchSize: number;
  readonly #switch: EmbedderSwitch;
  #embedded = 0;
  #total = 0;
  #state: EmbeddingStatus['state'] = 'idle';
  #error: ErrorInfo | null = null;
  /** Whether vectors of other models have been deleted since open / the last switch. */
  #cleaned = false;
  /** Whether a pass has swept every message for the target since open / the last switch. */
  #swept = false;
  /** Passes cut off by a model-worker replacement since the last pass that ended well. */
  #replaced = 0;
  /** The warm-up under way after open, or null; until it ends, reads skip vectors (see vectorsReady). */
  #warming: Promise<void> | null = null;
  /**
   * While held (from open until the first search has answered, see hold()), the work that reads
   * the whole memory waits: the vector index load, the first embedding pass and the progress counts.
   */
  readonly #hold = new HoldGate();
  /** Holds embedding between batches while something asked it to wait (a history import, see pause()). */
  readonly #pause = new PauseGate();
  readonly #loopRunner = new BackgroundLoop(() => this.#loop(), () => this.#state !== 'error');

  constructor(deps: EmbeddingIndexerDeps) {
    this.#deps = deps;
    this.#batchSize = deps.batchSize ?? 32;
    this.#switch = new EmbedderSwitch({ ...deps, batchSize: this.#batchSize }, {
      sweep: (embedder, model, target, after) => this.#sweep(embedder, model, target, after),
      tailStart: (vectorModelId) => tailStart(this.#deps.store, vectorModelId),
      advance: (kind, n) => {
        this.#advance(kind, n);
        this.#emit();
      },
      stopped: () => this.#loopRunner.stopped,
    });
  }

  /** Reads the models from `meta` (choosing the default for a new database) and counts progress. */
  async init(): Promise<void> {
    await this.#switch.init();
    this.#cleaned = false;
    this.#swept = false;
    this.#deps.index.reset();
    this.#activate();
    // Counting reads an index over every turn and vector: after the first search when held.
    if (this.#hold.held) {
      this.#hold.later(() => void this.#recount().then(() => this.#emit(), () => undefined)); // the first pass counts again
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
    this.#hold.hold();
  }

  /**
   * Makes embedding wait between batches until the returned function is called (every caller's,
   * when several paused it). A history import stores turns first: on two cores the model worker
   * embedding alongside, and its vectors written on the same connection, halved the import's pace.
   * Progress is kept: the pass resumes where it stopped.
   */
  pause(): () => void {
    return this.#pause.pause();
  }

  /** Starts what hold() kept back (once; later calls do nothing). */
  release(): void {
    this.#hold.release();
  }

  /** Tells the model host which model is active (failures show on first use, not here). */
  #activate(): void {
    void this.#deps.embedders.activate?.(this.#switch.active).catch(() => undefined);
  }

  status(): EmbeddingStatus {
    const sw = this.#switch;
    return {
      activeModel: sw.active, targetModel: sw.target, embedded: this.#embedded, total: this.#total, state: this.#state,
      error: this.#error ?? sw.error, kinds: sw.progress,
    };
  }

  /** The embedder whose vectors retrieval uses now. */
  activeEmbedder(): Embedder {
    return this.#deps.embedders.embedder(this.#switch.active);
  }

  /**
   * Whether the active model is failing (embedding stopped on it, or a switch away from it found it
   * failing): searches answer without vectors rather than ask it again.
   */
  activeFails(): boolean {
    return this.#state === 'error' || this.#switch.activeFails;
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
    const index = new Promise<void>((resolve) => this.#hold.later(() => void preload().then(resolve)));
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
    this.#switch.turnsArrived();
    this.#hold.later(this.#kickLoop);
  }

  readonly #kickLoop = () => this.#loopRunner.kick();

  /** Resolves when no embedding work is running (tests, benchmark ingest); ends a hold. */
  async idle(): Promise<void> {
    this.release();
    await this.#warming;
    await this.#loopRunner.idle();
  }

  /** Switches the embedder: re-embeds everything in the background, then makes it active. */
  async setTarget(modelId: string): Promise<EmbeddingStatus> {
    this.#deps.embedders.embedder(modelId); // throws for an unknown model before anything changes
    this.#swept = false;
    this.#replaced = 0;
    await this.#switch.choose(modelId);
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
    return this.#switch.knows(modelId);
  }

  async #recount(): Promise<void> {
    const { store, embedders } = this.#deps;
    const target = embedders.embedder(this.#switch.target).id;
    this.#total = await store.countItems('message');
    this.#embedded = await store.countVectors('message', target);
    // During a switch the bar also counts the other kinds: those the active model has vectors for.
    const others = await this.#switch.recount({ done: this.#embedded, total: this.#total });
    this.#total += others.total;
    this.#embedded += others.done;
  }

  /** Counts `n` more items of `kind` done for the target (during a switch). */
  #advance(kind: ItemKind, n: number): void {
    this.#embedded += n;
    this.#switch.advance(kind, n);
  }

  /**
   * One pass: embeds every message that lacks a target vector, oldest first; during a switch, the
   * switch's steps around that (EmbedderSwitch).
   *
   * The first pass after open, import or a model switch sweeps every message. Later passes (one
   * per appended batch in the app) start at the oldest of the newest missing turns — how many
   * are missing comes from two counts — instead of probing every embedded turn again (≈150 ms
   * per pass at 50,000 turns, measured in Node); if the counts still disagree afterwards, a full
   * sweep follows, so nothing older is ever left behind.
   */
  async #loop(): Promise<void> {
    const sw = this.#switch;
    let modelFailed = false;
    const switching = sw.switching;
    const target = sw.target;
    try {
      this.#state = 'running';
      this.#error = null;
      const embedder = watched(this.#deps.embedders.embedder(target), () => { modelFailed = true; });
      if (switching && !(await sw.catchUp(target))) return;
      const tail = this.#swept;
      if (!(await this.#sweep(embedder, target, target, tail ? await tailStart(this.#deps.store, embedder.id) : undefined))) return;
      await this.#recount();
      if (tail && this.#embedded < this.#total && !switching) {
        if (!(await this.#sweep(embedder, target, target, undefined))) return;
        await this.#recount();
      }
      if (switching && !(await sw.complete(embedder, target))) return;
      if (target !== sw.target) return; // switched meanwhile: setTarget kicked a pass for the new one
      this.#swept = true;
      if (switching) {
        const previous = await sw.promote();
        this.#deps.index.reset();
        this.#cleaned = false;
        this.#activate();
        if (!(await sw.settle(embedder, target, previous))) return;
      }
      if (!this.#cleaned) await this.#clean(embedder.id);
      this.#state = 'idle';
      this.#replaced = 0;
      sw.activeFailed(false); // the active model embedded this pass (or had nothing to do)
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
      if (modelFailed && !switching) sw.activeFailed(true);
      if (target !== sw.target) {
        // The person chose another model while this pass ran (say, away from the one failing here):
        // the failure is no verdict on that choice, whose pass follows (kicked by setTarget).
        this.#state = 'idle';
      } else if (modelFailed && switching) {
        await this.#abandonSwitch(err).catch(() => undefined);
      } else {
        this.#state = 'error';
        this.#error = toErrorInfo(err);
      }
    }
    this.#emit();
  }

  /**
   * Deletes another model's vectors (and vectors of items that no longer exist): once per switch
   * and once per open, as the delete reads every vector row, too costly for every pass.
   */
  async #clean(vectorModelId: string): Promise<void> {
    // 'memscene': theme summary vectors of older versions, no longer written or read.
    for (const kind of ['message', ...DERIVED_KINDS, 'memscene'] as const) await this.#deps.store.deleteOtherVectors(kind, kind === 'memscene' ? '' : vectorModelId);
    this.#cleaned = true;
    await this.#recount();
  }

  /** The target model failed: the switch goes back to the active one, which keeps embedding. */
  async #abandonSwitch(err: unknown): Promise<void> {
    await this.#switch.abandon(err);
    this.#cleaned = false; // the failed model's partial vectors go on the next pass
    this.#state = 'idle';
    await this.#recount();
    this.kick();
  }

  /**
   * Sweeps the turns missing a vector of `embedder` (sweepTurns). For the target, it counts
   * progress, and during a switch gives turns written meanwhile the active model's vector between
   * batches. False when stopped or switched meanwhile (the switch kicks a new pass for the new target).
   */
  #sweep(embedder: Embedder, model: string, target: string, after: number | undefined): Promise<boolean> {
    const sw = this.#switch;
    const { store, index } = this.#deps;
    return sweepTurns({ store, index, batchSize: this.#batchSize, pause: this.#pause }, embedder, after, {
      cancelled: () => this.#loopRunner.stopped || target !== sw.target,
      indexed: () => model === sw.active,
      ...(model === target ? {
        stored: async (n: number) => {
          this.#advance('message', n);
          this.#total = Math.max(this.#total, this.#embedded);
          this.#emit();
          return model === sw.active || sw.catchUpIfFresh(target);
        },
      } : {}),
    });
  }

  #emit(): void {
    try {
      this.#deps.onStatus?.(this.status());
    } catch {
      /* listeners must not break indexing */
    }
  }
}
