/**
 * The UI's handles on the two workers of a tab: the engine (database owner, results unwrapped into
 * RecollectErrors, events forwarded) and the model worker (catalog, downloads). The engine reaches
 * the model worker directly through a MessageChannel, not through this thread.
 *
 * A worker that dies (out of memory, a crash, closed) sends nothing: Comlink calls to it simply
 * never settle, which once left the app hanging silently. So every worker of the tab (engine,
 * models, device LLM) is watched the same way, by its lifeline (core/base/workerWatch.ts): when the
 * engine dies, every call still waiting fails with ENGINE_STOPPED, listeners hear 'engine-stopped',
 * and a fresh worker is started ('engine-restarted'); the UI re-acquires the database and
 * refetches. `engine` stays the same object across restarts, so components keep their state (a
 * draft survives). When the model or device-LLM worker dies, the calls waiting on it fail (on the
 * page and in the engine, which reaches both through ports), listeners hear 'worker-stopped', and
 * a fresh one is started and handed to the engine again with the saved choices.
 *
 * Every worker, the first one too, holds engine calls back until its first `acquire` has answered:
 * until then it does not own the database and would refuse each call as "open in another tab".
 * On a page load the last conversation's box takes typing while the memory is still opening, and
 * a message sent then must simply go through. Once the answer is in, calls pass: to the open
 * engine, or to a refusal that is true (DB_BUSY: another tab owns the memory) or says why the
 * open failed.
 *
 * A reload is not another tab: the page that was there a moment ago has a worker that may still
 * hold the database's lock for a second or more on a busy machine (measured at ≈5,000 turns,
 * e2e/askOnOpenDaily.spec.ts: a send in the first seconds came back as "open in another tab" in
 * about 1 of 10 reloads). So a first acquire waits up to HANDOVER_GRACE_MS for the lock, still
 * showing "Opening your memory…" and holding calls, before it says another tab has the memory.
 */
import * as Comlink from 'comlink';
import {
  DEVICE_LLM_PORT_MESSAGE,
  DEVICE_LLM_STOPPED_MESSAGE,
  MODEL_WORKER_STOPPED_MESSAGE,
  MODEL_PORT_MESSAGE,
  MODEL_RESTART_MESSAGE,
  ENGINE_GROUPS,
  unwrapEngine,
  type BuiltInAvailability,
  type DeviceLlmWorkerApi,
  type EngineApi,
  type EngineEvent,
  type EngineGroup,
  type EngineWorkerApi,
  type MemoryUpgradeEvent,
  type ModelWorkerApi,
  type Ownership,
  type Unwrapped,
} from '../core/protocol';
import { RecollectError } from '../core/base/errors';
import { WorkerReplacedError } from '../core/base/swappableRemote';
import { watchedWorker, watchLifeline, lifelineName, type WatchedWorker } from '../core/base/workerWatch';
import { startPageWorker, type PageWorker } from './workerStart';
import { readDevicePreference } from './devicePreference';
import { applyModelChoices, readModelHub } from './modelChoices';
import { readDeviceChoice, saveDeviceChoice, type DeviceChoice } from './deviceChoice';
import {
  BUILT_IN_MODEL_ID,
  builtInModelAvailability,
  builtInModelWindow,
  exposeBuiltInModel,
  startBuiltInDownload,
} from '../../workers/builtInModel.page';

/** How long a first acquire waits for a lock that may be this tab's previous page letting go. */
export const HANDOVER_GRACE_MS = 5_000;

export type ClientEvent =
  | EngineEvent
  | MemoryUpgradeEvent
  | { readonly type: 'ownership-lost' }
  /** The engine worker died; `restarting` is false once it has died too often to try again. */
  | { readonly type: 'engine-stopped'; readonly restarting: boolean }
  | { readonly type: 'engine-restarted' }
  /** The model worker or the device-LLM worker died; `restarting` as for the engine. */
  | { readonly type: 'worker-stopped'; readonly worker: 'models' | 'device-llm'; readonly restarting: boolean };

export interface EngineClient {
  readonly engine: EngineApi;
  readonly models: Unwrapped<ModelWorkerApi>;
  /** The device-LLM worker (started on first use: nobody pays for it who does not choose it). */
  deviceLlm(): Unwrapped<DeviceLlmWorkerApi>;
  builtInAvailability(): Promise<BuiltInAvailability>;
  /** Lets the browser download its built-in model (call from a click); progress is a fraction. */
  downloadBuiltIn(onProgress: (fraction: number) => void): Promise<void>;
  /** Answers from a model on this device (kept in this browser), or from the endpoint again (null). */
  setDeviceChoice(choice: DeviceChoice): Promise<void>;
  deviceChoice(): DeviceChoice;
  acquire(wait: boolean): Promise<Ownership>;
  /** A memory that keeps nothing, in the engine worker's memory (a window without OPFS). */
  openTemporary(): Promise<Ownership>;
  requestTakeover(): Promise<void>;
  onEvent(listener: (event: ClientEvent) => void): () => void;
}

/** More deaths than this within RESTART_WINDOW_MS: stop restarting (something fails at start-up). */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

export const ENGINE_STOPPED_MESSAGE =
  'The memory engine stopped unexpectedly, so this did not finish. Recollect restarted it; everything already stored is safe. Try again.';

interface Connection {
  readonly remote: Comlink.Remote<EngineWorkerApi>;
  readonly engine: EngineApi;
  readonly connected: Promise<void>;
  /** Rejects with ENGINE_STOPPED when the worker is gone (never resolves). */
  readonly dead: Promise<never>;
  /** Calls wait for this: the worker's first acquire must have answered (see the header). */
  readonly opened: Promise<void>;
  open(): void;
}

type DeviceLlmWorker = WatchedWorker<Unwrapped<DeviceLlmWorkerApi>, PageWorker<DeviceLlmWorkerApi>>;
/**
 * Points the engine at the chosen model on this device: loads it in the device-LLM worker (a
 * failure is kept there and reported by every answer, so answers stop with the reason instead of
 * going elsewhere) and hands the engine a port to it; or the page's built-in model; or nothing.
 */
async function applyDeviceChoice(
  remote: Comlink.Remote<EngineWorkerApi>,
  llm: DeviceLlmWorker,
  choice: DeviceChoice,
  label: string | null,
): Promise<void> {
  if (!choice) return remote.useDeviceLlm(null, null);
  const channel = new MessageChannel();
  if (choice.provider === 'prompt-api') {
    exposeBuiltInModel(channel.port1);
    return remote.useDeviceLlm(
      Comlink.transfer(channel.port2, [channel.port2]),
      BUILT_IN_MODEL_ID,
      'Built-in model (Chrome)',
      choice.contextTokens,
    );
  }
  const { worker, api } = llm.current();
  // Not awaited: generations wait in the worker until the load has finished (or say why it failed).
  void api.load(choice.modelId).catch(() => undefined);
  worker.postMessage({ type: DEVICE_LLM_PORT_MESSAGE, port: channel.port1 }, [channel.port1]);
  return remote.useDeviceLlm(Comlink.transfer(channel.port2, [channel.port2]), choice.modelId, label ?? choice.modelId);
}

type Call = (...args: unknown[]) => Promise<unknown>;

/** `engine.<group>.<method>` of an EngineApi object, as a plain function. */
function callOf(engine: EngineApi, group: EngineGroup, method: string): Call {
  return (engine[group] as unknown as Record<string, Call>)[method]!;
}

/** An EngineApi whose every `engine.<group>.<method>(…)` goes through `call`. */
function engineProxy(call: (group: EngineGroup, method: string, args: unknown[]) => Promise<unknown>): EngineApi {
  const group = (g: EngineGroup) =>
    new Proxy(
      {},
      {
        get(_target, method) {
          if (typeof method !== 'string' || method === 'then') return undefined; // not a thenable
          return (...args: unknown[]) => call(g, method, args);
        },
      },
    );
  return Object.fromEntries(ENGINE_GROUPS.map((g) => [g, group(g)])) as unknown as EngineApi;
}

function connect(modelWorker: Worker, llm: DeviceLlmWorker, emit: (event: ClientEvent) => void, onDeath: () => void): Connection {
  const worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'recollect-engine' });
  const remote = Comlink.wrap<EngineWorkerApi>(worker);
  const { dead } = watchLifeline(
    {
      holdLifeline: (name) => remote.holdLifeline(name),
      onError: (listener) => worker.addEventListener('error', listener),
      terminate: () => worker.terminate(),
    },
    {
      locks: navigator.locks,
      name: lifelineName('engine'),
      stopped: () => new RecollectError('ENGINE_STOPPED', ENGINE_STOPPED_MESSAGE),
      onDeath,
    },
  );

  const channel = new MessageChannel();
  modelWorker.postMessage({ type: MODEL_PORT_MESSAGE, port: channel.port1 }, [channel.port1]);
  const choice = readDeviceChoice();
  const connected = remote.connectModels(Comlink.transfer(channel.port2, [channel.port2]));
  // A saved "This device" choice applies from the start (and again after a restart), without
  // holding up the database: until the model is loaded, answers wait for it in its worker.
  if (choice)
    void connected
      .then(() => applyDeviceChoice(remote, llm, choice, choice.provider === 'transformers' ? choice.label : null))
      .catch(() => undefined);
  void remote.subscribe(Comlink.proxy(emit));

  let open!: () => void;
  // Without the gate, a message sent while the memory opens (a page load, a restart) would reach a
  // worker that does not own the database yet and be refused as "open in another tab".
  const opened = new Promise<void>((resolve) => (open = resolve));
  const inner = unwrapEngine(remote.engine);
  const engine = engineProxy((group, method, args) => Promise.race([opened.then(() => callOf(inner, group, method)(...args)), dead]));
  return { remote, engine, connected: Promise.race([connected, dead]), dead, opened, open: () => open() };
}

export function createEngineClient(): EngineClient {
  const listeners = new Set<(event: ClientEvent) => void>();
  const emit = (event: ClientEvent) => {
    for (const l of listeners) l(event);
  };

  /**
   * The model worker. It also asks to be replaced when a model broke its ONNX runtime (no other
   * model could load in it again, ModelService.onRuntimeBroken). Either way a fresh one takes its
   * place for the page (the same `models` object) and for the engine (a new port, saying why, so
   * the engine's calls cut off say it too), with the saved choices applied again.
   */
  let modelChange: 'replaced' | 'stopped' = 'replaced';
  const modelWorker = watchedWorker<Unwrapped<ModelWorkerApi>, PageWorker<ModelWorkerApi>>({
    kind: 'models',
    locks: navigator.locks,
    now: () => Date.now(),
    start: () => {
      const started = startPageWorker<ModelWorkerApi>(
        new Worker(new URL('../../workers/model.worker.ts', import.meta.url), { type: 'module', name: 'recollect-models' }),
      );
      started.worker.addEventListener('message', (e: MessageEvent<{ type?: string }>) => {
        if (e.data?.type !== MODEL_RESTART_MESSAGE || !modelWorker.running() || modelWorker.current() !== started) return;
        modelChange = 'replaced';
        modelWorker.replace();
      });
      return started;
    },
    stopped: () => new RecollectError('WORKER_STOPPED', MODEL_WORKER_STOPPED_MESSAGE),
    replaced: () => new WorkerReplacedError('The model worker was restarted after a model failed to load; try again.'),
    onStopped: (restarting) => {
      modelChange = 'stopped';
      emit({ type: 'worker-stopped', worker: 'models', restarting });
    },
    onStarted: ({ worker, api }, restart) => {
      // Failures show in the model status (Settings → Models).
      void applyModelChoices(api);
      const device = readDevicePreference();
      // A failure shows in the model status (Settings → Models); nothing to do here.
      if (device !== 'auto') void api.setDevicePreference(device).catch(() => undefined);
      if (!restart) return; // the first one is handed to the engine by connect()
      const channel = new MessageChannel();
      worker.postMessage({ type: MODEL_PORT_MESSAGE, port: channel.port1 }, [channel.port1]);
      void Promise.race([current.remote.connectModels(Comlink.transfer(channel.port2, [channel.port2]), modelChange), current.dead]).catch(
        () => undefined,
      );
    },
  });
  const models = modelWorker.remote;

  /** The device-LLM worker: started on first use (nobody pays for it who does not choose it). */
  const llm: DeviceLlmWorker = watchedWorker<Unwrapped<DeviceLlmWorkerApi>, PageWorker<DeviceLlmWorkerApi>>({
    kind: 'device-llm',
    locks: navigator.locks,
    now: () => Date.now(),
    start: () =>
      startPageWorker<DeviceLlmWorkerApi>(
        new Worker(new URL('../../workers/llm.worker.ts', import.meta.url), { type: 'module', name: 'recollect-device-llm' }),
      ),
    stopped: () => new RecollectError('WORKER_STOPPED', DEVICE_LLM_STOPPED_MESSAGE),
    replaced: () => new RecollectError('WORKER_STOPPED', DEVICE_LLM_STOPPED_MESSAGE),
    onStopped: (restarting) => {
      // Before the new worker's port (posted in order): the engine's generations in flight fail now.
      void Promise.race([current.remote.deviceLlmStopped(), current.dead]).catch(() => undefined);
      emit({ type: 'worker-stopped', worker: 'device-llm', restarting });
    },
    onStarted: ({ api }, restart) => {
      const hub = readModelHub();
      if (hub) void api.setModelHub(hub).catch(() => undefined);
      // A restart after a death: the engine gets the chosen model again, in the new worker.
      const choice = readDeviceChoice();
      if (restart && choice?.provider === 'transformers')
        void applyDeviceChoice(current.remote, llm, choice, choice.label).catch(() => undefined);
    },
  });

  const deaths: number[] = [];
  const onDeath = () => {
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - RESTART_WINDOW_MS) deaths.shift();
    const restarting = deaths.length <= MAX_RESTARTS;
    emit({ type: 'engine-stopped', restarting });
    if (!restarting) return;
    current = connect(modelWorker.current().worker, llm, emit, onDeath);
    emit({ type: 'engine-restarted' });
  };
  let current = connect(modelWorker.current().worker, llm, emit, onDeath);

  // One object for the page's whole life: calls go to whichever worker is current.
  const engine = engineProxy((group, method, args) => callOf(current.engine, group, method)(...args));

  return {
    engine,
    models,
    acquire: async (wait) => {
      const c = current;
      await c.connected;
      const result = await Promise.race([c.remote.acquire(wait ? { wait } : { wait, graceMs: HANDOVER_GRACE_MS }), c.dead]);
      // Owner: calls reach the engine. Elsewhere: another tab really holds the memory (DB_BUSY).
      // Failed: calls report why the open failed.
      c.open();
      return result;
    },
    openTemporary: async () => {
      const c = current;
      await c.connected;
      const result = await Promise.race([c.remote.openTemporary(), c.dead]);
      c.open();
      return result;
    },
    requestTakeover: () => current.remote.requestTakeover(),
    deviceLlm: () => llm.remote,
    builtInAvailability: () => builtInModelAvailability(),
    downloadBuiltIn: (onProgress) => startBuiltInDownload(onProgress),
    deviceChoice: () => readDeviceChoice(),
    async setDeviceChoice(picked) {
      // The built-in model's window is read from the browser once, when chosen, and kept with the
      // choice: a page load then needs no session before answers can start.
      const window = picked?.provider === 'prompt-api' ? await builtInModelWindow().catch(() => null) : null;
      const choice: DeviceChoice =
        picked?.provider === 'prompt-api' ? { provider: 'prompt-api', ...(window ? { contextTokens: window } : {}) } : picked;
      saveDeviceChoice(choice);
      await applyDeviceChoice(current.remote, llm, choice, choice?.provider === 'transformers' ? choice.label : null);
      emit({ type: 'settings-changed' });
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
