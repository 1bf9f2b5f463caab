/**
 * Starting a model or device-LLM worker on the page, as core/base/workerWatch.ts watches it: the
 * Comlink API, the lifeline asked for with a LIFELINE_MESSAGE (answered by src/host/lifeline.ts),
 * the `error` event and terminate. The raw Worker is kept for the ports handed to the engine.
 */
import * as Comlink from 'comlink';
import { LIFELINE_HELD_MESSAGE, LIFELINE_MESSAGE, unwrapRemote, type Unwrapped } from '../core/protocol';
import type { WorkerStart } from '../core/base/workerWatch';

export interface PageWorker<T> extends WorkerStart<Unwrapped<T>> {
  readonly worker: Worker;
}

export function startPageWorker<T>(worker: Worker): PageWorker<T> {
  return {
    worker,
    api: unwrapRemote<T>(Comlink.wrap(worker)),
    holdLifeline: (name) =>
      new Promise<void>((held) => {
        const onMessage = (e: MessageEvent<{ type?: string; name?: string }>) => {
          if (e.data?.type !== LIFELINE_HELD_MESSAGE || e.data.name !== name) return;
          worker.removeEventListener('message', onMessage);
          held();
        };
        worker.addEventListener('message', onMessage);
        worker.postMessage({ type: LIFELINE_MESSAGE, name });
      }),
    onError: (listener) => worker.addEventListener('error', listener),
    terminate: () => worker.terminate(),
  };
}
