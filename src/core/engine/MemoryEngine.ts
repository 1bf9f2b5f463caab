/**
 * The memory engine: the API the UI talks to (through the worker), built from injected
 * capabilities. It owns conversations, turns, engine events and the background work's start, stop
 * and idle; it delegates the memory explorer (ExplorerService), settings (EngineSettings) and
 * answering (AnswerService). The write path is capture (EmbeddingIndexer) → episodes (Lifecycle) →
 * synthesis (Consolidator); the read path is recall (Retriever, answerSourceOf).
 */
import { readGlobalMemory, switchedAnswerSource, writeGlobalMemory, type GlobalMemory } from './globalMemory';
import type { TimeZoneSetting, AnswerSettings, AskEvent, AskRequest, AskResult, ConsolidationStatus, EngineApi, EngineEvent, RecallOptions, StageUsage } from '../protocol';
import type { MemoryStore, SearchOptions, VectorStore } from '../base/store';
import type { AppendResult, Conversation, ConversationMemory, ImportSummary, Message, NewTurn, SearchHit, StorageStats } from '../base/types';
import { systemClock, type Clock, type Embedder, type Llm, type LlmConnectionTest, type Reranker } from '../base/ports';
import { RecollectError } from '../base/errors';
import { newId } from '../base/ids';
import { platformTimer, type JobStore } from '../base/jobs';
import type { LlmSettingsInput, LlmSettingsView } from '../base/settings';
import type { EmbeddingIndexer, EmbeddingStatus } from '../capture/EmbeddingIndexer';
import { SemanticIndex } from '../capture/SemanticIndex';
import type { ActiveVectors, Lifecycle } from '../episodes/Lifecycle';
import type { PolicyName } from '../episodes/consolidationPolicy';
import type { Consolidator } from '../synthesis/Consolidator';
import { Retriever, type RetrievalResult, type RetrievalSource } from '../recall/Retriever';
import { answerSourceOf } from '../recall/answerSource';
import { nearestTurns } from '../recall/nearestTurns';
import type {
  FactPage, FactQuery, FactView, ForgetCandidate, ForgetKind, ForgetResult, MemCellDetail, MemCellPage, MemCellQuery, MemoryOverview,
  MemorySearchFilters, MemorySearchHit, ProfileItemView, SceneMapPoint, SceneView,
} from '../explorer/explorer';
import { ExplorerService } from '../explorer/ExplorerService';
import { SavedMemories } from './savedMemories';
import { ConversationMemorySwitches } from './conversationMemory';
import { titleByEndpoint } from './conversationTitles';
import type { ForesightItem, ProfileItem } from '../synthesis/knowledge';
import { EngineSettings } from './EngineSettings';
import { AnswerService } from './AnswerService';
import { buildWritePath } from './writePath';
import { EngineUpkeep } from './EngineUpkeep';
import type { HistoryFile, HistoryImportReport, HistoryProgress, HistoryRequest, HistoryScan } from '../base/historyImport';
import { HistoryImports } from './historyImport';
import { importMemory } from './importMemory';
import type { EngineListener, MemoryEngineDeps } from './engineDeps';

export type { EngineListener, MemoryEngineDeps, VectorSearch } from './engineDeps';

export class MemoryEngine implements EngineApi {
  readonly #store: MemoryStore & VectorStore;
  readonly #listeners = new Set<EngineListener>();
  readonly #semantic: SemanticIndex;
  readonly #factIndex: SemanticIndex;
  readonly #cellIndex: SemanticIndex;
  readonly #indexer: EmbeddingIndexer | null;
  readonly #lifecycle: Lifecycle | null;
  readonly #consolidator: Consolidator | null;
  readonly #jobs: JobStore | null;
  readonly #retrievalSource: RetrievalSource | null;
  readonly #speakers: (() => Promise<string[]>) | null;
  readonly #rerankers: (() => Promise<Reranker | null>) | null;
  readonly #clock: Clock;
  readonly #settings: EngineSettings;
  readonly #answers: AnswerService;
  readonly #explorer: ExplorerService | null;
  readonly #saved: SavedMemories;
  readonly #switches: ConversationMemorySwitches;
  readonly #upkeep: EngineUpkeep;
  #llm: Llm | null;
  readonly #history: HistoryImports | null;

  constructor(deps: MemoryEngineDeps) {
    const clock = deps.clock ?? systemClock;
    const makeId = deps.newId ?? newId;
    this.#store = deps.store;
    this.#llm = deps.llm ?? null;
    this.#jobs = deps.jobs ?? null;
    this.#speakers = deps.speakers ?? null;
    this.#rerankers = deps.embedders?.activeReranker ? () => deps.embedders!.activeReranker!() : null;
    this.#clock = clock;
    this.#history = deps.historyReader
      ? new HistoryImports({ reader: deps.historyReader, clock, sink: { createConversations: (c) => deps.store.createConversations(c), appendTurns: (t) => this.appendTurns(t), setConsolidationPolicy: (p) => this.setConsolidationPolicy(p) } })
      : null;
    this.#semantic = new SemanticIndex(deps.store, 'message', deps.vectorIndex);
    this.#factIndex = new SemanticIndex(deps.store, 'fact', deps.vectorIndex);
    this.#cellIndex = new SemanticIndex(deps.store, 'memcell', deps.vectorIndex);
    this.#retrievalSource = deps.retrievalSource?.((model, query, k) => this.#semantic.search(model, query.length, query, k)) ?? null;
    this.#settings = new EngineSettings({
      meta: deps.store,
      settings: deps.settings ?? null,
      llmFactory: deps.llmFactory ?? null,
      llmSink: deps.llmSink ?? null,
      onLlm: (llm) => this.setLlm(llm),
      onChange: () => this.#emit({ type: 'settings-changed' }),
      onPolicyChanged: (name) => this.#upkeep.policyChanged(name), ...(deps.platformTimeZone ? { platformTimeZone: deps.platformTimeZone } : {}),
    });
    ({ indexer: this.#indexer, lifecycle: this.#lifecycle, consolidator: this.#consolidator } = buildWritePath({
      ...deps, clock, timer: deps.timer ?? platformTimer, newId: makeId, semantic: this.#semantic,
    }, {
      llm: () => this.#llm,
      policy: () => this.#settings.policy,
      llmBoundaryCheck: () => this.#settings.llmBoundaryCheck,
      timeZone: () => this.#settings.timeZone,
      activeVectors: () => this.#activeVectors(),
      activeEmbedder: () => this.#activeEmbedder(),
      onEmbeddingStatus: (status) => this.#emit({ type: 'embedding-status', status }),
      onMemoryChanged: () => this.#emit({ type: 'memory-changed' }),
    }));
    this.#switches = new ConversationMemorySwitches({
      store: deps.store, meta: deps.store, onRemembered: () => this.#lifecycle?.kick(), changed: () => this.#emit({ type: 'conversations-changed' }),
    });
    this.#upkeep = new EngineUpkeep({ lifecycle: this.#lifecycle, consolidator: this.#consolidator, jobs: this.#jobs, episodes: deps.episodes ?? null, clock, ...(deps.upkeepTimer ? { timer: deps.upkeepTimer } : {}) });
    const recallSource = deps.knowledgeSource
      ? answerSourceOf(deps.knowledgeSource, this.#switches.answerRecall((query, options) => this.recall(query, options)), async (kind, query, k) => {
          const embedder = this.#recallEmbedder();
          if (!embedder) return [];
          const [vector] = await embedder.embed([query], 'query');
          if (!vector) return [];
          return (kind === 'fact' ? this.#factIndex : this.#cellIndex).search(embedder.id, embedder.dim, vector, k);
        })
      : null;
    const source = recallSource ? switchedAnswerSource(recallSource, () => readGlobalMemory(deps.store)) : null;
    this.#answers = new AnswerService({
      llm: () => this.#llm, source, clock, timeZone: () => this.#settings.timeZone, settings: () => this.#settings.answerSettings(),
      listMessages: (id) => this.#store.listMessages(id), appendTurn: (turn) => this.appendTurn(turn), retrieved: (ids) => this.noteRetrieved(ids),
      usesMemory: (id) => this.#switches.usesMemory(id),
      answered: (id) => titleByEndpoint({ llm: this.#llm, getConversation: (c) => this.#store.getConversation(c), listMessages: (c) => this.#store.listMessages(c), rename: (c, t) => this.renameConversation(c, t) }, id),
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
          consolidation: () => this.consolidationStatus(),
          databaseBytes: async () => (await this.#store.stats()).databaseBytes,
          clock,
          newId: makeId,
          changed: (options) => {
            if (options?.turns) {
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
    if (!this.#retrievalSource) throw new RecollectError('INTERNAL', 'This engine was built without a retrieval source.');
    const embedder = this.#recallEmbedder();
    // The reranker chosen in Models (none by default); a failing model worker means no rerank stage.
    const reranker = (await this.#rerankers?.().catch(() => null)) ?? null;
    const retriever = new Retriever({ source: this.#retrievalSource, ...(embedder ? { embedder } : {}), ...(reranker ? { reranker } : {}) });
    const speakers = (await this.#speakers?.()) ?? [];
    return retriever.retrieve(query, {
      limit: options.limit ?? 10,
      speakers,
      now: options.now ?? this.#clock.now(),
      ...(options.conversationId ? { scope: { conversationIds: [options.conversationId] } } : {}),
    });
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
  sceneMap(): Promise<SceneMapPoint[]> { return this.#ex().sceneMap(); }
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
  ask(request: AskRequest, onEvent: (event: AskEvent) => void): Promise<AskResult> { return this.#answers.ask(request, onEvent); }
  /** Stops a streaming answer; what was said so far is kept. */
  stopAnswer(answerId: string): Promise<void> { return this.#answers.stop(answerId); }
  /** An answer used these turns: visits, heat, and synthesis of raw episodes per the policy. */
  async noteRetrieved(messageIds: readonly string[]): Promise<void> { await this.#lifecycle?.onRetrieved(messageIds); }

  /** Sets (or clears) the LLM endpoint used for synthesis; paused work resumes. */
  setLlm(llm: Llm | null): void {
    this.#llm = llm;
    this.#consolidator?.endpointChanged();
  }

  async consolidationStatus(): Promise<ConsolidationStatus> {
    const runner = this.#consolidator?.runner.status();
    return {
      policy: this.#settings.policy,
      llmBoundaryCheck: this.#settings.llmBoundaryCheck,
      endpointConfigured: this.#llm !== null,
      jobs: this.#jobs ? await this.#jobs.counts() : { pending: 0, scheduled: 0, running: 0, done: 0, failed: 0, cancelled: 0 },
      pausedReason: runner?.pausedUntil ? runner.pauseReason : null,
      lastError: runner?.lastError ? `${runner.lastError.code}: ${runner.lastError.message}` : null,
    };
  }

  // ---- background work ------------------------------------------------------------------------

  /** Resumes background work left from an earlier session (embedding, segmentation, upkeep). */
  async start(): Promise<void> {
    await this.#settings.loadLlm();
    await this.#settings.load();
    if (this.#indexer) {
      await this.#indexer.init();
      void this.#indexer.warmUp();
      this.#indexer.kick();
    } else this.#lifecycle?.kick();
    await this.#consolidator?.start();
    this.#upkeep.start();
  }

  /** Stops background work (the database is about to close). */
  stop(): void {
    this.#indexer?.stop();
    this.#lifecycle?.stop();
    this.#consolidator?.runner.stop();
    this.#upkeep.stop();
  }

  /**
   * Resolves when background embedding, segmentation and due consolidation jobs have caught up
   * (tests, benchmark ingest). Jobs waiting for a backoff or a paused endpoint are not waited for.
   */
  async idle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await this.#upkeep.idle();
      await this.#indexer?.idle();
      await this.#lifecycle?.idle();
      await this.#consolidator?.runner.idle();
      const busy = (this.#indexer?.status().state === 'running') || this.#consolidator?.runner.status().running;
      if (!busy) return;
    }
  }
  /** Closes every open MemCell (end of a benchmark ingest or of a bulk import). */
  async closeOpenCells(): Promise<number> {
    await this.idle();
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

  // Conversations; new ones take the memory switches' defaults (conversationMemory.ts).
  createConversation(input: { id?: string; title: string } & Partial<ConversationMemory>): Promise<Conversation> { return this.#switches.create(input); }
  setConversationMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation> { return this.#switches.set(id, patch); }
  memoryDefaults(): Promise<ConversationMemory> { return this.#switches.defaults(); }
  /** "Use saved memories" and "use chat history" for every answer (globalMemory.ts). */
  globalMemory(): Promise<GlobalMemory> { return readGlobalMemory(this.#store); }
  async setGlobalMemory(patch: Partial<GlobalMemory>): Promise<GlobalMemory> {
    const after = await writeGlobalMemory(this.#store, patch);
    this.#emit({ type: 'settings-changed' });
    return after;
  }
  setMemoryDefaults(patch: Partial<ConversationMemory>): Promise<ConversationMemory> { return this.#switches.setDefaults(patch); }
  async renameConversation(id: string, title: string): Promise<Conversation> { return this.#conversationsChanged(await this.#store.renameConversation(id, title)); }
  #conversationsChanged<T>(value: T): T {
    this.#emit({ type: 'conversations-changed' });
    return value;
  }
  async deleteConversation(id: string): Promise<void> {
    await this.#store.deleteConversation(id);
    this.#semantic.reset();
    this.#lifecycle?.reset();
    this.#emit({ type: 'messages-changed', conversationId: this.#conversationsChanged(id) });
  }

  listConversations(): Promise<Conversation[]> { return this.#store.listConversations(); }
  async appendTurns(turns: readonly NewTurn[]): Promise<AppendResult[]> {
    const results = await this.#store.appendTurns(turns);
    const changed = new Set(results.filter((r) => r.created).map((r) => r.message.conversationId));
    for (const conversationId of changed) this.#emit({ type: 'messages-changed', conversationId });
    if (changed.size > 0) {
      this.#emit({ type: 'conversations-changed' });
      if (this.#indexer) this.#indexer.kick();
      else this.#lifecycle?.kick();
    }
    return results;
  }

  async appendTurn(turn: NewTurn): Promise<AppendResult> { return (await this.appendTurns([turn]))[0]!; }
  listMessages(conversationId: string): Promise<Message[]> { return this.#store.listMessages(conversationId); }
  async deleteMessage(id: string): Promise<boolean> {
    const message = await this.#store.getMessage(id);
    const deleted = await this.#store.deleteMessage(id);
    if (deleted) {
      await this.#semantic.remove(id);
      if (message) await this.#explorer?.dropEmptyEpisodes(message.conversationId); // its episode may be empty now
      this.#emit({ type: 'messages-changed', conversationId: message?.conversationId ?? null });
      this.#emit({ type: 'conversations-changed' });
    }
    return deleted;
  }

  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]> { return this.#store.searchMessages(query, options); }
  stats(): Promise<StorageStats> { return this.#store.stats(); }
  exportDatabase(): Promise<Uint8Array> { return this.#store.exportDatabase(); }

  /** Replaces the memory with a file, all or nothing (core/engine/importMemory.ts). */
  importDatabase(bytes: Uint8Array): Promise<ImportSummary> {
    return importMemory({
      stage: (b, options) => this.#store.stageImport(b, options),
      restart: async () => {
        this.#semantic.reset();
        this.#lifecycle?.reset();
        this.#emit({ type: 'database-replaced' });
        await this.start();
      },
    }, bytes, this.#indexer ? { knownEmbedder: (id) => this.#indexer!.knows(id) } : {});
  }

  /** Nearest stored turns by meaning (active embedder's vectors), best first; score is cosine. */
  async vectorSearch(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    if (!this.#indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected, so search by meaning is unavailable.');
    return nearestTurns({ embedder: this.#indexer.activeEmbedder(), index: this.#semantic, store: this.#store }, query, options);
  }

  embeddingStatus(): Promise<EmbeddingStatus | null> { return Promise.resolve(this.#indexer?.status() ?? null); }
  /** Switches the embedder; everything is re-embedded in the background with progress events. */
  async setEmbedder(modelId: string): Promise<EmbeddingStatus> {
    if (!this.#indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected.');
    return this.#indexer.setTarget(modelId);
  }

  // History import (issue 15; historyImport.ts): a dry run with the synthesis estimate per policy, the import, cancel.
  scanHistory(file: HistoryFile, request: HistoryRequest, onProgress?: (p: HistoryProgress) => void): Promise<HistoryScan> { return this.#historyImports().scan(file, request, onProgress); }
  importHistory(file: HistoryFile, request: HistoryRequest & { readonly policy?: PolicyName }, onProgress?: (p: HistoryProgress) => void): Promise<HistoryImportReport> { return this.#historyImports().import(file, request, onProgress); }
  async cancelHistoryImport(importId: string): Promise<void> { this.#history?.cancel(importId); }
  #historyImports(): HistoryImports {
    if (!this.#history) throw new RecollectError('INVALID_INPUT', 'Importing chat history is not available here.');
    return this.#history;
  }
}
