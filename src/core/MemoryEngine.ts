/**
 * The memory engine: the API the UI talks to (through the worker), built from injected
 * capabilities. For now it stores, lists, searches and transfers turns; later stages (embedding,
 * segmentation, consolidation, retrieval) hang off the same write and read paths.
 */
import type { EngineApi, EngineEvent } from './protocol';
import type { MemoryStore, SearchOptions, VectorStore } from './store';
import type { AppendResult, Conversation, ImportSummary, Message, NewTurn, SearchHit, StorageStats } from './types';
import { systemClock, type Clock, type EmbedderProvider, type Llm } from './ports';
import { RecollectError } from './errors';
import { EmbeddingIndexer, type EmbeddingStatus } from './EmbeddingIndexer';
import { SemanticIndex } from './SemanticIndex';
import type { EpisodeStore } from './episodes';
import type { JobStore } from './jobs';
import { Lifecycle, type ActiveVectors } from './Lifecycle';
import { policyByName, type PolicyName } from './consolidationPolicy';
import { newId } from './ids';
import { llmBoundaryJudge } from './boundaryCheck';
import type { KnowledgeStore } from './knowledge';
import type { Timer } from './jobs';
import { Consolidator } from './Consolidator';
import { Retriever, type RetrievalResult, type RetrievalSource } from './Retriever';
import { viewOf, type LlmFactory, type LlmSettings, type LlmSettingsInput, type LlmSettingsView, type SettingsStore } from './settings';
import type { LlmCallSink, LlmConnectionTest, LlmMessage, LlmAbortSignal } from './ports';
import type { AnswerSource } from './answerContext';
import { answerQuestion, type AnswerResult } from './answer';

/** What the read path needs to build an AnswerSource (see src/storage/answerSource.ts). */
export type AnswerSourceFactory = (
  recall: (query: string, options: { limit?: number; now?: number; conversationId?: string }) => Promise<RetrievalResult>,
  vectors: (kind: 'fact' | 'memcell', query: string, k: number) => Promise<readonly { readonly id: string; readonly score: number }[]>,
) => AnswerSource;

export interface AskRequest {
  readonly conversationId: string;
  /** The stored user turn to answer (appendTurn first, so the turn is kept whatever happens). */
  readonly userMessageId?: string;
  /** Temporary chat: the question text; nothing is stored and memory is not consulted. */
  readonly question?: string;
  readonly temporary?: boolean;
  /** Temporary chat: the conversation so far (memory chats read it from the database). */
  readonly history?: readonly { readonly role: 'user' | 'assistant'; readonly content: string }[];
  /** Lets the UI stop this answer with stopAnswer(answerId). */
  readonly answerId: string;
  readonly sufficiencyCheck?: boolean;
  readonly budgetTokens?: number;
}

export type AskEvent = { readonly type: 'status'; readonly stage: string } | { readonly type: 'delta'; readonly text: string };

export interface AskResult {
  readonly answer: AnswerResult;
  /** The stored assistant turn (null in a temporary chat, or when nothing was said before a stop). */
  readonly messageId: string | null;
}

/** How many earlier turns of the chat go with the question. */
const HISTORY_TURNS = 8;

export interface StageUsage {
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** The cost ledger's read side (llm_calls). */
export interface UsageLedger {
  byStage(since?: number): Promise<Record<string, StageUsage>>;
}

/** Nearest message vectors of one model (the engine's SemanticIndex). */
export type VectorSearch = (vectorModelId: string, query: Float32Array, k: number) => Promise<readonly { readonly id: string; readonly score: number }[]>;

export interface RecallOptions {
  readonly limit?: number;
  readonly conversationId?: string;
  /** When the question is asked (default now); relative dates resolve against it. */
  readonly now?: number;
}

/** A Timer over the platform's setTimeout (present in browsers, workers and Node). */
const platformTimer: Timer = (fn, ms) => {
  const g = globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown; clearTimeout(h: unknown): void };
  const h = g.setTimeout(fn, ms);
  return { cancel: () => g.clearTimeout(h) };
};

export interface ConsolidationStatus {
  readonly policy: PolicyName;
  readonly llmBoundaryCheck: boolean;
  readonly endpointConfigured: boolean;
  readonly jobs: Record<'pending' | 'running' | 'done' | 'failed', number>;
  readonly pausedReason: string | null;
  readonly lastError: string | null;
}

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
  #policy: PolicyName = 'recurrence';
  #llmBoundaryCheck = false;
  readonly #boundaryJudge = llmBoundaryJudge(() => this.#llm);

  constructor(deps: MemoryEngineDeps) {
    this.#store = deps.store;
    this.#llm = deps.llm ?? null;
    this.#jobs = deps.jobs ?? null;
    this.#speakers = deps.speakers ?? null;
    this.#clock = deps.clock ?? systemClock;
    this.#settings = deps.settings ?? null;
    this.#llmFactory = deps.llmFactory ?? null;
    this.#llmSink = deps.llmSink ?? null;
    this.#semantic = new SemanticIndex(deps.store, 'message');
    this.#retrievalSource = deps.retrievalSource?.((model, query, k) => this.#semantic.search(model, query.length, query, k)) ?? null;
    this.#factIndex = new SemanticIndex(deps.store, 'fact');
    this.#cellIndex = new SemanticIndex(deps.store, 'memcell');
    this.#answerSource = deps.answerSource?.(
      (query, options) => this.recall(query, options),
      async (kind, query, k) => {
        const embedder = this.#activeVectors() ? this.#indexer?.activeEmbedder() : undefined;
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
          embedder: () => {
            try {
              return this.#indexer?.activeEmbedder() ?? null;
            } catch {
              return null;
            }
          },
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
    let embedder;
    try {
      embedder = this.#activeVectors() ? this.#indexer?.activeEmbedder() : undefined;
    } catch {
      embedder = undefined;
    }
    const retriever = new Retriever({ source: this.#retrievalSource, ...(embedder ? { embedder } : {}) });
    const speakers = (await this.#speakers?.()) ?? [];
    return retriever.retrieve(query, {
      limit: options.limit ?? 10,
      speakers,
      now: options.now ?? this.#clock.now(),
      ...(options.conversationId ? { scope: { conversationIds: [options.conversationId] } } : {}),
    });
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
    const Controller = (globalThis as unknown as { AbortController: new () => { abort(): void; signal: LlmAbortSignal } }).AbortController;
    const controller = new Controller();
    this.#answers.set(request.answerId, controller);
    let result: AnswerResult;
    try {
      const run = answerQuestion({ llm, source, clock: this.#clock }, question, {
        history,
        signal: controller.signal,
        ...(request.sufficiencyCheck !== undefined ? { sufficiencyCheck: request.sufficiencyCheck } : {}),
        ...(request.budgetTokens !== undefined ? { budgetTokens: request.budgetTokens } : {}),
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
      jobs: this.#jobs ? await this.#jobs.counts() : { pending: 0, running: 0, done: 0, failed: 0 },
      pausedReason: runner?.pausedUntil ? runner.pauseReason : null,
      lastError: runner?.lastError ? `${runner.lastError.code}: ${runner.lastError.message}` : null,
    };
  }

  #activeVectors(): ActiveVectors | null {
    if (!this.#indexer || this.#indexer.status().state === 'error') return null;
    try {
      const e = this.#indexer?.activeEmbedder();
      return e ? { id: e.id, dim: e.dim } : null;
    } catch {
      return null;
    }
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
    const result = await this.#store.appendTurn(turn);
    if (result.created) {
      this.#emit({ type: 'messages-changed', conversationId: turn.conversationId });
      this.#emit({ type: 'conversations-changed' });
      if (this.#indexer) this.#indexer.kick();
      else this.#lifecycle?.kick();
    }
    return result;
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
}
