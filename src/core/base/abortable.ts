/**
 * Waiting on work that cannot itself be stopped, but stopping the wait: `untilAborted` settles with
 * the work, or rejects with `cancelled()` as soon as `signal` aborts. An answer's recall waits on
 * the question's embedding, a model-worker round trip; Stop/Esc must end that wait at once (the
 * work finishes, or fails, on its own; its result is then dropped).
 */
import type { LlmAbortSignal } from './ports';

export function untilAborted<T>(work: Promise<T>, signal: LlmAbortSignal | undefined, cancelled: () => Error): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      reject(cancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
