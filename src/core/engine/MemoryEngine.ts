/**
 * The memory engine: the API the UI talks to (through the worker), built from injected
 * capabilities by one assembly (assembleEngine.ts). Its API is grouped by what callers do
 * (engineGroups.ts, declared in src/core/protocol/*.ts): `engine.conversations`, `engine.memory`,
 * `engine.answers`, …, each handing calls to the part that does the work (Conversations,
 * ExplorerService, EngineSettings, AnswerService, the indexer). The engine itself owns events and
 * the background work's start, stop and idle. The write path is capture (EmbeddingIndexer) →
 * episodes (Lifecycle) → synthesis (Consolidator); the read path is the MemoryReader (one query
 * embedding feeds turns, facts and episodes).
 */
import type { EngineApi, EngineEvent } from '../protocol';
import type { AnswersApi } from '../protocol/answers';
import type { ConversationsApi } from '../protocol/conversations';
import type { DataApi } from '../protocol/data';
import type { IndexingApi } from '../protocol/indexing';
import type { MemoryApi } from '../protocol/memory';
import type { PlansApi } from '../protocol/plans';
import type { ProfileApi } from '../protocol/profile';
import type { ProjectsApi } from '../protocol/projects';
import type { SettingsApi } from '../protocol/settings';
import type { SynthesisApi } from '../protocol/synthesis';
import type { SyncApi } from '../protocol/sync';
import type { Llm, LlmCallSink } from '../base/ports';
import type { ContextParts } from '../recall/answerContext';
import { replaceFromFile } from './replaceFromFile';
import { assembleEngine, type EngineParts } from './assembleEngine';
import type { EngineListener, MemoryEngineDeps } from './engineDeps';
import {
  answersGroup,
  conversationsGroup,
  dataGroup,
  indexingGroup,
  memoryGroup,
  plansGroup,
  profileGroup,
  projectsGroup,
  settingsGroup,
  synthesisGroup,
  syncGroup,
  type EngineHooks,
} from './engineGroups';

export type { EngineListener, MemoryEngineDeps, VectorSearch } from './engineDeps';

/**
 * How long after open the reads that grow with the memory wait for a first search before they
 * start anyway (the app's first question usually comes later; a search ends the wait at once).
 */
export const START_HOLD_MS = 3_000;

export class MemoryEngine implements EngineApi {
  /** Every part, built once in dependency order (assembleEngine.ts); the engine only delegates to them. */
  readonly #p: EngineParts;
  readonly #listeners = new Set<EngineListener>();
  /** Ends the open's hold on background reads if no search came first (see #start). */
  #holdTimeout: { cancel(): void } | null = null;
  /** The turn-index queue's first look (it counts every turn) waits for the hold too. */
  #trailingHeld = false;
  #indexerReady: Promise<void> | null = null;
  /** The saved endpoint read at start (answers wait for it). */
  #llmReady: Promise<void> | null = null;
  /** The settings kept in the database read at start (the time zone waits for it). */
  #settingsReady: Promise<void> | null = null;

  readonly conversations: ConversationsApi;
  readonly projects: ProjectsApi;
  readonly answers: AnswersApi;
  readonly memory: MemoryApi;
  readonly profile: ProfileApi;
  readonly plans: PlansApi;
  readonly synthesis: SynthesisApi;
  readonly indexing: IndexingApi;
  readonly data: DataApi;
  readonly settings: SettingsApi;
  readonly sync: SyncApi;

  constructor(deps: MemoryEngineDeps) {
    const p = assembleEngine(deps, { emit: (event) => this.#emit(event) });
    this.#p = p;
    const hooks: EngineHooks = {
      releaseHold: () => this.#releaseHold(),
      llmReady: async () => this.#llmReady ?? undefined,
      indexerReady: async () => this.#indexerReady ?? undefined,
      settingsReady: async () => this.#settingsReady ?? undefined,
      emit: (event) => this.#emit(event),
      importDatabase: (bytes) =>
        replaceFromFile(p, bytes, { emit: (event) => this.#emit(event), start: (beforeWork) => this.#start(beforeWork, false) }),
    };
    this.conversations = conversationsGroup(p);
    this.projects = projectsGroup(p);
    this.answers = answersGroup(p, hooks);
    this.memory = memoryGroup(p);
    this.profile = profileGroup(p);
    this.plans = plansGroup(p);
    this.synthesis = synthesisGroup(p);
    this.indexing = indexingGroup(p);
    this.data = dataGroup(p, hooks);
    this.settings = settingsGroup(p, hooks);
    this.sync = syncGroup(p);
  }

  /** What an answer to `question` reads from memory, without asking the endpoint (AnswerService.context). */
  answerContext(question: string, options: { readonly now?: number } = {}): Promise<ContextParts> {
    return this.#p.answers.context(question, options).finally(() => this.#releaseHold());
  }
  /** An answer used these turns: visits, heat, and synthesis of raw episodes per the policy. */
  noteRetrieved(messageIds: readonly string[]): Promise<void> {
    return this.#p.lifecycle.onRetrieved(messageIds);
  }

  /** Sets (or clears) the LLM endpoint used for synthesis; paused work resumes. */
  setLlm(llm: Llm | null): void {
    this.#p.llm.useEndpoint(llm);
  }

  /**
   * A model on this device answers, titles and synthesises instead of the endpoint (null: the
   * endpoint again). `make` gets the engine's ledger, so its calls are counted like the endpoint's.
   */
  useDeviceLlm(make: ((sink: LlmCallSink | null) => Llm) | null): void {
    this.#p.llm.useDevice(make);
  }

  // ---- background work ------------------------------------------------------------------------

  /** Starts on the current database, resuming background work left from an earlier session; `beforeWork` runs once settings are read, before any background work. */
  start(beforeWork?: () => Promise<void>): Promise<void> {
    return this.#start(beforeWork, true);
  }
  /** `holdReads`: false after an import, whose start-up must read everything before it is kept (importMemory.ts). */
  async #start(beforeWork: (() => Promise<void>) | undefined, holdReads: boolean): Promise<void> {
    // Set before the first await: a search that arrives while the database's models are being
    // read waits for them instead of embedding with the default model.
    const indexer = this.#p.indexer;
    // The first search after open goes before the reads that grow with the memory (vector index,
    // first embedding pass, counts: seconds at 30,000 turns on a cold file). They start when that
    // search has answered, when someone waits for idle(), or after START_HOLD_MS without a search.
    this.#holdTimeout?.cancel();
    this.#holdTimeout = null;
    this.#trailingHeld = holdReads;
    if (indexer && holdReads) {
      indexer.hold();
      this.#holdTimeout = this.#p.timer(() => this.#releaseHold(), START_HOLD_MS);
    } else indexer?.release();
    this.#llmReady = this.#p.settings.loadLlm();
    this.#settingsReady = this.#llmReady.then(() => this.#p.settings.load());
    this.#indexerReady = this.#settingsReady.then(async () => {
      if (beforeWork) await beforeWork();
      await indexer?.init();
    });
    await this.#indexerReady;
    if (this.#p.indexer) {
      void this.#p.indexer.warmUp();
      this.#p.indexer.kick();
    } else this.#p.lifecycle.kick();
    // An import cut short by a reload left turns waiting for the turn index; looking counts every
    // turn (≈ 0.1 s on a cold 100k-turn file), so while held it waits for the first search too.
    if (!this.#trailingHeld) this.#p.trailing.kick();
    else if (!this.#holdTimeout) this.#holdTimeout = this.#p.timer(() => this.#releaseHold(), START_HOLD_MS);
    await this.#p.consolidator.start();
    this.#p.upkeep.start();
    await this.#p.sync?.start(); // resumes only when this device kept a phrase (off: reads one setting)
  }

  #releaseHold(): void {
    this.#holdTimeout?.cancel();
    this.#holdTimeout = null;
    this.#p.indexer?.release();
    if (this.#trailingHeld) {
      this.#trailingHeld = false;
      this.#p.trailing.kick();
    }
  }

  /** Stops background work (the database is about to close). */
  stop(): void {
    this.#holdTimeout?.cancel();
    this.#holdTimeout = null;
    this.#trailingHeld = false;
    this.#p.indexer?.stop();
    this.#p.trailing.stop();
    this.#p.lifecycle.stop();
    this.#p.consolidator.runner.stop();
    this.#p.consolidator.recovery.stop();
    this.#p.upkeep.stop();
    this.#p.sync?.stop();
  }

  /**
   * Resolves when background embedding, segmentation, due consolidation jobs and the work after
   * stored answers (titles) have caught up (tests, benchmark ingest). Jobs waiting for a backoff or a paused endpoint are not waited for.
   */
  idle(): Promise<void> {
    return this.#idle();
  }
  async #idle(): Promise<void> {
    this.#releaseHold(); // whoever waits for idle waits for the held reads too
    for (let round = 0; round < 100; round++) {
      await this.#p.answers.idle();
      await this.#p.upkeep.idle();
      await this.#p.trailing.idle();
      await this.#p.indexer?.idle();
      await this.#p.lifecycle.idle();
      await this.#p.consolidator.recovery.idle();
      await this.#p.consolidator.runner.idle();
      const busy =
        this.#p.indexer?.status().state === 'running' || this.#p.consolidator.runner.status().running || this.#p.consolidator.recovery.busy;
      if (!busy) return;
    }
  }
  /**
   * Closes every open MemCell once background work has caught up, through the upkeep's idle close
   * (the end of a bulk ingest: benchmarks, the e2e fixture memory, tests). Returns how many closed.
   */
  async closeOpenCells(): Promise<number> {
    await this.#idle();
    return this.#p.lifecycle.closeIdle({ all: true });
  }
  on(listener: EngineListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: EngineEvent): void {
    // New facts and narratives were embedded by the consolidator: reload those indexes lazily.
    if (event.type === 'memory-changed' || event.type === 'database-replaced') {
      this.#p.factIndex.reset();
      this.#p.cellIndex.reset();
    }
    // Deleted means gone: the stored summary drops what cited a deleted item (or a chat now walled off).
    if (
      event.type !== 'embedding-status' &&
      event.type !== 'indexing-status' &&
      event.type !== 'settings-changed' &&
      event.type !== 'sync-status'
    )
      this.#p.summaries.changed();
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        /* a broken listener must not break a write that already committed */
      }
    }
  }
}
