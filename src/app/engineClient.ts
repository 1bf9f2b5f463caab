/**
 * The UI's handle on the engine worker: one worker per tab, results unwrapped into
 * RecollectErrors, engine events forwarded to listeners (react-query invalidation lives in hooks).
 */
import * as Comlink from 'comlink';
import { unwrapResult, type EngineApi, type EngineEvent, type EngineWorkerApi, type Ownership } from '../core/protocol';

export type ClientEvent = EngineEvent | { readonly type: 'ownership-lost' };

export interface EngineClient {
  readonly engine: EngineApi;
  acquire(wait: boolean): Promise<Ownership>;
  requestTakeover(): Promise<void>;
  onEvent(listener: (event: ClientEvent) => void): () => void;
}

export function createEngineClient(): EngineClient {
  const worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'recollect-engine' });
  const remote = Comlink.wrap<EngineWorkerApi>(worker);
  const listeners = new Set<(event: ClientEvent) => void>();
  void remote.subscribe(Comlink.proxy((event: ClientEvent) => {
    for (const l of listeners) l(event);
  }));

  const engine = new Proxy({} as EngineApi, {
    get(_target, method: string) {
      return async (...args: unknown[]) => {
        const fn = (remote.engine as unknown as Record<string, (...a: unknown[]) => Promise<never>>)[method]!;
        return unwrapResult(await fn(...args));
      };
    },
  });

  return {
    engine,
    acquire: (wait) => remote.acquire({ wait }),
    requestTakeover: () => remote.requestTakeover(),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
