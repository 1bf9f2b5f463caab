/**
 * A handle on a worker's API that can be pointed at a replacement worker: every method call goes to
 * the current one, and calls still waiting on the old one when it is swapped out fail with `gone()`
 * instead of hanging (a terminated worker answers nothing, so its Comlink calls never settle).
 * The model worker is restarted this way after a model breaks its ONNX runtime (see ModelService).
 */
import { RecollectError } from './errors';

/**
 * The failure of a call cut off because its worker was replaced: no verdict on what the call
 * asked for (the model it named may be fine; another model broke the old worker), so a caller
 * that can simply ask again, on the new worker, should (see EmbeddingIndexer).
 */
export class WorkerReplacedError extends RecollectError {
  constructor(message: string) {
    super('MODEL_ERROR', message);
    this.name = 'WorkerReplacedError';
  }
}

/** Whether `err` is a call cut off by a worker swap (see WorkerReplacedError). */
export function isWorkerReplaced(err: unknown): boolean {
  return err instanceof WorkerReplacedError;
}
export interface Swappable<T> {
  /** Forwards each method call to the current target. */
  readonly remote: T;
  /** Makes `next` the target; calls waiting on the old one reject with `gone()`. */
  swap(next: T): void;
}

export function swappableRemote<T extends object>(initial: T, gone: () => Error): Swappable<T> {
  let current = initial;
  let fail: (err: Error) => void = () => undefined;
  const nextGeneration = () => {
    const dead = new Promise<never>((_, reject) => (fail = reject));
    dead.catch(() => undefined);
    return dead;
  };
  let dead = nextGeneration();
  const remote = new Proxy({} as T, {
    get(_target, key) {
      if (typeof key !== 'string' || key === 'then') return undefined;
      return (...args: unknown[]) => {
        const method = (current as Record<string, unknown>)[key];
        if (typeof method !== 'function') return Promise.reject(new TypeError(`${key} is not a method`));
        return Promise.race([Promise.resolve(method.apply(current, args)), dead]);
      };
    },
  });
  return {
    remote,
    swap(next) {
      const failOld = fail;
      current = next;
      dead = nextGeneration();
      failOld(gone());
    },
  };
}
