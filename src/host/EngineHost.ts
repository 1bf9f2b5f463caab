/**
 * Runs in the engine worker: makes sure only one tab ever writes the database, then serves the
 * engine. Ownership is a Web Lock held for as long as this worker has the database open; other
 * tabs wait in the lock queue, and may ask the owner (over a BroadcastChannel) to hand over.
 */
import { RecollectError, toErrorInfo, type ErrorInfo } from '../core/base/errors';
import type { MemoryEngine } from '../core/engine/MemoryEngine';
import {
  DEVICE_LLM_STOPPED_MESSAGE,
  ENGINE_GROUPS,
  resultifyEngine,
  type EngineEvent,
  type ModelWorkerChange,
  type EngineWorkerApi,
  type MemoryUpgradeEvent,
  type MessagePortLike,
  type Ownership,
  type RemoteEngine,
} from '../core/protocol';
import type { EmbedderProvider } from '../core/base/ports';
import type { SqliteMemoryStore } from '../storage/SqliteMemoryStore';
import type { SettingsStore } from '../core/base/settings';
import type { VectorIndexFactory } from '../core/capture/vectorIndex';
import { createEngine } from './createEngine';
import type { TextGenerator } from '../core/protocol';
import { DeviceLlm } from '../llm/DeviceLlm';
import { BUILT_IN_CONTEXT_TOKENS, BUILT_IN_MODEL_ID } from '../llm/PromptApiGenerator';
import { findDeviceLlm } from '../models/deviceLlmCatalog';
import { holdLifeline } from './lifeline';
import { LlmError } from '../llm/llmErrors';

export const OWNER_LOCK = 'recollect:database-owner';
const CHANNEL = 'recollect:ownership';

type HostEvent = EngineEvent | MemoryUpgradeEvent | { readonly type: 'ownership-lost' };

const DB_BUSY = new RecollectError('DB_BUSY', 'Recollect is open in another tab. Use it there, or take it over here.').toInfo();

/**
 * While this tab does not own the database every engine call fails (nothing is written): with
 * DB_BUSY while another tab holds it, or with the reason the open failed. The page holds calls back
 * until its first acquire has answered (src/app/engineClient.ts), so DB_BUSY is never what a call
 * made while the memory is still opening hears.
 */
function closedEngine(error: ErrorInfo = DB_BUSY): RemoteEngine {
  const refuse = new Proxy(
    {},
    { get: (_target, method) => (typeof method === 'string' && method !== 'then' ? async () => ({ ok: false, error }) : undefined) },
  );
  return Object.fromEntries(ENGINE_GROUPS.map((g) => [g, refuse])) as unknown as RemoteEngine;
}

/** A lock request given up by its signal (AbortSignal.timeout rejects with a TimeoutError). */
function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

export interface EngineHostDeps {
  /** Opens (and migrates) the database; `onProgress` hears migrations that rebuild data. */
  readonly openStore: (onProgress?: (step: string, done: number, total: number) => void) => Promise<SqliteMemoryStore>;
  /** Opens a memory that keeps nothing (SQLite in memory), for a window without OPFS. */
  readonly openTemporaryStore?: () => Promise<SqliteMemoryStore>;
  /** Tells "this window cannot keep files" from other failed opens (storageUnavailable.ts). */
  readonly explainOpenFailure?: (err: unknown) => unknown;
  /** Endpoint settings, kept outside the database (IndexedDB in the browser). */
  readonly settings: SettingsStore;
  /** Builds the embedder provider over a port to the model worker. */
  readonly connectModels?: (port: MessagePortLike, reason?: ModelWorkerChange) => EmbedderProvider;
  /** Reaches a TextGenerator (a model on this device) through a port; `stop` fails its calls in flight. */
  readonly connectDeviceLlm?: (port: MessagePortLike) => TextGenerator & { stop?(err: Error): void };
  /** The vector index implementation (the WASM SIMD kernel where it loads; see src/wasm/vectorKernel.ts). */
  readonly vectorIndex?: () => Promise<VectorIndexFactory>;
}

export class EngineHost implements EngineWorkerApi {
  engine: RemoteEngine = closedEngine();
  readonly #deps: EngineHostDeps;
  #embedders: EmbedderProvider | undefined;
  #device: {
    readonly generator: TextGenerator & { stop?(err: Error): void };
    readonly model: string;
    readonly label: string;
    readonly contextTokens?: number;
  } | null = null;
  #engine: MemoryEngine | null = null;
  readonly #listeners = new Set<(e: HostEvent) => void>();
  #store: SqliteMemoryStore | null = null;
  #release: (() => void) | null = null;
  #attempt: Promise<Ownership> | null = null;
  /** The open memory keeps nothing (openTemporary): it is never handed to another tab. */
  #temporary = false;
  readonly #channel = new BroadcastChannel(CHANNEL);

  constructor(deps: EngineHostDeps) {
    this.#deps = deps;
    this.#channel.onmessage = (e: MessageEvent<{ type?: string }>) => {
      // A temporary memory exists only here: handing it over would lose it, and no tab can take it.
      if (e.data?.type === 'takeover' && this.#store && !this.#temporary) void this.#handOver();
    };
  }

  acquire(options: { wait: boolean; graceMs?: number }): Promise<Ownership> {
    if (this.#store) return Promise.resolve(this.#temporary ? { state: 'owner', temporary: true } : { state: 'owner' });
    // One attempt at a time: a second caller shares the running attempt's answer (and queues for
    // the lock itself if it wants to wait and that answer was "elsewhere").
    if (this.#attempt) {
      return this.#attempt.then((r) => (r.state === 'elsewhere' && options.wait ? this.acquire(options) : r));
    }
    // Without `wait`, a lock still held after `graceMs` means another tab: until then it may be
    // this tab's previous page letting go (a reload, a restarted worker).
    const grace = !options.wait && options.graceMs !== undefined && options.graceMs > 0 ? options.graceMs : 0;
    const lockOptions: LockOptions = options.wait ? {} : grace > 0 ? { signal: AbortSignal.timeout(grace) } : { ifAvailable: true };
    const attempt = new Promise<Ownership>((resolve) => {
      void navigator.locks
        .request(OWNER_LOCK, lockOptions, async (lock) => {
          if (!lock) {
            resolve({ state: 'elsewhere' });
            return;
          }
          try {
            await this.#open(this.#deps.openStore);
          } catch (err) {
            const error = toErrorInfo(this.#deps.explainOpenFailure?.(err) ?? err);
            this.engine = closedEngine(error);
            resolve({ state: 'failed', error });
            return;
          }
          resolve({ state: 'owner' });
          // Hold the lock until we hand over or the worker dies (the browser then releases it).
          await new Promise<void>((release) => (this.#release = release));
        })
        // The grace ran out in the lock's queue: another tab holds the memory.
        .catch((err: unknown) => resolve(isTimeout(err) ? { state: 'elsewhere' } : { state: 'failed', error: toErrorInfo(err) }));
    });
    this.#attempt = attempt;
    void attempt.finally(() => (this.#attempt = null));
    return attempt;
  }

  async openTemporary(): Promise<Ownership> {
    if (this.#store) return this.acquire({ wait: false });
    const open = this.#deps.openTemporaryStore;
    if (!open)
      return { state: 'failed', error: new RecollectError('STORAGE_UNAVAILABLE', 'This build cannot open a temporary memory.').toInfo() };
    this.#temporary = true;
    try {
      // No owner lock: the memory is this worker's alone, and another tab could never open it.
      await this.#open(() => open());
    } catch (err) {
      this.#temporary = false;
      const error = toErrorInfo(err);
      this.engine = closedEngine(error);
      return { state: 'failed', error };
    }
    return { state: 'owner', temporary: true };
  }

  async requestTakeover(): Promise<void> {
    this.#channel.postMessage({ type: 'takeover' });
  }

  async connectModels(port: MessagePortLike, reason?: ModelWorkerChange): Promise<void> {
    this.#embedders = this.#deps.connectModels?.(port, reason);
  }

  async useDeviceLlm(port: MessagePortLike | null, model: string | null, label?: string, contextTokens?: number): Promise<void> {
    const connect = this.#deps.connectDeviceLlm;
    const reported = contextTokens !== undefined && Number.isFinite(contextTokens) && contextTokens > 0 ? contextTokens : undefined;
    this.#device =
      port && model && connect
        ? { generator: connect(port), model, label: label ?? model, ...(reported ? { contextTokens: reported } : {}) }
        : null;
    this.#applyDevice();
  }

  #applyDevice(): void {
    const device = this.#device;
    const contextTokens = device
      ? (device.contextTokens ??
        (device.model === BUILT_IN_MODEL_ID ? BUILT_IN_CONTEXT_TOKENS : findDeviceLlm(device.model)?.contextTokens))
      : undefined;
    this.#engine?.useDeviceLlm(
      device
        ? (sink) =>
            new DeviceLlm(device.generator, {
              model: device.model,
              label: device.label,
              ...(contextTokens ? { contextTokens } : {}),
              ...(sink ? { sink } : {}),
            })
        : null,
    );
  }

  async subscribe(listener: (event: HostEvent) => void): Promise<void> {
    this.#listeners.add(listener);
  }

  holdLifeline(name: string): Promise<void> {
    return holdLifeline(name);
  }

  async deviceLlmStopped(): Promise<void> {
    // LLM_UNAVAILABLE: an answer says why and offers Try again; synthesis parks the job and resumes it
    // once the model answers again (synthesisRecovery), as after an endpoint outage.
    this.#device?.generator.stop?.(new LlmError('LLM_UNAVAILABLE', DEVICE_LLM_STOPPED_MESSAGE));
  }

  async #open(openStore: EngineHostDeps['openStore']): Promise<void> {
    const store = await openStore((step, done, total) => this.#emit({ type: 'memory-upgrade', step, done, total }));
    const vectorIndex = await this.#deps.vectorIndex?.();
    const engine = createEngine(store, {
      settings: this.#deps.settings,
      ...(this.#embedders ? { embedders: this.#embedders } : {}),
      ...(vectorIndex ? { vectorIndex } : {}),
    });
    engine.on((event) => this.#emit(event));
    this.#store = store;
    this.#engine = engine;
    this.engine = resultifyEngine(engine);
    this.#applyDevice();
    // Resume embedding left over from an earlier session; failures show in embeddingStatus().
    void engine.start().catch(() => undefined);
  }

  async #handOver(): Promise<void> {
    const store = this.#store;
    if (!store) return;
    this.#store = null;
    this.engine = closedEngine();
    this.#engine?.stop();
    this.#engine = null;
    await store.db.close();
    this.#release?.();
    this.#release = null;
    this.#emit({ type: 'ownership-lost' });
  }

  #emit(event: HostEvent): void {
    for (const l of this.#listeners) {
      // A listener from a closed page throws; drop it so it is not called again.
      Promise.resolve()
        .then(() => l(event))
        .catch(() => this.#listeners.delete(l));
    }
  }
}
