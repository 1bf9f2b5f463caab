/**
 * The memory engine: the API the UI talks to (through the worker), built from injected
 * capabilities. For now it stores, lists, searches and transfers turns; later stages (embedding,
 * segmentation, consolidation, retrieval) hang off the same write and read paths.
 */
import type { AnswerSettings, AskEvent, AskRequest, AskResult, ConsolidationStatus, EngineApi, EngineEvent, RecallOptions, StageUsage } from '../protocol';
import type { MemoryStore, SearchOptions, VectorStore } from '../base/store';
import type { AppendResult, Conversation, ImportSummary, Message, NewTurn, SearchHit, StorageStats } from '../base/types';
import { systemClock, type Clock, type Embedder, type EmbedderProvider, type Llm } from '../base/ports';
import { RecollectError } from '../base/errors';
import { EmbeddingIndexer, type EmbeddingStatus } from '../capture/EmbeddingIndexer';
import { SemanticIndex } from '../capture/SemanticIndex';
import type { EpisodeStore } from '../episodes/episodes';
import type { JobStore } from '../base/jobs';
import { Lifecycle, type ActiveVectors } from '../episodes/Lifecycle';
import { policyByName, type PolicyName } from '../episodes/consolidationPolicy';
import { newId } from '../base/ids';
import { llmBoundaryJudge } from '../episodes/boundaryCheck';
import type { KnowledgeStore } from '../synthesis/knowledge';
import type { Timer } from '../base/jobs';
import { Consolidator } from '../synthesis/Consolidator';
import { Retriever, type RetrievalResult, type RetrievalSource } from '../recall/Retriever';
import { viewOf, type LlmFactory, type LlmSettings, type LlmSettingsInput, type LlmSettingsView, type SettingsStore } from '../base/settings';
import type { LlmCallSink, LlmConnectionTest, LlmMessage, LlmAbortSignal } from '../base/ports';
import type { AnswerSource } from '../recall/answerContext';
import { answerQuestion, type AnswerResult } from '../recall/answer';
import {
  MEMORY_KINDS, type ExplorerStore, type FactView, type ForgetCandidate, type ForgetKind, type ForgetResult, type MemCellDetail, type MemCellPage,
  type MemCellQuery, type MemoryKind, type MemoryOverview, type MemorySearchFilters, type MemorySearchHit, type ProfileItemView, type SceneMapPoint,
  type SceneView, type SearchCandidate,
} from '../explorer/explorer';
import { matchReasons, pca2d, queryTerms } from '../explorer/explorerText';
import type { ForesightItem } from '../synthesis/knowledge';
import { SUMMARISE_SCENE } from '../synthesis/Consolidator';
import { SYNTHESISE_MEMCELL } from '../episodes/Lifecycle';
import type { HistoryFile, HistoryImportReport, HistoryProgress, HistoryReader, HistoryRequest, HistoryScan } from '../base/historyImport';
import { HistoryImports } from './historyImport';

/** What the read path needs to build an AnswerSource (see src/storage/answerSource.ts). */
export type AnswerSourceFactory = (
  recall: (query: string, options: { limit?: number; now?: number; conversationId?: string }) => Promise<RetrievalResult>,
  vectors: (kind: 'fact' | 'memcell', query: string, k: number) => Promise<readonly { readonly id: string; readonly score: number }[]>,
) => AnswerSource;

/** Explorer search: the cosine a hit found only by meaning needs to be shown. */
const VECTOR_ONLY_MIN = 0.8;

/** How many earlier turns of the chat go with the question. */
const HISTORY_TURNS = 8;

/** The cost ledger's read side (llm_calls). */
export interface UsageLedger {
  byStage(since?: number): Promise<Record<string, StageUsage>>;
}

/** Nearest message vectors of one model (the engine's SemanticIndex). */
export type VectorSearch = (vectorModelId: string, query: Float32Array, k: number) => Promise<readonly { readonly id: string; readonly score: number }[]>;

/** A Timer over the platform's setTimeout (present in browsers, workers and Node). */
const platformTimer: Timer = (fn, ms) => {
  const g = globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown; clearTimeout(h: unknown): void };
  const h = g.setTimeout(fn, ms);
  return { cancel: () => g.clearTimeout(h) };
};

export interface MemoryEngineDeps {
  readonly store: MemoryStore & VectorStore;
  /** Without embedders the engine stores and full-text searches only (no vectors). */
  readonly embedders?: EmbedderProvider;
  /** With both, the episode lifecycle runs (segmentation, scenes, foresight, synthesis queue). */
  readonly episodes?: EpisodeStore;
  readonly jobs?: JobStore;
  /** With knowledge (and jobs), queued episodes are synthesised through the LLM endpoint. */
  readonly knowledge?: KnowledgeStore;
  readonly llm?: Llm | null;
  readonly clock?: Clock;
  readonly timer?: Timer;
  readonly newId?: () => string;
  readonly profileDebounceMs?: number;
  /** Builds the read path's data access over the engine's vector search (hybrid recall). */
  readonly retrievalSource?: (vectors: VectorSearch) => RetrievalSource;
  /** Names of everyone who speaks in stored turns (query analysis recognises them). */
  readonly speakers?: () => Promise<string[]>;
  /** The answer path's data access (turns via recall, facts, episodes, scenes, profile, foresight). */
  readonly answerSource?: AnswerSourceFactory;
  /** Endpoint settings (key kept outside the database) and how to build a client from them. */
  readonly settings?: SettingsStore;
  readonly llmFactory?: LlmFactory;
  /** Where every LLM call is recorded (llm_calls), and read back for the cost view. */
  readonly llmSink?: LlmCallSink & UsageLedger;
  /** The memory explorer's data access (src/storage/explorerRepo.ts). */
  readonly explorer?: ExplorerStore;
  /** Reads other services' chat exports (src/import/readHistory.ts); without it history import is unavailable. */
  readonly historyReader?: HistoryReader;
}

/** A temporary chat consults no memory. */
const EMPTY_ANSWER_SOURCE: AnswerSource = {
  turns: async () => [],
  facts: async () => [],
  episodes: async () => [],
  episodesByIds: async () => [],
  episodesOfTurns: async () => new Map(),
  sceneMembers: async () => [],
  profile: async () => [],
  foresight: async () => [],
};

export const META_POLICY = 'consolidation.policy';
export const META_LLM_BOUNDARY = 'segmentation.llm_check';
export const META_ANSWER_BUDGET = 'answer.budget_tokens';
export const META_SUFFICIENCY = 'answer.sufficiency_check';

export const DEFAULT_ANSWER_SETTINGS: AnswerSettings = { budgetTokens: 2500, sufficiencyCheck: false };

export type EngineListener = (event: EngineEvent) => void;

export class MemoryEngine implements EngineApi {
  readonly #store: MemoryStore & VectorStore;
  readonly #listeners = new Set<EngineListener>();
  readonly #semantic: SemanticIndex;
  readonly #indexer: EmbeddingIndexer | null;
  readonly #lifecycle: Lifecycle | null;
  readonly #consolidator: Consolidator | null;
  readonly #jobs: JobStore | null;
  readonly #retrievalSource: RetrievalSource | null;
  readonly #speakers: (() => Promise<string[]>) | null;
  readonly #clock: Clock;
  readonly #settings: SettingsStore | null;
  readonly #llmFactory: LlmFactory | null;
  readonly #llmSink: (LlmCallSink & UsageLedger) | null;
  #llm: Llm | null;
  readonly #answerSource: AnswerSource | null;
  readonly #factIndex: SemanticIndex;
  readonly #cellIndex: SemanticIndex;
  readonly #answers = new Map<string, { abort(): void; signal: LlmAbortSignal }>();
  readonly #explorer: ExplorerStore | null;
  readonly #episodes: EpisodeStore | null;
  readonly #newId: () => string;
  #policy: PolicyName = 'recurrence';
  #llmBoundaryCheck = false;
  readonly #boundaryJudge = llmBoundaryJudge(() => this.#llm);
  readonly #history: HistoryImports | null;

  constructor(deps: MemoryEngineDeps) {
    this.#store = deps.store;
    this.#llm = deps.llm ?? null;
    this.#jobs = deps.jobs ?? null;
    this.#speakers = deps.speakers ?? null;
    this.#clock = deps.clock ?? systemClock;
    this.#settings = deps.settings ?? null;
    this.#llmFactory = deps.llmFactory ?? null;
    this.#llmSink = deps.llmSink ?? null;
    this.#explorer = deps.explorer ?? null;
    this.#episodes = deps.episodes ?? null;
    this.#newId = deps.newId ?? newId;
    this.#history = deps.historyReader
      ? new HistoryImports({ reader: deps.historyReader, clock: this.#clock, sink: { createConversation: (c) => deps.store.createConversation(c), appendTurns: (t) => this.appendTurns(t), setConsolidationPolicy: (p) => this.setConsolidationPolicy(p) } })
      : null;
    this.#semantic = new SemanticIndex(deps.store, 'message');
    this.#retrievalSource = deps.retrievalSource?.((model, query, k) => this.#semantic.search(model, query.length, query, k)) ?? null;
    this.#factIndex = new SemanticIndex(deps.store, 'fact');
    this.#cellIndex = new SemanticIndex(deps.store, 'memcell');
    this.#answerSource = deps.answerSource?.(
      (query, options) => this.recall(query, options),
      async (kind, query, k) => {
        const embedder = this.#embedderOrNull();
        if (!embedder) return [];
        const [vector] = await embedder.embed([query], 'query');
        if (!vector) return [];
        return (kind === 'fact' ? this.#factIndex : this.#cellIndex).search(embedder.id, embedder.dim, vector, k);
      },
    ) ?? null;
    this.#indexer = deps.embedders
      ? new EmbeddingIndexer({
          store: deps.store,
          embedders: deps.embedders,
          index: this.#semantic,
          onStatus: (status) => {
            this.#emit({ type: 'embedding-status', status });
            // Segmentation and scenes want the turn's vector: run them once embedding settles.
            if (status.state !== 'running') this.#lifecycle?.kick();
          },
        })
      : null;
    this.#lifecycle = deps.episodes && deps.jobs
      ? new Lifecycle({
          episodes: deps.episodes,
          store: deps.store,
          semantic: this.#semantic,
          activeVectors: () => this.#activeVectors(),
          jobs: deps.jobs,
          policy: () => policyByName(this.#policy),
          clock: deps.clock ?? systemClock,
          newId: deps.newId ?? newId,
          onChange: () => this.#emit({ type: 'memory-changed' }),
          onJobsQueued: () => this.#consolidator?.runner.kick(),
          boundaryJudge: () => (this.#llmBoundaryCheck && this.#llm ? this.#boundaryJudge : null),
        })
      : null;
    this.#consolidator = deps.episodes && deps.jobs && deps.knowledge
      ? new Consolidator({
          jobs: deps.jobs,
          episodes: deps.episodes,
          knowledge: deps.knowledge,
          vectors: deps.store,
          llm: () => this.#llm,
          embedder: () => this.#activeEmbedder(),
          clock: deps.clock ?? systemClock,
          timer: deps.timer ?? platformTimer,
          ...(deps.profileDebounceMs !== undefined ? { profileDebounceMs: deps.profileDebounceMs } : {}),
          onChange: () => this.#emit({ type: 'memory-changed' }),
        })
      : null;
  }

  /**
   * Hybrid recall over stored turns (BM25 on the turn index, vectors, fusion and boosts): ranked
   * turns with scores and the reasons each was retrieved.
   */
  async recall(query: string, options: RecallOptions = {}): Promise<RetrievalResult> {
    if (!this.#retrievalSource) throw new RecollectError('INTERNAL', 'This engine was built without a retrieval source.');
    const embedder = this.#embedderOrNull();
    const retriever = new Retriever({ source: this.#retrievalSource, ...(embedder ? { embedder } : {}) });
    const speakers = (await this.#speakers?.()) ?? [];
    return retriever.retrieve(query, {
      limit: options.limit ?? 10,
      speakers,
      now: options.now ?? this.#clock.now(),
      ...(options.conversationId ? { scope: { conversationIds: [options.conversationId] } } : {}),
    });
  }


  // ---- memory explorer (issue 7) ------------------------------------------------------------

  #ex(): ExplorerStore {
    if (!this.#explorer) throw new RecollectError('INTERNAL', 'This engine was built without the memory explorer.');
    return this.#explorer;
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
  #embedderOrNull(): Embedder | null {
    return this.#indexer?.status().state === 'error' ? null : this.#activeEmbedder();
  }

  /** After a user edit or deletion: indexes reload, the UI refetches. */
  #memoryChanged(): void {
    this.#emit({ type: 'memory-changed' });
  }

  async memoryOverview(): Promise<MemoryOverview> {
    const ex = this.#ex();
    const [counts, llm, recentJobs, stats, status] = await Promise.all([ex.counts(), ex.llmSpend(), ex.recentJobs(12), this.#store.stats(), this.consolidationStatus()]);
    const e = this.#indexer?.status() ?? null;
    return {
      counts, llm, recentJobs, databaseBytes: stats.databaseBytes, jobs: status.jobs, endpointConfigured: status.endpointConfigured, policy: status.policy,
      embedder: e ? { modelId: e.activeModel, state: e.state, embedded: e.embedded, total: e.total } : null,
    };
  }

  /**
   * Searches turns, facts, episodes and scenes: BM25 per kind plus nearest vectors (turns, facts,
   * episodes) fused by reciprocal rank (k = 60, DESIGN §4), each hit with the reasons it matched.
   */
  async searchMemory(query: string, filters: MemorySearchFilters = {}): Promise<MemorySearchHit[]> {
    const ex = this.#ex();
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const kinds = filters.kinds?.length ? filters.kinds : MEMORY_KINDS;
    const limit = Math.max(1, Math.min(filters.limit ?? 50, 200));
    const fused = new Map<string, { c: SearchCandidate; score: number; similarity: number | null; lexical: boolean }>();
    const add = (c: SearchCandidate, rank: number, similarity: number | null): void => {
      const key = `${c.kind}:${c.id}`;
      const cur = fused.get(key) ?? { c, score: 0, similarity: null, lexical: false };
      cur.score += 1 / (60 + rank);
      if (similarity !== null) cur.similarity = similarity;
      else cur.lexical = true;
      fused.set(key, cur);
    };
    for (const kind of kinds) (await ex.searchKind(kind, query, filters, limit)).forEach((c, i) => add(c, i + 1, null));
    const embedder = this.#embedderOrNull();
    if (embedder) {
      const [vector] = await embedder.embed([query.trim()], 'query');
      const indexes: [MemoryKind, SemanticIndex][] = [['turn', this.#semantic], ['fact', this.#factIndex], ['episode', this.#cellIndex]];
      for (const [kind, index] of indexes) {
        if (!vector || !kinds.includes(kind)) continue;
        // Meaning-only hits must be clearly similar: small embedders (GloVe-SIF) give unrelated
        // texts cosines of 0.5–0.7; below the bar a vector hit only boosts a lexical one.
        const hits = (await index.search(embedder.id, embedder.dim, vector, 12)).filter((h) => h.score >= 0.5);
        const lexicalKeys = new Set([...fused.keys()]);
        const found = new Map((await ex.candidatesByIds(kind, hits.map((h) => h.id), filters)).map((c) => [c.id, c]));
        hits.forEach((h, i) => {
          const c = found.get(h.id);
          if (c && (h.score >= VECTOR_ONLY_MIN || lexicalKeys.has(`${kind}:${c.id}`))) add(c, i + 1, h.score);
        });
      }
    }
    return [...fused.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ c, score, similarity, lexical }) => {
        const reasons = matchReasons(terms, c.fields);
        if (lexical && reasons.length === 0) reasons.push('full-text match (a word form of your query)');
        if (similarity !== null) reasons.push(`similar in meaning (cosine ${similarity.toFixed(2)})`);
        return { kind: c.kind, id: c.id, title: c.title, text: c.text, occurredAt: c.occurredAt, conversationId: c.conversationId, memcellId: c.memcellId, speaker: c.speaker, score, reasons };
      });
  }

  listMemCells(query: MemCellQuery): Promise<MemCellPage> {
    return this.#ex().listMemCells({ ...query, offset: Math.max(0, query.offset), limit: Math.max(1, Math.min(query.limit, 500)) });
  }

  async memCell(id: string): Promise<MemCellDetail | null> {
    return this.#ex().memCell(id);
  }

  async #embedItem(kind: 'fact' | 'memcell', id: string, text: string): Promise<void> {
    const embedder = this.#embedderOrNull();
    if (!embedder || !text.trim()) return;
    try {
      const [v] = await embedder.embed([text], 'document');
      if (v) await this.#store.putVectors(kind, embedder.id, [{ itemId: id, vector: v }]);
    } catch {
      /* a missing vector only weakens search by meaning; full-text search has the edit */
    }
  }

  /** Edits an episode's title/narrative; marked edited by the user, so synthesis keeps them. */
  async editMemCell(id: string, patch: { title?: string; narrative?: string }): Promise<MemCellDetail> {
    await this.#ex().editMemCell(id, patch, this.#clock.now());
    const cell = await this.#ex().memCell(id);
    if (!cell) throw new RecollectError('NOT_FOUND', 'This episode no longer exists.');
    if (cell.narrative) await this.#embedItem('memcell', id, `${cell.title ?? ''}. ${cell.narrative}`);
    this.#memoryChanged();
    return cell;
  }

  /** Corrects a fact; the correction survives re-synthesis and the old wording is not written again. */
  async editFact(id: string, patch: { content?: string; validFrom?: number | null; validTo?: number | null }): Promise<FactView> {
    const fact = await this.#ex().editFact(id, patch, this.#clock.now());
    await this.#embedItem('fact', id, fact.content);
    this.#memoryChanged();
    return fact;
  }

  async deleteFact(id: string): Promise<boolean> {
    const deleted = await this.#ex().deleteFact(id, this.#clock.now());
    if (deleted) this.#memoryChanged();
    return deleted;
  }

  /** Scenes that lost text get a fresh summary from their remaining members. */
  async #resummarise(sceneIds: readonly string[]): Promise<void> {
    if (!this.#jobs || sceneIds.length === 0) return;
    for (const sceneId of sceneIds) await this.#jobs.enqueue(SUMMARISE_SCENE, { sceneId }, { dedupeKey: `scene:${sceneId}` });
    this.#consolidator?.runner.kick();
  }

  /**
   * Forgets an episode: narrative, facts and foresight (tombstoned), and with `turns` its source
   * turns as well; without, the turns stay in the chat and are not made into an episode again.
   */
  async deleteMemCell(id: string, options: { turns?: boolean } = {}): Promise<boolean> {
    const result = await this.#ex().deleteMemCell(id, { turns: options.turns === true }, this.#clock.now());
    if (!result) return false;
    this.#lifecycle?.reset(); // it may have been a conversation's open cell
    for (const t of result.deletedTurnIds) await this.#semantic.remove(t);
    await this.#resummarise(result.sceneId ? [result.sceneId] : []);
    if (result.deletedTurnIds.length) {
      this.#emit({ type: 'messages-changed', conversationId: null });
      this.#emit({ type: 'conversations-changed' });
    }
    this.#memoryChanged();
    return true;
  }

  /** Queues the episode for synthesis now (facts and foresight the user forgot stay forgotten). */
  async resynthesiseMemCell(id: string): Promise<void> {
    if (!this.#jobs || !this.#consolidator) throw new RecollectError('INTERNAL', 'This engine has no synthesis queue.');
    const cell = await this.#ex().memCell(id);
    if (!cell) throw new RecollectError('NOT_FOUND', 'This episode no longer exists.');
    await this.#jobs.enqueue(SYNTHESISE_MEMCELL, { memcellId: id }, { dedupeKey: `memcell:${id}`, priority: 10 });
    await this.#episodes?.setCellStatus(id, 'queued', this.#clock.now());
    this.#consolidator.runner.kick({ resume: true });
    this.#memoryChanged();
  }

  listScenes(): Promise<SceneView[]> {
    return this.#ex().scenes();
  }

  /** Episodes as points: their vectors projected on two principal components, coloured by scene. */
  async sceneMap(): Promise<SceneMapPoint[]> {
    const inputs = await this.#ex().sceneVectorInputs();
    const active = this.#activeVectors();
    if (!active || inputs.length === 0) return [];
    const vectors = new Map((await this.#store.getVectors('memcell', inputs.map((i) => i.memcellId), active.id)).map((v) => [v.itemId, v.vector]));
    // Episodes without a vector from this model (closed under another embedder, or imported):
    // the mean of their turns' vectors, as the lifecycle computes at close (bounded work per call).
    for (const i of inputs.filter((x) => !vectors.has(x.memcellId)).slice(0, 300)) {
      const cell = await this.#ex().memCell(i.memcellId);
      const turns = cell ? await this.#store.getVectors('message', cell.turns.map((t) => t.id), active.id) : [];
      if (turns.length === 0) continue;
      const mean = new Float32Array(active.dim);
      for (const t of turns) if (t.vector.length === active.dim) for (let d = 0; d < mean.length; d++) mean[d]! += t.vector[d]! / turns.length;
      vectors.set(i.memcellId, mean);
    }
    const placed = inputs.filter((i) => vectors.get(i.memcellId)?.length === active.dim);
    const points = pca2d(placed.map((i) => vectors.get(i.memcellId)!));
    return placed.map((i, n) => ({ memcellId: i.memcellId, sceneId: i.sceneId, title: i.title, startAt: i.startAt, x: points[n]![0], y: points[n]![1] }));
  }

  async renameScene(id: string, title: string): Promise<void> {
    await this.#ex().renameScene(id, title, this.#clock.now());
    this.#memoryChanged();
  }

  /** Normalised mean of the episodes' vectors, centred like the clusterer's (see Lifecycle). */
  async #centroidOf(memcellIds: readonly string[]): Promise<Float32Array | null> {
    const active = this.#activeVectors();
    if (!active || memcellIds.length === 0) return null;
    const vectors = (await this.#store.getVectors('memcell', memcellIds, active.id)).filter((v) => v.vector.length === active.dim);
    if (vectors.length === 0) return null;
    const common = await this.#semantic.meanVector(active.id, active.dim);
    const sum = new Float32Array(active.dim);
    for (const { vector } of vectors) for (let i = 0; i < sum.length; i++) sum[i]! += vector[i]! - common[i]!;
    const norm = Math.hypot(...sum);
    return norm > 0 ? sum.map((x) => x / norm) : null;
  }

  async mergeScenes(targetId: string, sourceIds: readonly string[]): Promise<void> {
    const scenes = await this.#ex().scenes();
    const members = scenes.filter((s) => s.id === targetId || sourceIds.includes(s.id)).flatMap((s) => s.members.map((m) => m.id));
    await this.#ex().mergeScenes(targetId, sourceIds, await this.#centroidOf(members), this.#clock.now());
    await this.#resummarise([targetId]);
    this.#memoryChanged();
  }

  /** Moves the given episodes of a scene into a new scene (named `title` if given); returns its id. */
  async splitScene(sceneId: string, memcellIds: readonly string[], title?: string): Promise<string> {
    const scene = (await this.#ex().scenes()).find((s) => s.id === sceneId);
    if (!scene) throw new RecollectError('NOT_FOUND', 'This scene no longer exists.');
    const moving = new Set(memcellIds);
    if (scene.members.every((m) => moving.has(m.id))) throw new RecollectError('INVALID_INPUT', 'Leave at least one episode in the scene (or rename it instead).');
    const newId = this.#newId();
    await this.#ex().splitScene(sceneId, memcellIds, newId, title ?? null, {
      kept: await this.#centroidOf(scene.members.filter((m) => !moving.has(m.id)).map((m) => m.id)),
      split: await this.#centroidOf(memcellIds),
    }, this.#clock.now());
    await this.#resummarise([sceneId, newId]);
    this.#memoryChanged();
    return newId;
  }

  listProfile(): Promise<ProfileItemView[]> {
    return this.#ex().profile();
  }

  async editProfileItem(id: string, value: string): Promise<void> {
    await this.#ex().editProfileItem(id, value, this.#clock.now());
    this.#memoryChanged();
  }

  /** A pinned item is protected from the pipeline: proposals become conflicts for the user. */
  async pinProfileItem(id: string, pinned: boolean): Promise<void> {
    await this.#ex().pinProfileItem(id, pinned, this.#clock.now());
    this.#memoryChanged();
  }

  async resolveProfileConflict(id: string, choice: 'keep' | 'accept'): Promise<void> {
    if (choice !== 'keep' && choice !== 'accept') throw new RecollectError('INVALID_INPUT', `Unknown choice "${String(choice)}".`);
    await this.#ex().resolveProfileConflict(id, choice, this.#clock.now());
    this.#memoryChanged();
  }

  async deleteProfileItem(id: string): Promise<void> {
    await this.#ex().deleteProfileItem(id, this.#clock.now());
    this.#memoryChanged();
  }

  listForesight(): Promise<ForesightItem[]> {
    return this.#ex().foresight();
  }

  async editForesight(id: string, patch: { startAt: number | null; endAt: number | null; content?: string }): Promise<void> {
    await this.#ex().editForesight(id, patch, this.#clock.now());
    this.#memoryChanged();
  }

  async dismissForesight(id: string): Promise<void> {
    await this.#ex().dismissForesight(id, this.#clock.now());
    this.#memoryChanged();
  }

  /** "Forget everything about X", step 1: what would go (shown to the user before anything is deleted). */
  forgetPreview(query: string): Promise<ForgetCandidate[]> {
    return this.#ex().forgetCandidates(query, 50);
  }

  /** Step 2: deletes the confirmed items in one transaction, each tombstoned. */
  async forget(items: readonly { readonly kind: ForgetKind; readonly id: string }[]): Promise<ForgetResult> {
    const result = await this.#ex().forget(items, this.#clock.now());
    this.#lifecycle?.reset();
    for (const t of result.deletedTurnIds) await this.#semantic.remove(t);
    await this.#resummarise(result.sceneIds);
    if (result.deletedTurnIds.length) {
      this.#emit({ type: 'messages-changed', conversationId: null });
      this.#emit({ type: 'conversations-changed' });
    }
    this.#memoryChanged();
    return { deleted: result.deleted };
  }

  // ---- LLM endpoint settings -------------------------------------------------------------

  async llmSettings(): Promise<LlmSettingsView> {
    return viewOf((await this.#settings?.loadLlm()) ?? null);
  }

  async #resolve(input: LlmSettingsInput): Promise<LlmSettings> {
    const baseUrl = input.baseUrl.trim();
    const model = input.model.trim();
    if (baseUrl && !/^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i.test(baseUrl)) {
      throw new RecollectError('INVALID_INPUT', `"${baseUrl}" is not an http(s) address. Use the server's address, e.g. http://localhost:11434/v1.`);
    }
    const current = await this.#settings?.loadLlm();
    const apiKey = input.apiKey === undefined ? (current?.apiKey ?? null) : input.apiKey?.trim() || null;
    return { baseUrl, model, apiKey };
  }

  /** Saves the endpoint (an empty base URL clears it); synthesis resumes with the new endpoint. */
  async saveLlmSettings(input: LlmSettingsInput): Promise<LlmSettingsView> {
    if (!this.#settings || !this.#llmFactory) throw new RecollectError('INTERNAL', 'This engine cannot store endpoint settings.');
    const resolved = await this.#resolve(input);
    const settings = resolved.baseUrl ? resolved : null;
    await this.#settings.saveLlm(settings);
    this.setLlm(settings && viewOf(settings).configured ? this.#llmFactory(settings, this.#llmSink) : null);
    this.#emit({ type: 'settings-changed' });
    return viewOf(settings);
  }

  /** Tries the endpoint described by `input` (not saved): reachability, key, model list. */
  async testLlmConnection(input: LlmSettingsInput): Promise<LlmConnectionTest> {
    if (!this.#llmFactory) throw new RecollectError('INTERNAL', 'This engine cannot reach an endpoint.');
    const settings = await this.#resolve(input);
    if (!settings.baseUrl) throw new RecollectError('INVALID_INPUT', 'Enter the endpoint address first.');
    return this.#llmFactory(settings, this.#llmSink).testConnection({ probe: !!settings.model });
  }

  async listLlmModels(input: LlmSettingsInput): Promise<string[]> {
    if (!this.#llmFactory) return [];
    const settings = await this.#resolve(input);
    if (!settings.baseUrl) return [];
    return this.#llmFactory(settings, null).listModels();
  }

  /** Tokens per stage since `since` (ms), from the llm_calls ledger. */
  async llmUsage(since = 0): Promise<Record<string, StageUsage>> {
    return (await this.#llmSink?.byStage(since)) ?? {};
  }

  // ---- answering -------------------------------------------------------------------------

  /**
   * Answers from memory, streaming events to `onEvent`. A memory chat answers the stored user turn
   * and stores the answer (with its citations, the exact request and token usage in metadata); a
   * temporary chat stores nothing and consults no memory.
   */
  async ask(request: AskRequest, onEvent: (event: AskEvent) => void): Promise<AskResult> {
    const llm = this.#llm;
    if (!llm) throw new RecollectError('LLM_NOT_CONFIGURED', 'No LLM endpoint is configured. Open Settings to add one; your messages are still stored and searchable.');
    const temporary = request.temporary === true;
    let question: string;
    let history: LlmMessage[];
    if (temporary) {
      question = (request.question ?? '').trim();
      if (!question) throw new RecollectError('INVALID_INPUT', 'Ask something first.');
      history = (request.history ?? []).slice(-HISTORY_TURNS).map((t) => ({ role: t.role, content: t.content }));
    } else {
      const turns = await this.#store.listMessages(request.conversationId);
      const index = turns.findIndex((t) => t.id === request.userMessageId);
      if (index < 0) throw new RecollectError('NOT_FOUND', 'The message to answer is no longer stored.');
      question = turns[index]!.content;
      history = turns.slice(Math.max(0, index - HISTORY_TURNS), index)
        .filter((t) => t.role !== 'system')
        .map((t) => ({ role: t.role === 'assistant' ? 'assistant' : 'user', content: t.content }));
    }
    const source = temporary || !this.#answerSource ? EMPTY_ANSWER_SOURCE : this.#answerSource;
    const answerDefaults = await this.answerSettings();
    const Controller = (globalThis as unknown as { AbortController: new () => { abort(): void; signal: LlmAbortSignal } }).AbortController;
    const controller = new Controller();
    this.#answers.set(request.answerId, controller);
    let result: AnswerResult;
    try {
      const run = answerQuestion({ llm, source, clock: this.#clock }, question, {
        history,
        signal: controller.signal,
        sufficiencyCheck: request.sufficiencyCheck ?? answerDefaults.sufficiencyCheck,
        budgetTokens: request.budgetTokens ?? answerDefaults.budgetTokens,
      });
      for (;;) {
        const step = await run.next();
        if (step.done) {
          result = step.value;
          break;
        }
        const e = step.value;
        if (e.type === 'delta') onEvent({ type: 'delta', text: e.text });
        else if (e.type === 'status') onEvent({ type: 'status', stage: e.stage });
      }
    } finally {
      this.#answers.delete(request.answerId);
    }
    if (temporary || (!result.answer.trim() && result.stopped)) return { answer: result, messageId: null };
    const stored = await this.appendTurn({
      id: request.answerId,
      conversationId: request.conversationId,
      role: 'assistant',
      speaker: 'Assistant',
      content: result.answer.trim() || '(no answer)',
      metadata: {
        answerTo: request.userMessageId ?? null,
        model: result.model,
        stopped: result.stopped,
        citations: result.citations,
        requests: result.requests,
        usage: result.usage,
      },
    });
    const used = result.contextCitations.filter((c) => c.kind === 'turn').map((c) => c.ref);
    if (used.length > 0) void this.noteRetrieved(used).catch(() => undefined);
    return { answer: result, messageId: stored.message.id };
  }

  /** Stops a streaming answer; what was said so far is kept. */
  async stopAnswer(answerId: string): Promise<void> {
    this.#answers.get(answerId)?.abort();
  }

  /** An answer used these turns: visits, heat, and synthesis of raw episodes per the policy. */
  async noteRetrieved(messageIds: readonly string[]): Promise<void> {
    await this.#lifecycle?.onRetrieved(messageIds);
  }

  /** Sets (or clears) the LLM endpoint used for synthesis; paused work resumes. */
  setLlm(llm: Llm | null): void {
    this.#llm = llm;
    this.#consolidator?.endpointChanged();
  }

  async consolidationStatus(): Promise<ConsolidationStatus> {
    const runner = this.#consolidator?.runner.status();
    return {
      policy: this.#policy,
      llmBoundaryCheck: this.#llmBoundaryCheck,
      endpointConfigured: this.#llm !== null,
      jobs: this.#jobs ? await this.#jobs.counts() : { pending: 0, scheduled: 0, running: 0, done: 0, failed: 0 },
      pausedReason: runner?.pausedUntil ? runner.pauseReason : null,
      lastError: runner?.lastError ? `${runner.lastError.code}: ${runner.lastError.message}` : null,
    };
  }

  #activeVectors(): ActiveVectors | null {
    const e = this.#embedderOrNull();
    return e ? { id: e.id, dim: e.dim } : null;
  }

  /** Resumes background work left from an earlier session (embedding, segmentation). */
  async start(): Promise<void> {
    const saved = await this.#settings?.loadLlm().catch(() => null);
    if (saved && this.#llmFactory && viewOf(saved).configured) this.#llm = this.#llmFactory(saved, this.#llmSink);
    const policy = await this.#store.getMeta(META_POLICY);
    if (policy === 'eager' || policy === 'recurrence' || policy === 'off') this.#policy = policy;
    this.#llmBoundaryCheck = (await this.#store.getMeta(META_LLM_BOUNDARY)) === '1';
    if (this.#indexer) {
      await this.#indexer.init();
      this.#indexer.kick();
    } else this.#lifecycle?.kick();
    await this.#consolidator?.start();
  }

  /** Stops background work (the database is about to close). */
  stop(): void {
    this.#indexer?.stop();
    this.#lifecycle?.stop();
    this.#consolidator?.runner.stop();
  }

  /**
   * Resolves when background embedding, segmentation and due consolidation jobs have caught up
   * (tests, benchmark ingest). Jobs waiting for a backoff or a paused endpoint are not waited for.
   */
  async idle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
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

  /** The optional LLM boundary check for segmentation (off by default; costs one small call per turn). */
  async answerSettings(): Promise<AnswerSettings> {
    const budget = Number(await this.#store.getMeta(META_ANSWER_BUDGET));
    const sufficiency = await this.#store.getMeta(META_SUFFICIENCY);
    return {
      budgetTokens: Number.isFinite(budget) && budget > 0 ? budget : DEFAULT_ANSWER_SETTINGS.budgetTokens,
      sufficiencyCheck: sufficiency === null ? DEFAULT_ANSWER_SETTINGS.sufficiencyCheck : sufficiency === '1',
    };
  }

  async setAnswerSettings(settings: Partial<AnswerSettings>): Promise<AnswerSettings> {
    if (settings.budgetTokens !== undefined) {
      const b = Math.round(settings.budgetTokens);
      if (!Number.isFinite(b) || b < 200 || b > 100_000) throw new RecollectError('INVALID_INPUT', 'The memory budget must be between 200 and 100,000 tokens.');
      await this.#store.setMeta(META_ANSWER_BUDGET, String(b));
    }
    if (settings.sufficiencyCheck !== undefined) await this.#store.setMeta(META_SUFFICIENCY, settings.sufficiencyCheck ? '1' : '0');
    return this.answerSettings();
  }

  async setLlmBoundaryCheck(enabled: boolean): Promise<boolean> {
    this.#llmBoundaryCheck = enabled;
    await this.#store.setMeta(META_LLM_BOUNDARY, enabled ? '1' : '0');
    return enabled;
  }

  async consolidationPolicy(): Promise<PolicyName> {
    return this.#policy;
  }

  async setConsolidationPolicy(name: PolicyName): Promise<PolicyName> {
    if (name !== 'eager' && name !== 'recurrence' && name !== 'off') throw new RecollectError('INVALID_INPUT', `Unknown consolidation policy "${String(name)}".`);
    this.#policy = name;
    await this.#store.setMeta(META_POLICY, name);
    return name;
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

  async createConversation(input: { id?: string; title: string }): Promise<Conversation> {
    const c = await this.#store.createConversation(input);
    this.#emit({ type: 'conversations-changed' });
    return c;
  }

  async renameConversation(id: string, title: string): Promise<Conversation> {
    const c = await this.#store.renameConversation(id, title);
    this.#emit({ type: 'conversations-changed' });
    return c;
  }

  async deleteConversation(id: string): Promise<void> {
    await this.#store.deleteConversation(id);
    this.#semantic.reset();
    this.#lifecycle?.reset();
    this.#emit({ type: 'conversations-changed' });
    this.#emit({ type: 'messages-changed', conversationId: id });
  }

  listConversations(): Promise<Conversation[]> {
    return this.#store.listConversations();
  }

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

  async appendTurn(turn: NewTurn): Promise<AppendResult> {
    const [result] = await this.appendTurns([turn]);
    return result!;
  }

  listMessages(conversationId: string): Promise<Message[]> {
    return this.#store.listMessages(conversationId);
  }

  async deleteMessage(id: string): Promise<boolean> {
    const message = await this.#store.getMessage(id);
    const deleted = await this.#store.deleteMessage(id);
    if (deleted) {
      await this.#semantic.remove(id);
      this.#emit({ type: 'messages-changed', conversationId: message?.conversationId ?? null });
      this.#emit({ type: 'conversations-changed' });
    }
    return deleted;
  }

  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    return this.#store.searchMessages(query, options);
  }

  stats(): Promise<StorageStats> {
    return this.#store.stats();
  }

  exportDatabase(): Promise<Uint8Array> {
    return this.#store.exportDatabase();
  }

  async importDatabase(bytes: Uint8Array): Promise<ImportSummary> {
    const summary = await this.#store.importDatabase(bytes);
    this.#semantic.reset();
    this.#lifecycle?.reset();
    this.#emit({ type: 'database-replaced' });
    if (this.#indexer) {
      await this.#indexer.init();
      this.#indexer.kick();
    } else this.#lifecycle?.kick();
    return summary;
  }

  /** Nearest stored turns by meaning (active embedder's vectors), best first; score is cosine. */
  async vectorSearch(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    if (!this.#indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected, so search by meaning is unavailable.');
    const text = query.trim();
    if (!text) return [];
    const limit = Math.max(1, Math.min(options.limit ?? 20, 500));
    const embedder = this.#indexer.activeEmbedder();
    const [vector] = await embedder.embed([text], 'query');
    if (!vector) return [];
    const hits = await this.#semantic.search(embedder.id, embedder.dim, vector, options.conversationId ? limit * 10 : limit);
    const out: SearchHit[] = [];
    for (const hit of hits) {
      if (hit.score <= 0) continue;
      const message = await this.#store.getMessage(hit.id);
      if (!message || (options.conversationId && message.conversationId !== options.conversationId)) continue;
      out.push({ message, score: hit.score, snippet: message.content.length > 240 ? `${message.content.slice(0, 240)}…` : message.content });
      if (out.length >= limit) break;
    }
    return out;
  }

  embeddingStatus(): Promise<EmbeddingStatus | null> {
    return Promise.resolve(this.#indexer?.status() ?? null);
  }

  /** Switches the embedder; everything is re-embedded in the background with progress events. */
  async setEmbedder(modelId: string): Promise<EmbeddingStatus> {
    if (!this.#indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected.');
    return this.#indexer.setTarget(modelId);
  }

  /** History import (issue 15; historyImport.ts): a dry run with the synthesis estimate per policy. */
  scanHistory(file: HistoryFile, request: HistoryRequest, onProgress?: (p: HistoryProgress) => void): Promise<HistoryScan> {
    return this.#historyImports().scan(file, request, onProgress);
  }

  importHistory(file: HistoryFile, request: HistoryRequest & { readonly policy?: PolicyName }, onProgress?: (p: HistoryProgress) => void): Promise<HistoryImportReport> {
    return this.#historyImports().import(file, request, onProgress);
  }

  async cancelHistoryImport(importId: string): Promise<void> {
    this.#history?.cancel(importId);
  }

  #historyImports(): HistoryImports {
    if (!this.#history) throw new RecollectError('INVALID_INPUT', 'Importing chat history is not available here.');
    return this.#history;
  }
}
