/**
 * The memory engine: the API the UI talks to (through the worker), built from injected
 * capabilities by one assembly (assembleEngine.ts). It owns engine events and the background work's
 * start, stop and idle; it delegates conversations and turns (Conversations), the memory explorer
 * (ExplorerService), settings (EngineSettings) and answering (AnswerService). The write path is capture (EmbeddingIndexer) → episodes (Lifecycle) →
 * synthesis (Consolidator); the read path is the MemoryReader (one query embedding feeds turns, facts and episodes).
 */
import { readGlobalMemory, writeGlobalMemory, type GlobalMemory } from './globalMemory';
import { dominantLanguage, LANGUAGE_NAMES, type WritingLanguage } from '../base/language';
import type { TimeZoneSetting, AnswerSettings, AskEvent, AskRequest, AskResult, SendRequest, ConsolidationStatus, EngineApi, EngineEvent, RecallOptions, StageUsage } from '../protocol';
import type { SearchOptions } from '../base/store';
import type { AppendResult, Conversation, ConversationMemory, ImportSummary, Message, MessageWindow, MessageWindowRequest, NewTurn, SearchHit, StorageStats } from '../base/types';
import type { Llm, LlmCallSink, LlmConnectionTest } from '../base/ports';
import { RecollectError } from '../base/errors';
import type { LlmSettingsInput, LlmSettingsView } from '../base/settings';
import type { EmbeddingStatus } from '../capture/embeddingStatus';
import type { PolicyName } from '../episodes/consolidationPolicy';
import type { RetrievalResult } from '../recall/Retriever';
import type { ContextParts } from '../recall/answerContext';
import { nearestTurns } from '../recall/nearestTurns';
import type {
  FactEdit, FactPage, FactQuery, FactView, ForesightEdit, ForgetCandidate, MemCellEdit, ForgetKind, ForgetResult, MemCellDetail, MemCellPage, MemCellQuery, MemoryOverview, ConversationMemoryCounts,
  MemorySearchFilters, MemorySearchHit, ProfileItemView, SceneMap, SceneView, ForesightPage, ForesightQuery, MessageMemory,
} from '../explorer/explorer';
import type { ExplorerService } from '../explorer/ExplorerService';
import type { ForesightItem, ProfileItem } from '../synthesis/knowledge';
import type { SynthesisFailures } from '../synthesis/synthesisRecovery';
import { EpisodeTally, estimateSynthesis } from '../synthesis/synthesisEstimate';
import type { HistoryFile, HistoryImportReport, HistoryProgress, HistoryRequest, HistoryScan } from '../base/historyImport';
import type { HistoryImports } from './historyImport';
import { importMemory } from './importMemory';
import type { MemoryImportRequest, MemoryImportResult } from '../base/carriedMemory';
import type { MemoryExportFile, MemoryExportFormat } from '../base/memoryExport';
import { assembleEngine, type EngineParts } from './assembleEngine';
import type { IndexingStatus } from './trailingIndex';
import type { EngineListener, MemoryEngineDeps } from './engineDeps';
import type { Projects, ProjectEdit, ProjectInput } from './Projects';
import type { Project } from '../base/types';

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

  constructor(deps: MemoryEngineDeps) {
    this.#p = assembleEngine(deps, { emit: (event) => this.#emit(event) });
  }

  /**
   * Hybrid recall over stored turns (BM25 on the turn index, vectors, fusion and boosts): ranked
   * turns with scores and the reasons each was retrieved.
   */
  async recall(query: string, options: RecallOptions = {}): Promise<RetrievalResult> {
    if (!this.#p.reader) throw new RecollectError('INTERNAL', 'This engine was built without a retrieval source.');
    try {
      const reader = this.#p.reader;
      return await this.#p.foreground.run(() => reader.recall(query, options));
    } finally {
      this.#releaseHold();
    }
  }

  // ---- delegates: the explorer, settings and answering ----------------------------------------

  #ex(): ExplorerService {
    if (!this.#p.explorer) throw new RecollectError('INTERNAL', 'This engine was built without the memory explorer.');
    return this.#p.explorer;
  }

  memoryOverview(): Promise<MemoryOverview> { return this.#ex().memoryOverview(); }
  conversationMemoryCounts(conversationId: string): Promise<ConversationMemoryCounts> { return this.#ex().conversationMemoryCounts(conversationId); }
  searchMemory(query: string, filters?: MemorySearchFilters): Promise<MemorySearchHit[]> { return this.#ex().searchMemory(query, filters); }
  listMemCells(query: MemCellQuery): Promise<MemCellPage> { return this.#ex().listMemCells(query); }
  memCell(id: string): Promise<MemCellDetail | null> { return this.#ex().memCell(id); }
  listFacts(query: FactQuery): Promise<FactPage> { return this.#ex().listFacts(query); }
  editMemCell(id: string, patch: MemCellEdit): Promise<MemCellDetail> { return this.#ex().editMemCell(id, patch); }
  editFact(id: string, patch: FactEdit): Promise<FactView> { return this.#ex().editFact(id, patch); }
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
  addMemory(text: string): Promise<ProfileItem> { return this.#p.saved.add(text); }
  memoriesFromMessages(): Promise<MessageMemory[]> { return this.#p.saved.fromMessages(); }
  knownMemories(texts: readonly string[]): Promise<boolean[]> { return this.#p.carry.known(texts); }
  importMemories(request: MemoryImportRequest): Promise<MemoryImportResult> { return this.#p.carry.import(request); }
  exportMemories(format: MemoryExportFormat): Promise<MemoryExportFile> { return this.#p.carry.export(format); }
  listForesight(): Promise<ForesightItem[]> { return this.#ex().listForesight(); }
  listForesightPage(query: ForesightQuery): Promise<ForesightPage> { return this.#ex().listForesightPage(query); }
  editForesight(id: string, patch: ForesightEdit): Promise<void> { return this.#ex().editForesight(id, patch); }
  dismissForesight(id: string): Promise<void> { return this.#ex().dismissForesight(id); }
  forgetPreview(query: string): Promise<ForgetCandidate[]> { return this.#ex().forgetPreview(query); }
  forget(items: readonly { readonly kind: ForgetKind; readonly id: string }[], about?: string): Promise<ForgetResult> { return this.#ex().forget(items, about); }

  llmSettings(): Promise<LlmSettingsView> { return this.#p.settings.llmSettings(); }
  saveLlmSettings(input: LlmSettingsInput): Promise<LlmSettingsView> { return this.#p.settings.saveLlmSettings(input); }
  testLlmConnection(input: LlmSettingsInput): Promise<LlmConnectionTest> { return this.#p.settings.testLlmConnection(input); }
  listLlmModels(input: LlmSettingsInput): Promise<string[]> { return this.#p.settings.listLlmModels(input); }
  llmUsage(since?: number): Promise<Record<string, StageUsage>> { return this.#p.settings.llmUsage(since); }
  answerSettings(): Promise<AnswerSettings> { return this.#p.settings.answerSettings(); }
  setAnswerSettings(settings: Partial<AnswerSettings>): Promise<AnswerSettings> { return this.#p.settings.setAnswerSettings(settings); }
  setLlmBoundaryCheck(enabled: boolean): Promise<boolean> { return this.#p.settings.setLlmBoundaryCheck(enabled); }
  async timeZone(): Promise<TimeZoneSetting> { return this.#p.settings.timeZoneSetting(); }
  setTimeZone(zone: string | null): Promise<TimeZoneSetting> { return this.#p.settings.setTimeZone(zone); }
  async consolidationPolicy(): Promise<PolicyName> { return this.#p.settings.policy; }
  setConsolidationPolicy(name: PolicyName): Promise<PolicyName> { return this.#p.settings.setPolicy(name); }
  async ask(request: AskRequest, onEvent: (event: AskEvent) => void): Promise<AskResult> {
    // The saved endpoint is read at start: an answer asked at once (a restarted engine's "Try
    // again") would otherwise find no endpoint and fail with "not configured".
    await this.#llmReady?.catch(() => undefined);
    return this.#p.answers.ask(request, onEvent).finally(() => this.#releaseHold());
  }
  /** What an answer to `question` reads from memory, without asking the endpoint (AnswerService.context). */
  answerContext(question: string, options: { readonly now?: number } = {}): Promise<ContextParts> {
    return this.#p.answers.context(question, options).finally(() => this.#releaseHold());
  }
  /** Stops a streaming answer; what was said so far is kept. */
  stopAnswer(answerId: string): Promise<void> { return this.#p.answers.stop(answerId); }
  /** An answer used these turns: visits, heat, and synthesis of raw episodes per the policy. */
  noteRetrieved(messageIds: readonly string[]): Promise<void> { return this.#p.lifecycle.onRetrieved(messageIds); }

  /** Sets (or clears) the LLM endpoint used for synthesis; paused work resumes. */
  setLlm(llm: Llm | null): void { this.#p.llm.useEndpoint(llm); }

  /**
   * A model on this device answers, titles and synthesises instead of the endpoint (null: the
   * endpoint again). `make` gets the engine's ledger, so its calls are counted like the endpoint's.
   */
  useDeviceLlm(make: ((sink: LlmCallSink | null) => Llm) | null): void { this.#p.llm.useDevice(make); }

  consolidationStatus(): Promise<ConsolidationStatus> { return this.#p.consolidationStatus(); }
  /** Synthesis that failed ("3 episodes could not be summarised"), and what will come back by itself. */
  synthesisFailures(): Promise<SynthesisFailures> { return this.#p.consolidator.failures(); }
  /** Puts every failed synthesis job back in the queue now; returns how many. */
  retryFailedSynthesis(): Promise<number> { return this.#p.consolidator.retryFailed(); }

  // ---- background work ------------------------------------------------------------------------

  /** Resumes background work left from an earlier session (embedding, segmentation, upkeep). */
  /** Starts on the current database; `beforeWork` runs once settings are read and before any background work. */
  start(beforeWork?: () => Promise<void>): Promise<void> { return this.#start(beforeWork, true); }
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
    this.#indexerReady = this.#llmReady.then(() => this.#p.settings.load()).then(async () => {
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
  }

  /**
   * Resolves when background embedding, segmentation, due consolidation jobs and the work after
   * stored answers (titles) have caught up (tests, benchmark ingest). Jobs waiting for a backoff or a paused endpoint are not waited for.
   */
  idle(): Promise<void> { return this.#idle(); }
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
      const busy = (this.#p.indexer?.status().state === 'running') || this.#p.consolidator.runner.status().running || this.#p.consolidator.recovery.busy;
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
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        /* a broken listener must not break a write that already committed */
      }
    }
  }

  // Conversations and turns: the Conversations service is their only writer.
  createConversation(input: { id?: string; title: string; projectId?: string | null } & Partial<ConversationMemory>): Promise<Conversation> { return this.#p.conversations.create(input); }

  // Projects (Projects.ts): grouping, instructions and the memory walls of project-only projects.
  #projects(): Projects {
    if (!this.#p.projects) throw new RecollectError('INVALID_INPUT', 'Projects are not available here.');
    return this.#p.projects;
  }
  async listProjects(): Promise<Project[]> { return this.#p.projects ? this.#p.projects.list() : []; }
  createProject(input: ProjectInput): Promise<Project> { return this.#projects().create(input); }
  editProject(id: string, patch: ProjectEdit): Promise<Project> { return this.#projects().edit(id, patch); }
  deleteProject(id: string, chats: 'keep' | 'delete'): Promise<{ readonly deletedConversations: number }> { return this.#projects().delete(id, chats); }
  moveConversation(conversationId: string, projectId: string | null): Promise<void> { return this.#projects().move(conversationId, projectId); }
  setConversationMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation> { return this.#p.conversations.setMemory(id, patch); }
  memoryDefaults(): Promise<ConversationMemory> { return this.#p.conversations.memoryDefaults(); }
  setMemoryDefaults(patch: Partial<ConversationMemory>): Promise<ConversationMemory> { return this.#p.conversations.setMemoryDefaults(patch); }
  renameConversation(id: string, title: string): Promise<Conversation> { return this.#p.conversations.rename(id, title); }
  deleteConversation(id: string): Promise<void> { return this.#p.conversations.delete(id); }
  listConversations(): Promise<Conversation[]> { return this.#p.conversations.list(); }
  appendTurns(turns: readonly NewTurn[]): Promise<AppendResult[]> { return this.#p.conversations.append(turns); }
  appendTurn(turn: NewTurn): Promise<AppendResult> { return this.#p.conversations.appendOne(turn); }
  send(request: SendRequest): Promise<Message> { return this.#p.conversations.send(request); }
  listMessages(conversationId: string): Promise<Message[]> { return this.#p.conversations.messages(conversationId); }
  listMessageWindow(conversationId: string, request: MessageWindowRequest): Promise<MessageWindow> { return this.#p.conversations.messageWindow(conversationId, request); }
  deleteMessage(id: string): Promise<boolean> { return this.#p.conversations.deleteMessage(id); }
  /** "Use saved memories" and "use chat history" for every answer (globalMemory.ts). */
  globalMemory(): Promise<GlobalMemory> { return readGlobalMemory(this.#p.store); }
  async setGlobalMemory(patch: Partial<GlobalMemory>): Promise<GlobalMemory> {
    const after = await writeGlobalMemory(this.#p.store, patch);
    this.#emit({ type: 'settings-changed' });
    return after;
  }

  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]> { return this.#p.foreground.run(() => this.#p.store.searchMessages(query, options)); }
  stats(): Promise<StorageStats> { return this.#p.store.stats(); }

  /** The language of the user's recent turns (up to 200, newest conversations first). */
  async writingLanguage(): Promise<WritingLanguage | null> {
    const texts: string[] = [];
    for (const c of await this.#p.store.listConversations()) {
      const mine = (await this.#p.store.listMessages(c.id)).filter((m) => m.role === 'user');
      texts.push(...mine.slice(-200 + texts.length).map((m) => m.content));
      if (texts.length >= 200) break;
    }
    const found = dominantLanguage(texts);
    return found ? { language: found.language, name: LANGUAGE_NAMES[found.language], share: found.share, turns: texts.length } : null;
  }
  exportDatabase(): Promise<Uint8Array> { return this.#p.store.exportDatabase(); }

  /** Replaces the memory with a file, all or nothing (core/engine/importMemory.ts). */
  async importDatabase(bytes: Uint8Array): Promise<ImportSummary> {
    let held: ImportSummary['pendingSynthesis'] | null = null;
    let first = true;
    const summary = await importMemory({
      stage: (b, options) => this.#p.store.stageImport(b, options),
      restart: async () => {
        this.#p.semantic.reset();
        this.#p.lifecycle.reset();
        this.#emit({ type: 'database-replaced' });
        // Only the imported memory is held: a restart after a rollback is the user's own memory.
        const hold = first;
        first = false;
        await this.#start(hold ? async () => { held = await this.#holdSynthesis(); } : undefined, false);
      },
    }, bytes, this.#p.indexer ? { knownEmbedder: (id) => this.#p.indexer!.knows(id) } : {});
    return held ? { ...summary, pendingSynthesis: held } : summary;
  }

  /**
   * A restored memory with turns no synthesis covers would start paid synthesis at once under its
   * saved policy. The policy is set to `off` before anything starts, and the import reports the
   * estimate per policy so the user chooses, as with Import chats.
   */
  async #holdSynthesis(): Promise<ImportSummary['pendingSynthesis'] | null> {
    if (!this.#p.episodes) return null;
    const policy = this.#p.settings.policy;
    if (policy === 'off') return null;
    const turns = await this.#p.episodes.unsynthesisedTurns();
    if (turns.length === 0) return null;
    const tally = new EpisodeTally();
    for (let i = 0; i < turns.length;) {
      let j = i;
      while (j < turns.length && turns[j]!.conversationId === turns[i]!.conversationId) j++;
      tally.addConversation(turns.slice(i, j));
      i = j;
    }
    await this.#p.settings.setPolicy('off');
    return { turns: tally.turns, episodes: tally.cells, estimates: estimateSynthesis(tally), policyInFile: policy === 'eager' ? 'eager' : 'recurrence' };
  }

  /** Nearest stored turns by meaning (active embedder's vectors), best first; score is cosine. */
  async vectorSearch(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    if (!this.#p.indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected, so search by meaning is unavailable.');
    await this.#indexerReady?.catch(() => undefined);
    return nearestTurns({ embedder: this.#p.indexer.activeEmbedder(), index: this.#p.semantic, store: this.#p.store }, query, options);
  }

  embeddingStatus(): Promise<EmbeddingStatus | null> { return Promise.resolve(this.#p.indexer?.status() ?? null); }
  /** Switches the embedder; everything is re-embedded in the background with progress events. */
  async setEmbedder(modelId: string): Promise<EmbeddingStatus> {
    if (!this.#p.indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected.');
    return this.#p.indexer.setTarget(modelId);
  }

  // History import (historyImport.ts): a dry run with the synthesis estimate per policy, the import, cancel.
  scanHistory(file: HistoryFile, request: HistoryRequest, onProgress?: (p: HistoryProgress) => void): Promise<HistoryScan> { return this.#historyImports().scan(file, request, onProgress); }
  importHistory(file: HistoryFile, request: HistoryRequest & { readonly policy?: PolicyName }, onProgress?: (p: HistoryProgress) => void): Promise<HistoryImportReport> {
    const imports = this.#historyImports();
    return this.#p.trailing.during(() => imports.import(file, request, onProgress));
  }
  /** The trailing indexing's progress (turn index, vectors, episodes): "Indexing 4,200 of 17,000 turns…". */
  indexingStatus(): Promise<IndexingStatus> { return this.#p.trailing.status(); }
  async cancelHistoryImport(importId: string): Promise<void> { this.#p.history?.cancel(importId); }
  #historyImports(): HistoryImports {
    if (!this.#p.history) throw new RecollectError('INVALID_INPUT', 'Importing chat history is not available here.');
    return this.#p.history;
  }
}
