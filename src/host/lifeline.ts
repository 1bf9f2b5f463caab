/**
 * A worker's side of its lifeline (see core/base/workerWatch.ts): a Web Lock taken at the page's
 * request and never released while the worker lives, so the page is granted it exactly when the
 * worker is gone. The engine is asked through its API (EngineHost.holdLifeline); the model and
 * device-LLM workers through a LIFELINE_MESSAGE, answered with LIFELINE_HELD_MESSAGE.
 */
import { LIFELINE_HELD_MESSAGE, LIFELINE_MESSAGE } from '../core/protocol';

/** Takes the lock `name` for good; resolves once it is held. */
export function holdLifeline(name: string): Promise<void> {
  return new Promise<void>((held, fail) => {
    navigator.locks
      .request(name, () => {
        held();
        return new Promise<void>(() => undefined);
      })
      .catch(fail);
  });
}

interface WorkerScope {
  addEventListener(type: 'message', listener: (e: MessageEvent<{ type?: string; name?: string }>) => void): void;
  postMessage(message: unknown): void;
}

/** Holds each lifeline the page asks for on `scope` (a worker's global). */
export function answerLifelines(scope: WorkerScope): void {
  scope.addEventListener('message', (e) => {
    const name = e.data?.name;
    if (e.data?.type !== LIFELINE_MESSAGE || typeof name !== 'string') return;
    void holdLifeline(name).then(
      () => scope.postMessage({ type: LIFELINE_HELD_MESSAGE, name }),
      () => undefined,
    );
  });
}
