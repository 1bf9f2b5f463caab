/**
 * The one protocol file: everything that crosses a worker boundary — the engine worker
 * (EngineWorkerApi), the model worker (ModelWorkerApi), the device-LLM worker and the page's
 * Markdown worker (MarkdownWorkerApi). The benchmark worker's wire types are
 * not the product's and live in bench/host/benchProtocol.ts, built on this file's transport.
 *
 * One error transport: a worker exposes its API `resultify`-ed, so no method throws across the
 * boundary and an expected failure arrives as a Result with its `code` intact (Comlink alone would
 * reduce a thrown error to a bare message); callers wrap the remote with `unwrapRemote` and get
 * RecollectErrors back.
 */
import { RecollectError, toErrorInfo, type ErrorInfo } from './base/errors';
import type { EmbeddingStatus } from './capture/embeddingStatus';
import type { EmbedRole, LlmMessage } from './base/ports';
import type { Root as HastRoot } from 'hast';
import type { StageUsage } from './base/types';
import type { ConversationsApi } from './protocol/conversations';
import type { ProjectsApi } from './protocol/projects';
import type { AnswersApi } from './protocol/answers';
import type { MemoryApi } from './protocol/memory';
import type { ProfileApi } from './protocol/profile';
import type { PlansApi } from './protocol/plans';
import type { SynthesisApi } from './protocol/synthesis';
import type { IndexingApi, IndexingStatus } from './protocol/indexing';
import type { DataApi } from './protocol/data';
import type { SettingsApi } from './protocol/settings';
import type { SyncApi, SyncStatus } from './protocol/sync';

export type { StageUsage };
export type { ConversationsApi, ProjectsApi, AnswersApi, MemoryApi, ProfileApi, PlansApi, SynthesisApi, IndexingApi, DataApi, SettingsApi };
export type { SyncApi, SyncStatus } from './protocol/sync';
export type { SendRequest } from './protocol/conversations';
export type { AskRequest, AskEvent, AskResult, RecallOptions } from './protocol/answers';
export type { TimeZoneSetting, AnswerSettings } from './protocol/settings';
export type { ConsolidationStatus } from './protocol/synthesis';
export type { IndexingStatus };
export type { SwitchProgress } from './capture/embeddingStatus';
export type { SynthesisFailures } from './synthesis/synthesisRecovery';

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ErrorInfo };

/** What the UI can ask of the memory engine. */
/**
 * Progress of a schema migration that rebuilds data while the memory is opened (schema 9
 * re-indexes every turn for search), so the opening screen can show how far it is.
 */
export interface MemoryUpgradeEvent {
  readonly type: 'memory-upgrade';
  readonly step: string;
  readonly done: number;
  readonly total: number;
}

/**
 * The engine's API, grouped by what callers do (src/core/protocol/*.ts): a caller writes
 * `engine.conversations.rename(…)`. Over the worker boundary it is still one Comlink endpoint: the
 * worker exposes each group resultified (EngineHost), and Comlink walks `engine.<group>.<method>`.
 */
export interface EngineApi {
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
}

/** The groups of EngineApi, in one list (the worker and the page build their proxies from it). */
export const ENGINE_GROUPS = [
  'conversations',
  'projects',
  'answers',
  'memory',
  'profile',
  'plans',
  'synthesis',
  'indexing',
  'data',
  'settings',
  'sync',
] as const satisfies readonly (keyof EngineApi)[];
export type EngineGroup = (typeof ENGINE_GROUPS)[number];

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
  /** The languages it covers, for people: "English", "About 100 languages (…)". */
  readonly languages: string;
  /** The same as ISO 639-1 codes, or ["multilingual"]; what the language notice compares with. */
  readonly languageCodes: readonly string[];
  /** SPDX licence id of the weights. */
  readonly licence: string;
  /** Loadable without the network. */
  readonly available: boolean;
  /** Downloaded earlier and kept in the browser cache (or Node FS cache). */
  readonly cached: boolean;
  /**
   * Some files but not all are cached: a download stopped before it finished (cancelled, the
   * connection lost, the page reloaded). Downloading again fetches only the rest.
   */
  readonly partial: boolean;
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
  /** Stops the running download (it then fails as cancelled); files that arrived whole are kept. */
  cancelDownload(): void;
  /** Where downloads come from: a mirror of the Hub in `<repo>/resolve/main/<file>` layout (null: the Hub). */
  setModelHub(url: string | null): Promise<string>;
  /**
   * The person's "Delete download": drops a downloaded model's files from the cache. Refused
   * (MODEL_IN_USE) for the embedder or reranker in use or a switch's target, (INVALID_INPUT) for
   * a bundled model, and while that model is downloading.
   */
  deleteDownload(id: string): Promise<DeletedDownload<ModelInfo>>;
}

/** What "Delete download" did: the space it freed and the model list after it. */
export interface DeletedDownload<M> {
  readonly modelId: string;
  /** Bytes removed from the cache (the files' own sizes, or the catalog's size where a file did not say). */
  readonly freedBytes: number;
  readonly models: readonly M[];
}

// ---------------------------------------------------------------------------------------------
// Language models on this device: transformers.js in the device-LLM worker, or the browser's
// built-in model (Prompt API). Both are reached through `TextGenerator`; src/llm/DeviceLlm.ts
// turns one into the engine's `Llm` (ledger, retries, structured output), so nothing is sent anywhere.
// ---------------------------------------------------------------------------------------------

export type DeviceLlmProvider = 'transformers' | 'prompt-api';

export interface DeviceGenerationRequest {
  /** Names this generation for `cancel`. */
  readonly requestId: string;
  readonly messages: readonly LlmMessage[];
  readonly maxNewTokens: number;
  /** 0 or absent: greedy decoding. */
  readonly temperature?: number;
}

export interface DeviceGenerationResult {
  /** Everything generated (partial when cancelled). */
  readonly text: string;
  /** The model's id as the catalog names it (the ledger's `model`). */
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** True when the counts are estimates (the provider reported none). */
  readonly tokensEstimated: boolean;
  /** 'stop' (end of turn), 'length' (maxNewTokens reached) or 'cancelled' (cancel() was called). */
  readonly finishReason: 'stop' | 'length' | 'cancelled';
  /** Where it ran: 'webgpu', 'wasm', 'cpu' (Node) or 'built-in'. */
  readonly device: string;
}

/**
 * One decoded piece, and where it is being generated ('webgpu', 'wasm', 'built-in'), so a stopped
 * first answer can still say where it ran (its result is never waited for).
 */
export type TextListener = (text: string, device?: string) => unknown;

/**
 * A model that generates on this device. `generate` calls `onText` with each decoded piece, in
 * order, before it resolves; a cancelled generation resolves with what it had. Expected failures
 * (no model loaded, the model failed to load) reject with an LLM_* code.
 */
export interface TextGenerator {
  generate(request: DeviceGenerationRequest, onText?: TextListener): Promise<DeviceGenerationResult>;
  cancel(requestId: string): void | Promise<void>;
}

/** The browser's built-in model, as `LanguageModel.availability()` reports it. */
export type BuiltInAvailability = 'available' | 'downloadable' | 'downloading' | 'unavailable' | 'unsupported';

export type DeviceLlmState = 'none' | 'loading' | 'ready' | 'error';

export interface DeviceLlmStatus {
  readonly modelId: string | null;
  readonly state: DeviceLlmState;
  /** 'webgpu' or 'wasm' once loaded. */
  readonly device: string | null;
  /** Why the preferred device is not the one running, else null. */
  readonly notice: string | null;
  readonly error: ErrorInfo | null;
}

export interface DeviceLlmInfo {
  readonly id: string;
  readonly label: string;
  readonly approxBytes: number;
  readonly languages: string;
  readonly licence: string;
  /** Expected speed, for people ("≈ 140 tokens/s on a desktop GPU"). */
  readonly speed: string;
  readonly note: string;
  /** Downloaded earlier and kept in the browser cache. */
  readonly cached: boolean;
  /** Null when it can run here; otherwise why not (no WebGPU, adapter limits too small, …). */
  readonly unusable: string | null;
}

/** The device-LLM worker's API (src/models/DeviceLlmService.ts implements it). */
export interface DeviceLlmWorkerApi extends TextGenerator {
  listModels(): Promise<DeviceLlmInfo[]>;
  /** The user's explicit download action: the only call that reaches the network. */
  downloadModel(id: string, onProgress?: ProgressListener): Promise<DeviceLlmInfo[]>;
  cancelDownload(): void;
  load(id: string): Promise<DeviceLlmStatus>;
  status(): DeviceLlmStatus;
  setModelHub(url: string | null): Promise<string>;
  /** Drops a downloaded model's files (every precision of it); refused (MODEL_IN_USE) for the loaded model. */
  deleteDownload(id: string): Promise<DeletedDownload<DeviceLlmInfo>>;
}

/** Message the page posts to the device-LLM worker to hand it a port for the engine worker. */
export const DEVICE_LLM_PORT_MESSAGE = 'recollect:connect-device-llm';

/** Message the page posts to the model worker to hand it a port for the engine worker. */
export const MODEL_PORT_MESSAGE = 'recollect:connect-port';
/** The model worker to the page: restart me (a model broke this worker's ONNX runtime; ModelService.onRuntimeBroken). */
export const MODEL_RESTART_MESSAGE = 'recollect:restart-model-worker';

/**
 * The page to the model and device-LLM workers: hold the Web Lock `name` for your whole life, and
 * answer LIFELINE_HELD_MESSAGE with the same name once you do (see core/base/workerWatch.ts). The
 * engine worker is asked the same through `holdLifeline`.
 */
export const LIFELINE_MESSAGE = 'recollect:hold-lifeline';
export const LIFELINE_HELD_MESSAGE = 'recollect:lifeline-held';

/** What calls cut off by a dead model worker say (on the page and in the engine). */
export const MODEL_WORKER_STOPPED_MESSAGE =
  'The model worker stopped (it may have run out of memory), so this did not finish. Recollect restarted it; try again.';
/** What generations cut off by a dead device-LLM worker say. */
export const DEVICE_LLM_STOPPED_MESSAGE =
  'The model on this device stopped (it may have run out of memory), so this did not finish. Recollect restarted it; try again.';

/** A MessagePort, typed structurally so this file compiles without the DOM library. */
/**
 * A message's Markdown as an element tree (hast, plain data), made safe and bounded by
 * src/app/markdown/markdownTree.ts on the page or in the Markdown worker.
 */
export interface MarkdownTree {
  readonly root: HastRoot;
  /** Nodes in the tree (elements and text), after flattening. */
  readonly nodes: number;
  /** Something was nested too deeply and is shown as its text. */
  readonly flattened: boolean;
}

/**
 * The Markdown worker (workers/markdown.worker.ts): parses one message the page would not parse on
 * its own thread ("Show formatted" on a long or pathological message). The page starts one worker
 * per request and terminates it at a deadline, so a parse that never ends costs nothing but that.
 */
export interface MarkdownWorkerApi {
  format(text: string, options: { readonly citations: boolean }): MarkdownTree;
}

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
  | { readonly type: 'embedding-status'; readonly status: EmbeddingStatus }
  | { readonly type: 'indexing-status'; readonly status: IndexingStatus }
  | { readonly type: 'sync-status'; readonly status: SyncStatus };

/** Who owns the database: this tab, or another one (then this tab waits or asks to take over). */
export type Ownership =
  /** `temporary`: the memory is in this worker's memory only (openTemporary), and nothing is kept. */
  | { readonly state: 'owner'; readonly temporary?: boolean }
  | { readonly state: 'elsewhere' }
  | { readonly state: 'failed'; readonly error: ErrorInfo };

/** The engine as the worker exposes it: each group resultified (Comlink walks `engine.<group>.<method>`). */
export type RemoteEngine = { readonly [G in keyof EngineApi]: Resultified<EngineApi[G]> };

/**
 * Why the page hands the engine a port to a new model worker: the old one broke its ONNX runtime
 * and was replaced ('replaced'), or it died ('stopped'); calls left waiting on it fail saying so.
 */
export type ModelWorkerChange = 'replaced' | 'stopped';

/** The object the engine worker exposes. */
export interface EngineWorkerApi {
  /**
   * Tries to become the single writer of the database (Web Locks). With `wait`, resolves only once
   * ownership is obtained (another tab closed or handed over). Without it, answers 'elsewhere' if
   * the lock is still held after `graceMs` (0: at once): on a reload the previous page's worker
   * can hold it for a few seconds more, and that is not another tab.
   */
  acquire(options: { readonly wait: boolean; readonly graceMs?: number }): Promise<Ownership>;
  /** Asks the tab that owns the database to hand it over; resolves when the request was sent. */
  requestTakeover(): Promise<void>;
  /**
   * Opens a memory that keeps nothing (in memory, no lock, never handed over), for a window that
   * cannot keep files: after `acquire` failed with STORAGE_UNAVAILABLE (a Firefox private window).
   */
  openTemporary(): Promise<Ownership>;
  /**
   * Connects the engine to the model worker through a MessagePort (the UI creates both workers
   * and a MessageChannel between them). Call before `acquire`.
   */
  connectModels(port: MessagePortLike, reason?: ModelWorkerChange): Promise<void>;
  /**
   * Answers with a model on this device instead of the endpoint: `port` reaches a TextGenerator
   * (the device-LLM worker, or the page's built-in model), `model` is its catalog id for the
   * ledger. null, null: back to the endpoint. Kept across database hand-overs. `contextTokens`:
   * the window the model reported (the browser's built-in model); else the catalog's, or the
   * built-in model's usual one.
   */
  useDeviceLlm(port: MessagePortLike | null, model: string | null, label?: string, contextTokens?: number): Promise<void>;
  /**
   * The device-LLM worker died: generations waiting on it fail now with WORKER_STOPPED (the page
   * then starts a new worker and hands its port over with `useDeviceLlm`).
   */
  deviceLlmStopped(): Promise<void>;
  /** Registers a listener for engine events and for losing ownership to another tab. */
  subscribe(listener: (event: EngineEvent | MemoryUpgradeEvent | { readonly type: 'ownership-lost' }) => void): Promise<void>;
  /**
   * Takes the Web Lock `name` and holds it for the worker's whole life; resolves once it is held.
   * The browser releases a dead worker's locks, so the page learns of the death by asking for it.
   */
  holdLifeline(name: string): Promise<void>;
  readonly engine: RemoteEngine;
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

/** The page's side of the engine: every group of `remote` (RemoteEngine, over Comlink) unwrapped. */
export function unwrapEngine(remote: object): EngineApi {
  const groups = remote as Record<EngineGroup, object>;
  return Object.fromEntries(ENGINE_GROUPS.map((g) => [g, unwrapRemote(groups[g])])) as unknown as EngineApi;
}

/** The worker's side of the engine: each group resultified. */
export function resultifyEngine(engine: EngineApi): RemoteEngine {
  return Object.fromEntries(ENGINE_GROUPS.map((g) => [g, resultify(engine[g])])) as unknown as RemoteEngine;
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
