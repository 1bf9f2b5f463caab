/**
 * The memory engine: the API the UI talks to (through the worker), built from injected
 * capabilities. It owns conversations, turns, engine events and the background work's start, stop
 * and idle; it delegates the memory explorer (ExplorerService), settings (EngineSettings) and
 * answering (AnswerService). The write path is capture (EmbeddingIndexer) → episodes (Lifecycle) →
 * synthesis (Consolidator); the read path is the MemoryReader (one query embedding feeds turns, facts and episodes).
 */
import { readGlobalMemory, switchedAnswerSource, writeGlobalMemory, type GlobalMemory } from './globalMemory';
import { dominantLanguage, LANGUAGE_NAMES, type WritingLanguage } from '../base/language';
import type { TimeZoneSetting, AnswerSettings, AskEvent, AskRequest, AskResult, SendRequest, ConsolidationStatus, EngineApi, EngineEvent, RecallOptions, StageUsage } from '../protocol';
import type { MemoryStore, SearchOptions, VectorStore } from '../base/store';
import type { AppendResult, Conversation, ConversationMemory, ImportSummary, Message, NewTurn, SearchHit, StorageStats } from '../base/types';
import { systemClock, type Embedder, type Llm, type LlmCallSink, type LlmConnectionTest } from '../base/ports';
import { RecollectError } from '../base/errors';
import { newId } from '../base/ids';
import { platformTimer, type JobStore, type Timer } from '../base/jobs';
import type { LlmSettingsInput, LlmSettingsView } from '../base/settings';
import type { EmbeddingIndexer, EmbeddingStatus } from '../capture/EmbeddingIndexer';
import { SemanticIndex } from '../capture/SemanticIndex';
import type { ActiveVectors, Lifecycle } from '../episodes/Lifecycle';
import type { PolicyName } from '../episodes/consolidationPolicy';
import type { Consolidator } from '../synthesis/Consolidator';
import type { RetrievalResult } from '../recall/Retriever';
import { MemoryReader } from '../recall/MemoryReader';
import { nearestTurns } from '../recall/nearestTurns';
import type {
  FactPage, FactQuery, FactView, ForgetCandidate, ForgetKind, ForgetResult, MemCellDetail, MemCellPage, MemCellQuery, MemoryOverview,
  MemorySearchFilters, MemorySearchHit, ProfileItemView, SceneMap, SceneView, ForesightPage, ForesightQuery,
} from '../explorer/explorer';
import { ExplorerService } from '../explorer/ExplorerService';
import { SavedMemories } from './savedMemories';
import { ConversationMemorySwitches } from './conversationMemory';
import { Conversations } from './Conversations';
import type { ForesightItem, ProfileItem } from '../synthesis/knowledge';
import { EngineSettings, withAnsweredHook } from './EngineSettings';
import { EpisodeTally, estimateSynthesis } from '../synthesis/synthesisEstimate';
import type { EpisodeStore } from '../episodes/episodes';
import { AnswerService } from './AnswerService';
import { buildWritePath } from './writePath';
import { EngineUpkeep } from './EngineUpkeep';
import type { HistoryFile, HistoryImportReport, HistoryProgress, HistoryRequest, HistoryScan } from '../base/historyImport';
import { HistoryImports } from './historyImport';
import { TrailingIndex, type IndexingStatus } from './trailingIndex';
import { importMemory } from './importMemory';
import type { EngineListener, MemoryEngineDeps } from './engineDeps';

export type { EngineListener, MemoryEngineDeps, VectorSearch } from './engineDeps';

/**
 * How long after open the reads that grow with the memory wait for a first search before they
 * start anyway (the app's first question usually comes later; a search ends the wait at once).
 */
export const START_HOLD_MS = 3_000;

export class MemoryEngine implements EngineApi {
  readonly #store: MemoryStore & VectorStore;
  readonly #episodes: EpisodeStore | null;
  readonly #listeners = new Set<EngineListener>();
  readonly #semantic: SemanticIndex;
  readonly #factIndex: SemanticIndex;
  readonly #cellIndex: SemanticIndex;
  readonly #indexer: EmbeddingIndexer | null;
  readonly #timer: Timer;
  /** Ends the open's hold on background reads if no search came first (see #start). */
  #holdTimeout: { cancel(): void } | null = null;
  #indexerReady: Promise<void> | null = null;
  readonly #lifecycle: Lifecycle | null;
  readonly #consolidator: Consolidator | null;
  readonly #jobs: JobStore | null;
  readonly #reader: MemoryReader | null;
  readonly #settings: EngineSettings;
  readonly #answers: AnswerService;
  readonly #explorer: ExplorerService | null;
  readonly #saved: SavedMemories;
  readonly #conversations: Conversations;
  readonly #upkeep: EngineUpkeep;
  #llm: Llm | null;
  /** The endpoint's client; a model on this device, when chosen, answers instead. */
  #endpointLlm: Llm | null;
  #deviceLlm: Llm | null = null;
  readonly #llmSink: LlmCallSink | null;
  readonly #history: HistoryImports | null;
  /** The indexing a history import leaves to trail it (turn index, vectors, episodes), with one progress figure. */
  readonly #trailing: TrailingIndex;

  constructor(deps: MemoryEngineDeps) {
    this.#episodes = deps.episodes ?? null;
    const clock = deps.clock ?? systemClock;
    const makeId = deps.newId ?? newId;
    this.#store = deps.store;
    this.#llm = deps.llm ?? null;
    this.#endpointLlm = this.#llm;
    this.#jobs = deps.jobs ?? null;
    this.#semantic = new SemanticIndex(deps.store, 'message', deps.vectorIndex);
    this.#factIndex = new SemanticIndex(deps.store, 'fact', deps.vectorIndex);
    this.#cellIndex = new SemanticIndex(deps.store, 'memcell', deps.vectorIndex);
    // A successful call means the endpoint works again: synthesis that failed meanwhile resumes.
    const llmSink = deps.llmSink ? withAnsweredHook(deps.llmSink, () => void this.#consolidator?.endpointAnswered().catch(() => undefined)) : null;
    this.#llmSink = llmSink;
    this.#settings = new EngineSettings({
      meta: deps.store,
      settings: deps.settings ?? null,
      llmFactory: deps.llmFactory ?? null,
      llmSink,
      onLlm: (llm) => this.#useLlm(llm),
      onChange: () => this.#emit({ type: 'settings-changed' }),
      onPolicyChanged: (name) => this.#upkeep.policyChanged(name), ...(deps.platformTimeZone ? { platformTimeZone: deps.platformTimeZone } : {}),
    });
    this.#timer = deps.timer ?? platformTimer;
    ({ indexer: this.#indexer, lifecycle: this.#lifecycle, consolidator: this.#consolidator } = buildWritePath({
      ...deps, clock, timer: deps.timer ?? platformTimer, newId: makeId, semantic: this.#semantic,
    }, {
      llm: () => this.#llm,
      policy: () => this.#settings.policy,
      llmBoundaryCheck: () => this.#settings.llmBoundaryCheck,
      timeZone: () => this.#settings.timeZone,
      activeVectors: () => this.#activeVectors(),
      activeEmbedder: () => this.#activeEmbedder(),
      onEmbeddingStatus: (status) => {
        this.#emit({ type: 'embedding-status', status });
        this.#trailing?.noteEmbedding();
      },
      onMemoryChanged: () => this.#emit({ type: 'memory-changed' }),
    }));
    this.#trailing = new TrailingIndex({
      backlog: () => deps.store.turnIndexBacklog?.() ?? Promise.resolve(0),
      indexSome: (max) => deps.store.indexQueuedTurns?.(max) ?? Promise.resolve(0),
      countTurns: () => deps.store.countItems('message'),
      embedding: () => this.#indexer?.status() ?? null,
      pauseEmbedding: () => this.#indexer?.pause() ?? (() => undefined),
      kickEmbedding: () => (this.#indexer ? this.#indexer.kick() : this.#lifecycle?.kick()),
      episodesBusy: () => this.#lifecycle?.busy ?? false,
      onStatus: (status) => this.#emit({ type: 'indexing-status', status }),
    });
    const switches = new ConversationMemorySwitches({
      store: deps.store, meta: deps.store, onRemembered: () => this.#lifecycle?.kick(), changed: () => this.#emit({ type: 'conversations-changed' }),
    });
    this.#conversations = new Conversations({
      store: deps.store,
      switches,
      semantic: this.#semantic,
      // During a history import episodes wait for it (the trailing index kicks them after).
      written: () => (this.#indexer ? this.#indexer.kick() : this.#trailing.importing ? undefined : this.#lifecycle?.kick()),
      emptied: async (conversationId) => { await this.#explorer?.dropEmptyEpisodes(conversationId); },
      conversationDeleted: () => this.#lifecycle?.reset(),
      // What a deleted turn's episode derived went with it (storage); the policy decides when to derive it again.
      turnsDeleted: () => {
        this.#lifecycle?.reevaluate();
        this.#emit({ type: 'memory-changed' });
      },
      llm: () => this.#llm,
      emit: (event) => this.#emit(event),
    });
    this.#history = deps.historyReader
      ? new HistoryImports({
          reader: deps.historyReader, clock,
          sink: {
            createConversations: (c) => deps.store.createConversations(c), appendTurns: (t) => this.#conversations.append(t, { deferTurnIndex: true }), setConsolidationPolicy: (p) => this.#settings.setPolicy(p),
            storedTurnIds: async (id) => (await deps.store.getConversation(id)) ? new Set((await deps.store.listMessages(id)).map((m) => m.id)) : null,
            discardConversation: (id) => deps.store.deleteConversation(id),
          },
        })
      : null;
    this.#upkeep = new EngineUpkeep({ lifecycle: this.#lifecycle, consolidator: this.#consolidator, jobs: this.#jobs, episodes: deps.episodes ?? null, clock, ...(deps.upkeepTimer ? { timer: deps.upkeepTimer } : {}) });
    this.#reader = deps.retrievalSource
      ? new MemoryReader({
          source: deps.retrievalSource((model, query, k) => this.#semantic.search(model, query.length, query, k)),
          knowledge: deps.knowledgeSource ?? null,
          indexes: { fact: this.#factIndex, episode: this.#cellIndex },
          embedder: () => this.#recallEmbedder(),
          reranker: async () => (await deps.embedders?.activeReranker?.()) ?? null,
          speakers: async () => (await deps.speakers?.()) ?? [],
          notRemembered: () => deps.store.conversationsNotRemembered(),
          clock,
          timeZone: () => this.#settings.timeZone,
        })
      : null;
    const recallSource = this.#reader?.answerSource() ?? null;
    const source = recallSource ? switchedAnswerSource(recallSource, () => readGlobalMemory(deps.store)) : null;
    this.#answers = new AnswerService({
      llm: () => this.#llm, source, clock, timeZone: () => this.#settings.timeZone, settings: () => this.#settings.answerSettings(),
      listMessages: (id) => this.#store.listMessages(id), appendTurn: (turn) => this.#conversations.appendOne(turn), retrieved: async (ids) => { await this.#lifecycle?.onRetrieved(ids); },
      usesMemory: (id) => switches.usesMemory(id),
      answered: (id) => this.#conversations.answered(id),
      vectorsReady: () => this.#indexer?.vectorsReady() ?? true,
    });
    this.#saved = new SavedMemories({ knowledge: deps.knowledge ?? null, clock, newId: makeId, changed: () => this.#emit({ type: 'memory-changed' }) });
    this.#explorer = deps.explorer
      ? new ExplorerService({
          explorer: deps.explorer,
          vectors: deps.store,
          indexes: { turn: this.#semantic, fact: this.#factIndex, episode: this.#cellIndex },
          embedder: () => this.#embedderOrNull(),
          embeddingStatus: () => this.#indexer?.status() ?? null,
          jobs: deps.jobs ?? null,
          episodes: deps.episodes ?? null,
          kickSynthesis: this.#consolidator ? (options) => this.#consolidator!.runner.kick(options) : null,
          resetLifecycle: () => this.#lifecycle?.reset(),
          consolidation: () => this.#consolidationStatus(),
          databaseBytes: async () => (await this.#store.stats()).databaseBytes,
          clock,
          newId: makeId,
          changed: (options) => {
            if (options?.turns) {
              this.#lifecycle?.reevaluate(); // episodes that lost turns are raw again: the policy re-derives them
              this.#emit({ type: 'messages-changed', conversationId: null });
              this.#emit({ type: 'conversations-changed' });
            }
            this.#emit({ type: 'memory-changed' });
          },
        })
      : null;
  }

  /**
   * Hybrid recall over stored turns (BM25 on the turn index, vectors, fusion and boosts): ranked
   * turns with scores and the reasons each was retrieved.
   */
  async recall(query: string, options: RecallOptions = {}): Promise<RetrievalResult> {
    if (!this.#reader) throw new RecollectError('INTERNAL', 'This engine was built without a retrieval source.');
    try {
      return await this.#reader.recall(query, options);
    } finally {
      this.#releaseHold();
    }
  }

  /** The active embedder, or null when there is none (no model worker, a model id we don't know). */
  #activeEmbedder(): Embedder | null {
    try {
      return this.#indexer?.activeEmbedder() ?? null;
    } catch {
      return null;
    }
  }

  /** The active embedder for reading, or null while embedding is failing (callers fall back to text). */
  #embedderOrNull(): Embedder | null { return this.#indexer?.status().state === 'error' ? null : this.#activeEmbedder(); }

  /** The embedder for answering, or null while it warms up after open (recall is lexical meanwhile). */
  #recallEmbedder(): Embedder | null {
    return this.#indexer && !this.#indexer.vectorsReady() ? null : this.#embedderOrNull();
  }

  #activeVectors(): ActiveVectors | null {
    const e = this.#embedderOrNull();
    return e ? { id: e.id, dim: e.dim } : null;
  }

  // ---- delegates: the explorer, settings and answering ----------------------------------------

  #ex(): ExplorerService {
    if (!this.#explorer) throw new RecollectError('INTERNAL', 'This engine was built without the memory explorer.');
    return this.#explorer;
  }

  memoryOverview(): Promise<MemoryOverview> { return this.#ex().memoryOverview(); }
  searchMemory(query: string, filters?: MemorySearchFilters): Promise<MemorySearchHit[]> { return this.#ex().searchMemory(query, filters); }
  listMemCells(query: MemCellQuery): Promise<MemCellPage> { return this.#ex().listMemCells(query); }
  memCell(id: string): Promise<MemCellDetail | null> { return this.#ex().memCell(id); }
  listFacts(query: FactQuery): Promise<FactPage> { return this.#ex().listFacts(query); }
  editMemCell(id: string, patch: { title?: string; narrative?: string }): Promise<MemCellDetail> { return this.#ex().editMemCell(id, patch); }
  editFact(id: string, patch: { content?: string; validFrom?: number | null; validTo?: number | null }): Promise<FactView> { return this.#ex().editFact(id, patch); }
  deleteFact(id: string): Promise<boolean> { return this.#ex().deleteFact(id); }
  deleteMemCell(id: string, options?: { turns?: boolean }): Promise<boolean> { return this.#ex().deleteMemCell(id, options); }
  resynthesiseMemCell(id: string): Promise<void> { return this.#ex().resynthesiseMemCell(id); }
  listScenes(): Promise<SceneView[]> { return this.#ex().listScenes(); }
  sceneMap(): Promise<SceneMap> { return this.#ex().sceneMap(); }
  renameScene(id: string, title: string): Promise<void> { return this.#ex().renameScene(id, title); }
  mergeScenes(targetId: string, sourceIds: readonly string[]): Promise<void> { return this.#ex().mergeScenes(targetId, sourceIds); }
  splitScene(sceneId: string, memcellIds: readonly string[], title?: string): Promise<string> { return this.#ex().splitScene(sceneId, memcellIds, title); }
  listProfile(): Promise<ProfileItemView[]> { return this.#ex().listProfile(); }
  editProfileItem(id: string, value: string): Promise<void> { return this.#ex().editProfileItem(id, value); }
  pinProfileItem(id: string, pinned: boolean): Promise<void> { return this.#ex().pinProfileItem(id, pinned); }
  resolveProfileConflict(id: string, choice: 'keep' | 'accept'): Promise<void> { return this.#ex().resolveProfileConflict(id, choice); }
  deleteProfileItem(id: string): Promise<void> { return this.#ex().deleteProfileItem(id); }
  addMemory(text: string): Promise<ProfileItem> { return this.#saved.add(text); }
  listForesight(): Promise<ForesightItem[]> { return this.#ex().listForesight(); }
  listForesightPage(query: ForesightQuery): Promise<ForesightPage> { return this.#ex().listForesightPage(query); }
  editForesight(id: string, patch: { startAt: number | null; endAt: number | null; content?: string }): Promise<void> { return this.#ex().editForesight(id, patch); }
  dismissForesight(id: string): Promise<void> { return this.#ex().dismissForesight(id); }
  forgetPreview(query: string): Promise<ForgetCandidate[]> { return this.#ex().forgetPreview(query); }
  forget(items: readonly { readonly kind: ForgetKind; readonly id: string }[]): Promise<ForgetResult> { return this.#ex().forget(items); }

  llmSettings(): Promise<LlmSettingsView> { return this.#settings.llmSettings(); }
  saveLlmSettings(input: LlmSettingsInput): Promise<LlmSettingsView> { return this.#settings.saveLlmSettings(input); }
  testLlmConnection(input: LlmSettingsInput): Promise<LlmConnectionTest> { return this.#settings.testLlmConnection(input); }
  listLlmModels(input: LlmSettingsInput): Promise<string[]> { return this.#settings.listLlmModels(input); }
  llmUsage(since?: number): Promise<Record<string, StageUsage>> { return this.#settings.llmUsage(since); }
  answerSettings(): Promise<AnswerSettings> { return this.#settings.answerSettings(); }
  setAnswerSettings(settings: Partial<AnswerSettings>): Promise<AnswerSettings> { return this.#settings.setAnswerSettings(settings); }
  setLlmBoundaryCheck(enabled: boolean): Promise<boolean> { return this.#settings.setLlmBoundaryCheck(enabled); }
  async timeZone(): Promise<TimeZoneSetting> { return this.#settings.timeZoneSetting(); }
  setTimeZone(zone: string | null): Promise<TimeZoneSetting> { return this.#settings.setTimeZone(zone); }
  async consolidationPolicy(): Promise<PolicyName> { return this.#settings.policy; }
  setConsolidationPolicy(name: PolicyName): Promise<PolicyName> { return this.#settings.setPolicy(name); }
  ask(request: AskRequest, onEvent: (event: AskEvent) => void): Promise<AskResult> {
    return this.#answers.ask(request, onEvent).finally(() => this.#releaseHold());
  }
  /** Stops a streaming answer; what was said so far is kept. */
  stopAnswer(answerId: string): Promise<void> { return this.#answers.stop(answerId); }
  /** An answer used these turns: visits, heat, and synthesis of raw episodes per the policy. */
  async noteRetrieved(messageIds: readonly string[]): Promise<void> { await this.#lifecycle?.onRetrieved(messageIds); }

  /** Sets (or clears) the LLM endpoint used for synthesis; paused work resumes. */
  setLlm(llm: Llm | null): void { this.#useLlm(llm); }
  #useLlm(llm: Llm | null): void {
    this.#endpointLlm = llm;
    this.#llm = this.#deviceLlm ?? llm;
    this.#consolidator?.endpointChanged();
  }

  /**
   * A model on this device answers, titles and synthesises instead of the endpoint (null: the
   * endpoint again). `make` gets the engine's ledger, so its calls are counted like the endpoint's.
   */
  useDeviceLlm(make: ((sink: LlmCallSink | null) => Llm) | null): void {
    this.#deviceLlm = make ? make(this.#llmSink) : null;
    this.#llm = this.#deviceLlm ?? this.#endpointLlm;
    this.#consolidator?.endpointChanged();
  }

  consolidationStatus(): Promise<ConsolidationStatus> { return this.#consolidationStatus(); }
  async #consolidationStatus(): Promise<ConsolidationStatus> {
    const runner = this.#consolidator?.runner.status();
    return {
      policy: this.#settings.policy,
      llmBoundaryCheck: this.#settings.llmBoundaryCheck,
      endpointConfigured: this.#llm !== null,
      jobs: this.#jobs ? await this.#jobs.counts() : { pending: 0, scheduled: 0, running: 0, done: 0, failed: 0, cancelled: 0 },
      pausedReason: runner?.pausedUntil ? runner.pauseReason : null,
      lastError: runner?.lastError ? `${runner.lastError.code}: ${runner.lastError.message}` : null,
      backgroundErrors: [
        ...(this.#lifecycle?.lastError ? [`Organising episodes: ${this.#lifecycle.lastError.message}`] : []),
        ...(this.#upkeep.lastError ? [`Closing idle episodes and expiring plans: ${this.#upkeep.lastError.message}`] : []),
      ],
    };
  }

  // ---- background work ------------------------------------------------------------------------

  /** Resumes background work left from an earlier session (embedding, segmentation, upkeep). */
  /** Starts on the current database; `beforeWork` runs once settings are read and before any background work. */
  start(beforeWork?: () => Promise<void>): Promise<void> { return this.#start(beforeWork, true); }
  /** `holdReads`: false after an import, whose start-up must read everything before it is kept (importMemory.ts). */
  async #start(beforeWork: (() => Promise<void>) | undefined, holdReads: boolean): Promise<void> {
    // Set before the first await: a search that arrives while the database's models are being
    // read waits for them instead of embedding with the default model.
    const indexer = this.#indexer;
    // The first search after open goes before the reads that grow with the memory (vector index,
    // first embedding pass, counts: seconds at 30,000 turns on a cold file). They start when that
    // search has answered, when someone waits for idle(), or after START_HOLD_MS without a search.
    this.#holdTimeout?.cancel();
    this.#holdTimeout = null;
    if (indexer && holdReads) {
      indexer.hold();
      this.#holdTimeout = this.#timer(() => this.#releaseHold(), START_HOLD_MS);
    } else indexer?.release();
    this.#indexerReady = this.#settings.loadLlm().then(() => this.#settings.load()).then(async () => {
      if (beforeWork) await beforeWork();
      await indexer?.init();
    });
    await this.#indexerReady;
    if (this.#indexer) {
      void this.#indexer.warmUp();
      this.#indexer.kick();
    } else this.#lifecycle?.kick();
    this.#trailing.kick(); // an import cut short by a reload left turns waiting for the turn index
    await this.#consolidator?.start();
    this.#upkeep.start();
  }

  #releaseHold(): void {
    this.#holdTimeout?.cancel();
    this.#holdTimeout = null;
    this.#indexer?.release();
  }

  /** Stops background work (the database is about to close). */
  stop(): void {
    this.#holdTimeout?.cancel();
    this.#holdTimeout = null;
    this.#indexer?.stop();
    this.#trailing.stop();
    this.#lifecycle?.stop();
    this.#consolidator?.runner.stop();
    this.#upkeep.stop();
  }

  /**
   * Resolves when background embedding, segmentation, due consolidation jobs and the work after
   * stored answers (titles) have caught up (tests, benchmark ingest). Jobs waiting for a backoff or a paused endpoint are not waited for.
   */
  idle(): Promise<void> { return this.#idle(); }
  async #idle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await this.#answers.idle();
      await this.#upkeep.idle();
      await this.#trailing.idle();
      await this.#indexer?.idle();
      await this.#lifecycle?.idle();
      await this.#consolidator?.runner.idle();
      const busy = (this.#indexer?.status().state === 'running') || this.#consolidator?.runner.status().running;
      if (!busy) return;
    }
  }
  /** Closes every open MemCell (end of a benchmark ingest or of a bulk import). */
  async closeOpenCells(): Promise<number> {
    await this.#idle();
    return (await this.#lifecycle?.closeIdleCells(0)) ?? 0;
  }
  on(listener: EngineListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: EngineEvent): void {
    // New facts and narratives were embedded by the consolidator: reload those indexes lazily.
    if (event.type === 'memory-changed' || event.type === 'database-replaced') {
      this.#factIndex?.reset();
      this.#cellIndex?.reset();
    }
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        /* a broken listener must not break a write that already committed */
      }
    }
  }

  // Conversations and turns: the Conversations service is their only writer.
  createConversation(input: { id?: string; title: string } & Partial<ConversationMemory>): Promise<Conversation> { return this.#conversations.create(input); }
  setConversationMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation> { return this.#conversations.setMemory(id, patch); }
  memoryDefaults(): Promise<ConversationMemory> { return this.#conversations.memoryDefaults(); }
  setMemoryDefaults(patch: Partial<ConversationMemory>): Promise<ConversationMemory> { return this.#conversations.setMemoryDefaults(patch); }
  renameConversation(id: string, title: string): Promise<Conversation> { return this.#conversations.rename(id, title); }
  deleteConversation(id: string): Promise<void> { return this.#conversations.delete(id); }
  listConversations(): Promise<Conversation[]> { return this.#conversations.list(); }
  appendTurns(turns: readonly NewTurn[]): Promise<AppendResult[]> { return this.#conversations.append(turns); }
  appendTurn(turn: NewTurn): Promise<AppendResult> { return this.#conversations.appendOne(turn); }
  send(request: SendRequest): Promise<Message> { return this.#conversations.send(request); }
  listMessages(conversationId: string): Promise<Message[]> { return this.#conversations.messages(conversationId); }
  deleteMessage(id: string): Promise<boolean> { return this.#conversations.deleteMessage(id); }
  /** "Use saved memories" and "use chat history" for every answer (globalMemory.ts). */
  globalMemory(): Promise<GlobalMemory> { return readGlobalMemory(this.#store); }
  async setGlobalMemory(patch: Partial<GlobalMemory>): Promise<GlobalMemory> {
    const after = await writeGlobalMemory(this.#store, patch);
    this.#emit({ type: 'settings-changed' });
    return after;
  }

  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]> { return this.#store.searchMessages(query, options); }
  stats(): Promise<StorageStats> { return this.#store.stats(); }

  /** The language of the user's recent turns (up to 200, newest conversations first). */
  async writingLanguage(): Promise<WritingLanguage | null> {
    const texts: string[] = [];
    for (const c of await this.#store.listConversations()) {
      const mine = (await this.#store.listMessages(c.id)).filter((m) => m.role === 'user');
      texts.push(...mine.slice(-200 + texts.length).map((m) => m.content));
      if (texts.length >= 200) break;
    }
    const found = dominantLanguage(texts);
    return found ? { language: found.language, name: LANGUAGE_NAMES[found.language], share: found.share, turns: texts.length } : null;
  }
  exportDatabase(): Promise<Uint8Array> { return this.#store.exportDatabase(); }

  /** Replaces the memory with a file, all or nothing (core/engine/importMemory.ts). */
  async importDatabase(bytes: Uint8Array): Promise<ImportSummary> {
    let held: ImportSummary['pendingSynthesis'] | null = null;
    let first = true;
    const summary = await importMemory({
      stage: (b, options) => this.#store.stageImport(b, options),
      restart: async () => {
        this.#semantic.reset();
        this.#lifecycle?.reset();
        this.#emit({ type: 'database-replaced' });
        // Only the imported memory is held: a restart after a rollback is the user's own memory.
        const hold = first;
        first = false;
        await this.#start(hold ? async () => { held = await this.#holdSynthesis(); } : undefined, false);
      },
    }, bytes, this.#indexer ? { knownEmbedder: (id) => this.#indexer!.knows(id) } : {});
    return held ? { ...summary, pendingSynthesis: held } : summary;
  }

  /**
   * A restored memory with turns no synthesis covers would start paid synthesis at once under its
   * saved policy. The policy is set to `off` before anything starts, and the import reports the
   * estimate per policy so the user chooses, as with Import chats.
   */
  async #holdSynthesis(): Promise<ImportSummary['pendingSynthesis'] | null> {
    if (!this.#episodes) return null;
    const policy = this.#settings.policy;
    if (policy === 'off') return null;
    const turns = await this.#episodes.unsynthesisedTurns();
    if (turns.length === 0) return null;
    const tally = new EpisodeTally();
    for (let i = 0; i < turns.length;) {
      let j = i;
      while (j < turns.length && turns[j]!.conversationId === turns[i]!.conversationId) j++;
      tally.addConversation(turns.slice(i, j));
      i = j;
    }
    await this.#settings.setPolicy('off');
    return { turns: tally.turns, episodes: tally.cells, estimates: estimateSynthesis(tally), policyInFile: policy === 'eager' ? 'eager' : 'recurrence' };
  }

  /** Nearest stored turns by meaning (active embedder's vectors), best first; score is cosine. */
  async vectorSearch(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    if (!this.#indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected, so search by meaning is unavailable.');
    await this.#indexerReady?.catch(() => undefined);
    return nearestTurns({ embedder: this.#indexer.activeEmbedder(), index: this.#semantic, store: this.#store }, query, options);
  }

  embeddingStatus(): Promise<EmbeddingStatus | null> { return Promise.resolve(this.#indexer?.status() ?? null); }
  /** Switches the embedder; everything is re-embedded in the background with progress events. */
  async setEmbedder(modelId: string): Promise<EmbeddingStatus> {
    if (!this.#indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected.');
    return this.#indexer.setTarget(modelId);
  }

  // History import (historyImport.ts): a dry run with the synthesis estimate per policy, the import, cancel.
  scanHistory(file: HistoryFile, request: HistoryRequest, onProgress?: (p: HistoryProgress) => void): Promise<HistoryScan> { return this.#historyImports().scan(file, request, onProgress); }
  importHistory(file: HistoryFile, request: HistoryRequest & { readonly policy?: PolicyName }, onProgress?: (p: HistoryProgress) => void): Promise<HistoryImportReport> {
    const imports = this.#historyImports();
    return this.#trailing.during(() => imports.import(file, request, onProgress));
  }
  /** The trailing indexing's progress (turn index, vectors, episodes): "Indexing 4,200 of 17,000 turns…". */
  indexingStatus(): Promise<IndexingStatus> { return this.#trailing.status(); }
  async cancelHistoryImport(importId: string): Promise<void> { this.#history?.cancel(importId); }
  #historyImports(): HistoryImports {
    if (!this.#history) throw new RecollectError('INVALID_INPUT', 'Importing chat history is not available here.');
    return this.#history;
  }
}
