/**
 * The one protocol file: everything that crosses a worker boundary — the engine worker
 * (EngineWorkerApi), the model worker (ModelWorkerApi) and the benchmark worker (BenchWorkerApi).
 *
 * One error transport: a worker exposes its API `resultify`-ed, so no method throws across the
 * boundary and an expected failure arrives as a Result with its `code` intact (Comlink alone would
 * reduce a thrown error to a bare message); callers wrap the remote with `unwrapRemote` and get
 * RecollectErrors back.
 */
import type { GlobalMemory } from './engine/globalMemory';
import { RecollectError, toErrorInfo, type ErrorInfo } from './base/errors';
import type { SearchOptions } from './base/store';
import type { EmbeddingStatus } from './capture/EmbeddingIndexer';
import type { PolicyName } from './episodes/consolidationPolicy';
import type { AnswerResult } from './recall/answer';
import type { JobCounts } from './base/jobs';
import type { LlmSettingsInput, LlmSettingsView } from './base/settings';
import type { EmbedRole, LlmConnectionTest } from './base/ports';
import type { RetrievalResult } from './recall/Retriever';
import type {
  FactPage, FactQuery, FactView, ForgetCandidate, ForgetKind, ForgetResult, MemCellDetail, MemCellPage, MemCellQuery, MemoryOverview, MemorySearchFilters, MemorySearchHit,
  ProfileItemView, SceneMapPoint, SceneView,
} from './explorer/explorer';
import type { ForesightItem, ProfileItem } from './synthesis/knowledge';
import type { HistoryFile, HistoryImportReport, HistoryProgress, HistoryRequest, HistoryScan } from './base/historyImport';
import type { AppendResult, Conversation, ConversationMemory, ImportSummary, Message, NewTurn, SearchHit, StageUsage, StorageStats } from './base/types';

export type { StageUsage };

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


export interface RecallOptions {
  readonly limit?: number;
  readonly conversationId?: string;
  /** When the question is asked (default now); relative dates resolve against it. */
  readonly now?: number;
}

/** The time zone in use, and whether the user chose it or it is the browser's. */
export interface TimeZoneSetting {
  readonly timeZone: string;
  readonly source: 'user' | 'browser';
}

export interface ConsolidationStatus {
  readonly policy: PolicyName;
  readonly llmBoundaryCheck: boolean;
  readonly endpointConfigured: boolean;
  readonly jobs: JobCounts;
  readonly pausedReason: string | null;
  readonly lastError: string | null;
}

/** How answers are composed (Settings → Answers). */
export interface AnswerSettings {
  /** Context budget in tokens for memories sent with a question. */
  readonly budgetTokens: number;
  /** Ask the model whether the context suffices, with one extra retrieval round (costs a call). */
  readonly sufficiencyCheck: boolean;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ErrorInfo };

/** What the UI can ask of the memory engine. */
export interface EngineApi {
  /** A new conversation; its memory switches follow memoryDefaults() unless the input sets them. */
  createConversation(input: { readonly id?: string; readonly title: string } & Partial<ConversationMemory>): Promise<Conversation>;
  /**
   * A conversation's memory switches: "use memory in answers" and "remember this conversation"
   * (semantics in core/engine/conversationMemory.ts). Emits conversations-changed.
   */
  setConversationMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation>;
  /** The switches new conversations start with (Settings → Memory). */
  memoryDefaults(): Promise<ConversationMemory>;
  setMemoryDefaults(patch: Partial<ConversationMemory>): Promise<ConversationMemory>;
  /** "Use saved memories" / "use chat history" over every answer (both on by default). */
  globalMemory(): Promise<GlobalMemory>;
  setGlobalMemory(patch: Partial<GlobalMemory>): Promise<GlobalMemory>;
  renameConversation(id: string, title: string): Promise<Conversation>;
  deleteConversation(id: string): Promise<void>;
  listConversations(): Promise<Conversation[]>;
  appendTurn(turn: NewTurn): Promise<AppendResult>;
  appendTurns(turns: readonly NewTurn[]): Promise<AppendResult[]>;
  listMessages(conversationId: string): Promise<Message[]>;
  deleteMessage(id: string): Promise<boolean>;
  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  stats(): Promise<StorageStats>;
  exportDatabase(): Promise<Uint8Array>;
  importDatabase(bytes: Uint8Array): Promise<ImportSummary>;
  /** Chat history from other services (issue 15): scan first (counts, cost estimate), then import; both stream and can be cancelled. */
  scanHistory(file: HistoryFile, request: HistoryRequest, onProgress?: (p: HistoryProgress) => void): Promise<HistoryScan>;
  importHistory(file: HistoryFile, request: HistoryRequest & { readonly policy?: PolicyName }, onProgress?: (p: HistoryProgress) => void): Promise<HistoryImportReport>;
  cancelHistoryImport(importId: string): Promise<void>;
  vectorSearch(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  embeddingStatus(): Promise<EmbeddingStatus | null>;
  setEmbedder(modelId: string): Promise<EmbeddingStatus>;
  consolidationPolicy(): Promise<PolicyName>;
  setConsolidationPolicy(name: PolicyName): Promise<PolicyName>;
  consolidationStatus(): Promise<ConsolidationStatus>;
  setLlmBoundaryCheck(enabled: boolean): Promise<boolean>;
  /** The user's time zone (day boundaries, date foresight, answer dates); null follows the browser. */
  timeZone(): Promise<TimeZoneSetting>;
  setTimeZone(zone: string | null): Promise<TimeZoneSetting>;
  answerSettings(): Promise<AnswerSettings>;
  setAnswerSettings(settings: Partial<AnswerSettings>): Promise<AnswerSettings>;
  ask(request: AskRequest, onEvent: (event: AskEvent) => void): Promise<AskResult>;
  stopAnswer(answerId: string): Promise<void>;
  recall(query: string, options?: RecallOptions): Promise<RetrievalResult>;
  llmSettings(): Promise<LlmSettingsView>;
  saveLlmSettings(input: LlmSettingsInput): Promise<LlmSettingsView>;
  testLlmConnection(input: LlmSettingsInput): Promise<LlmConnectionTest>;
  listLlmModels(input: LlmSettingsInput): Promise<string[]>;
  llmUsage(since?: number): Promise<Record<string, StageUsage>>;

  // Memory explorer (issue 7): see, search, edit and forget memory. Deletions are tombstoned.
  memoryOverview(): Promise<MemoryOverview>;
  searchMemory(query: string, filters?: MemorySearchFilters): Promise<MemorySearchHit[]>;
  listMemCells(query: MemCellQuery): Promise<MemCellPage>;
  listFacts(query: FactQuery): Promise<FactPage>;
  memCell(id: string): Promise<MemCellDetail | null>;
  editMemCell(id: string, patch: { readonly title?: string; readonly narrative?: string }): Promise<MemCellDetail>;
  editFact(id: string, patch: { readonly content?: string; readonly validFrom?: number | null; readonly validTo?: number | null }): Promise<FactView>;
  deleteFact(id: string): Promise<boolean>;
  deleteMemCell(id: string, options?: { readonly turns?: boolean }): Promise<boolean>;
  resynthesiseMemCell(id: string): Promise<void>;
  listScenes(): Promise<SceneView[]>;
  sceneMap(): Promise<SceneMapPoint[]>;
  renameScene(id: string, title: string): Promise<void>;
  mergeScenes(targetId: string, sourceIds: readonly string[]): Promise<void>;
  splitScene(sceneId: string, memcellIds: readonly string[], title?: string): Promise<string>;
  listProfile(): Promise<ProfileItemView[]>;
  editProfileItem(id: string, value: string): Promise<void>;
  pinProfileItem(id: string, pinned: boolean): Promise<void>;
  resolveProfileConflict(id: string, choice: 'keep' | 'accept'): Promise<void>;
  deleteProfileItem(id: string): Promise<void>;
  /** Saved memories: a sentence written by the user, kept as an explicit profile item. */
  addMemory(text: string): Promise<ProfileItem>;
  listForesight(): Promise<ForesightItem[]>;
  editForesight(id: string, patch: { readonly startAt: number | null; readonly endAt: number | null; readonly content?: string }): Promise<void>;
  dismissForesight(id: string): Promise<void>;
  forgetPreview(query: string): Promise<ForgetCandidate[]>;
  forget(items: readonly { readonly kind: ForgetKind; readonly id: string }[]): Promise<ForgetResult>;
}


// ---------------------------------------------------------------------------------------------
// The model worker
// ---------------------------------------------------------------------------------------------

export type ModelKind = 'embedder' | 'reranker';

export interface ModelProgress {
  readonly modelId: string;
  /** The file currently reported on, if any. */
  readonly file: string | null;
  readonly loaded: number;
  /** Best estimate of the total bytes (grows as files start; catalog size until then). */
  readonly total: number;
  readonly done: boolean;
}
export type ProgressListener = (progress: ModelProgress) => unknown;

export interface ModelInfo {
  readonly id: string;
  readonly kind: ModelKind;
  readonly label: string;
  readonly dim: number | null;
  readonly approxBytes: number;
  readonly bundled: boolean;
  readonly note: string;
  /** Loadable without the network. */
  readonly available: boolean;
  /** Downloaded earlier and kept in the browser cache (or Node FS cache). */
  readonly cached: boolean;
  readonly selected: boolean;
}

export type SlotState = 'none' | 'loading' | 'ready' | 'error';
export interface SlotStatus {
  readonly modelId: string | null;
  /** For embedders: the id stored next to each vector. */
  readonly vectorId: string | null;
  readonly dim: number | null;
  readonly device: string | null;
  /** Why the preferred device is not the one running (e.g. WebGPU had no adapter), else null. */
  readonly notice: string | null;
  readonly state: SlotState;
  readonly error: ErrorInfo | null;
}
export interface ModelStatus {
  readonly embedder: SlotStatus;
  readonly reranker: SlotStatus;
  /** Where the embedder is asked to run: the platform's choice, WebGPU (falls back to WASM) or WASM. */
  readonly devicePreference: DevicePreference;
}

export type DevicePreference = 'auto' | 'webgpu' | 'wasm';

/** The model worker's API (src/models/ModelService.ts implements it; Comlink exposes it resultified). */
export interface ModelWorkerApi {
  /** Embeds with the loaded embedder. */
  embed(texts: readonly string[], role?: EmbedRole): Promise<Float32Array[]>;
  /** Embeds with `modelId`, loading it first if needed (the engine asks for its active model). */
  embedWith(modelId: string, texts: readonly string[], role?: EmbedRole): Promise<Float32Array[]>;
  /** Scores each document against the query with the loaded reranker. */
  rerank(query: string, docs: readonly string[]): Promise<number[]>;
  loadEmbedder(id: string): Promise<ModelStatus>;
  loadReranker(id: string | null): Promise<ModelStatus>;
  /** Reloads the embedder on the preferred device (WebGPU falls back to WASM with a notice). */
  setDevicePreference(preference: DevicePreference): Promise<ModelStatus>;
  status(): ModelStatus | Promise<ModelStatus>;
  listModels(): Promise<ModelInfo[]>;
  /** The user's explicit download action: the only call that reaches the network. */
  downloadModel(id: string, onProgress?: ProgressListener): Promise<ModelInfo[]>;
}

/** Message the page posts to the model worker to hand it a port for the engine worker. */
export const MODEL_PORT_MESSAGE = 'recollect:connect-port';

/** A MessagePort, typed structurally so this file compiles without the DOM library. */
export interface MessagePortLike {
  postMessage(message: unknown, transfer?: unknown[]): void;
  close(): void;
}

/** Engine events, so the UI can invalidate cached queries. */
export type EngineEvent =
  | { readonly type: 'conversations-changed' }
  | { readonly type: 'messages-changed'; readonly conversationId: string | null }
  | { readonly type: 'database-replaced' }
  | { readonly type: 'memory-changed' }
  | { readonly type: 'settings-changed' }
  | { readonly type: 'embedding-status'; readonly status: EmbeddingStatus };

/** Who owns the database: this tab, or another one (then this tab waits or asks to take over). */
export type Ownership =
  | { readonly state: 'owner' }
  | { readonly state: 'elsewhere' }
  | { readonly state: 'failed'; readonly error: ErrorInfo };

export type RemoteEngine = Resultified<EngineApi>;

/** The object the engine worker exposes. */
export interface EngineWorkerApi {
  /**
   * Tries to become the single writer of the database (Web Locks). With `wait`, resolves only once
   * ownership is obtained (another tab closed or handed over).
   */
  acquire(options: { readonly wait: boolean }): Promise<Ownership>;
  /** Asks the tab that owns the database to hand it over; resolves when the request was sent. */
  requestTakeover(): Promise<void>;
  /**
   * Connects the engine to the model worker through a MessagePort (the UI creates both workers
   * and a MessageChannel between them). Call before `acquire`.
   */
  connectModels(port: MessagePortLike): Promise<void>;
  /** Registers a listener for engine events and for losing ownership to another tab. */
  subscribe(listener: (event: EngineEvent | { readonly type: 'ownership-lost' }) => void): Promise<void>;
  readonly engine: RemoteEngine;
}

// ---------------------------------------------------------------------------------------------
// The benchmark worker (bench.html)
// ---------------------------------------------------------------------------------------------

export interface BenchTurnInput {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly speaker: string;
  readonly text: string;
  /** Caption of a shared image, stored in message metadata (indexed with the turn). */
  readonly caption?: string;
}

export interface BenchSessionInput {
  readonly id: string;
  /** ms since epoch: every turn of the session is stored with this time. */
  readonly date: number;
  readonly turns: readonly BenchTurnInput[];
}

/** One benchmark corpus (bench/datasets.ts's BenchCorpus fits this shape). */
export interface BenchCorpusInput {
  readonly id: string;
  readonly speakers: readonly string[];
  readonly sessions: readonly BenchSessionInput[];
  readonly questions: readonly { readonly id: string; readonly text: string; readonly askedAt: number }[];
}

export interface BenchRecallOptions {
  /** Ranking depth per question (default 100). */
  readonly depth?: number;
  /** Untimed warm-up questions before the timed pass (default 3). */
  readonly warmup?: number;
}

export interface BenchIngestTiming {
  readonly turns: number;
  /** appendTurns for every session (the write path: messages, FTS and turn-index triggers). */
  readonly captureMs: number;
  /** After capture, until background embedding has caught up (engine.idle()). */
  readonly embedMs: number;
}

export interface BenchCorpusResult {
  readonly corpusId: string;
  readonly fileName: string;
  readonly embedderId: string | null;
  readonly ingest: BenchIngestTiming;
  readonly dbBytes: number;
  /** Per question, in input order: turn ids best first, and retrieval time inside the engine. */
  readonly ranked: readonly (readonly string[])[];
  readonly latenciesMs: readonly number[];
}

/** The benchmark worker's API (Comlink). */
export interface BenchWorkerApi {
  connectModels(port: MessagePortLike): Promise<void>;
  recallCorpus(corpus: BenchCorpusInput, options?: BenchRecallOptions, onProgress?: (line: string) => void): Promise<BenchCorpusResult>;
}

/** The scale benchmark's side of the benchmark worker (src/host/ScaleBenchHost.ts). */
export interface ScaleQuestionInput {
  readonly id: string;
  readonly text: string;
  readonly askedAt: number;
}

export interface ScaleSystemResult {
  /** Per question, in input order: turn ids best first. */
  readonly ranked: readonly (readonly string[])[];
  readonly latenciesMs: readonly number[];
}

export interface ScaleMeasurement {
  readonly turns: number;
  readonly dbBytes: number;
  /** SQLite's WebAssembly memory (wa-sqlite's heap: page cache, FTS buffers); 0 when not visible. */
  readonly wasmBytes: number;
  readonly ours: ScaleSystemResult;
  readonly bm25: ScaleSystemResult;
}

export interface ScaleMeasureOptions {
  /** Turns ranked per question (default 10, what the app's recall asks for). */
  readonly depth?: number;
  /** Untimed warm-up questions per system before the timed pass (default 3). */
  readonly warmup?: number;
}

export interface ColdOpenResult {
  readonly turns: number;
  /** Turn ids of the first search, best first (proves it searched the grown database). */
  readonly ranked: readonly string[];
  /** Inside the worker: opening the file, starting the engine and the first recall. */
  readonly openMs: number;
  readonly firstRecallMs: number;
}

export interface ScaleWorkerApi {
  scaleOpen(fileName: string, options?: { reuse?: boolean }): Promise<{ embedderId: string | null }>;
  scaleAppend(corpus: BenchCorpusInput): Promise<BenchIngestTiming>;
  scaleMeasure(questions: readonly ScaleQuestionInput[], options?: ScaleMeasureOptions): Promise<ScaleMeasurement>;
  scaleClose(): Promise<void>;
  scaleDelete(fileName: string): Promise<void>;
  coldOpen(fileName: string, question: ScaleQuestionInput): Promise<ColdOpenResult>;
}

// ---------------------------------------------------------------------------------------------
// One error transport for every worker: methods return Results; callers unwrap them
// ---------------------------------------------------------------------------------------------

/** An API as it crosses a worker boundary: every method resolves to a Result, never throws. */
export type Resultified<T> = { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<Result<Awaited<R>>> : never };

/** The caller's side: every method returns a promise and throws the RecollectError the worker reported. */
export type Unwrapped<T> = { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<Awaited<R>> : never };

/**
 * Wraps a remote `Resultified<T>` (e.g. `Comlink.wrap(worker)`) so calls resolve to values and
 * failures throw RecollectErrors with their code. Name T explicitly: `unwrapRemote<ModelWorkerApi>(…)`.
 */
export function unwrapRemote<T>(remote: object): Unwrapped<T> {
  return new Proxy({} as Unwrapped<T>, {
    get(_target, method) {
      if (typeof method !== 'string' || method === 'then') return undefined; // not a thenable
      return async (...args: unknown[]) => {
        const fn = (remote as unknown as Record<string, (...a: unknown[]) => Promise<Result<unknown>>>)[method]!;
        return unwrapResult(await fn(...args));
      };
    },
  });
}

/** The worker's side: an object whose methods (own and inherited) return Results instead of throwing. */
export function resultify<T extends object>(target: T): Resultified<T> {
  const out: Record<string, unknown> = {};
  let proto: object | null = target;
  const names = new Set<string>();
  while (proto && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  for (const name of names) {
    const fn = (target as Record<string, unknown>)[name];
    if (typeof fn !== 'function') continue;
    out[name] = async (...args: unknown[]) => {
      try {
        return { ok: true, value: await (fn as (...a: unknown[]) => unknown).apply(target, args) };
      } catch (err) {
        return { ok: false, error: toErrorInfo(err) };
      }
    };
  }
  return out as never;
}

export function unwrapResult<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new RecollectError(result.error.code, result.error.message, result.error.detail);
}
