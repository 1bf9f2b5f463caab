/**
 * The UI's handles on the two workers of a tab: the engine (database owner, results unwrapped into
 * RecollectErrors, events forwarded) and the model worker (catalog, downloads). The engine reaches
 * the model worker directly through a MessageChannel, not through this thread.
 */
import * as Comlink from 'comlink';
import {
  MODEL_PORT_MESSAGE, unwrapRemote, type EngineApi, type EngineEvent, type EngineWorkerApi, type ModelWorkerApi, type Ownership, type Unwrapped,
} from '../core/protocol';
import { readDevicePreference } from './devicePreference';
import { applyModelChoices } from './modelChoices';

export type ClientEvent = EngineEvent | { readonly type: 'ownership-lost' };

export interface EngineClient {
  readonly engine: EngineApi;
  readonly models: Unwrapped<ModelWorkerApi>;
  acquire(wait: boolean): Promise<Ownership>;
  requestTakeover(): Promise<void>;
  onEvent(listener: (event: ClientEvent) => void): () => void;
}

export function createEngineClient(): EngineClient {
  const engineWorker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'recollect-engine' });
  const modelWorker = new Worker(new URL('../../workers/model.worker.ts', import.meta.url), { type: 'module', name: 'recollect-models' });
  const remote = Comlink.wrap<EngineWorkerApi>(engineWorker);
  const models = unwrapRemote<ModelWorkerApi>(Comlink.wrap(modelWorker));
  // Failures show in the model status (Settings → Models).
  void applyModelChoices(models);
  const device = readDevicePreference();
  // A failure shows in the model status (Settings → Models); nothing to do here.
  if (device !== 'auto') void models.setDevicePreference(device).catch(() => undefined);

  const channel = new MessageChannel();
  modelWorker.postMessage({ type: MODEL_PORT_MESSAGE, port: channel.port1 }, [channel.port1]);
  const connected = remote.connectModels(Comlink.transfer(channel.port2, [channel.port2]));

  const listeners = new Set<(event: ClientEvent) => void>();
  void remote.subscribe(Comlink.proxy((event: ClientEvent) => {
    for (const l of listeners) l(event);
  }));

  const engine: EngineApi = unwrapRemote<EngineApi>(remote.engine);

  return {
    engine,
    models,
    acquire: async (wait) => {
      await connected;
      return remote.acquire({ wait });
    },
    requestTakeover: () => remote.requestTakeover(),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
