/**
 * Watching a worker for its death, one way for every worker of a tab (engine, models, device LLM).
 *
 * A worker that dies (out of memory while loading a model, a crash, `self.close()`) sends nothing:
 * calls to it simply never settle. So each worker holds a Web Lock of its own for its whole life
 * (the browser releases a dead worker's locks), and the watching thread asks for the same lock; it
 * is granted exactly when the worker is gone. Until the worker says it holds the lock, its `error`
 * event counts as a death too (a script that fails to load or throws at start-up never holds it),
 * and so does not holding it within LIFELINE_START_LIMIT_MS (a worker closed or crashed while its
 * script loads says nothing at all); afterwards an `error` event is an uncaught exception in a
 * living worker and changes nothing.
 *
 * `watchLifeline` is that detection alone (the engine connection uses it); `watchedWorker` adds
 * what the model and device-LLM workers need: one handle whose calls go to the current worker and
 * fail with a coded error when it dies (never hang), and a restart, at most `maxRestarts` times in
 * `windowMs` (a worker that dies at every start is not restarted for ever).
 *
 * No DOM here: the worker, its lock and the clock come in as small interfaces (tests use fakes).
 */
import { RecollectError } from './errors';

/** The part of `navigator.locks` the watcher needs. */
export interface LifelineLocks {
  request(name: string, callback: () => unknown): Promise<unknown>;
}

/** One started worker, as the watcher sees it. */
export interface WorkerStart<T> {
  readonly api: T;
  /** Asks the worker to hold the lock `name` for its whole life; resolves once it holds it. */
  holdLifeline(name: string): Promise<void>;
  /** The worker's `error` event. */
  onError(listener: () => void): void;
  terminate(): void;
}

export interface Lifeline {
  /** Rejects with the `stopped` error once the worker is gone (never resolves). */
  readonly dead: Promise<never>;
  /** Declares the worker dead now (it is terminated); a no-op once it is. */
  kill(): void;
  readonly gone: () => boolean;
}

let lifelines = 0;
/** A lock name no other worker, tab or page load uses. */
export function lifelineName(kind: string): string {
  lifelines += 1;
  const random = Math.random().toString(36).slice(2);
  return `recollect:${kind}-alive:${Date.now().toString(36)}-${random}-${lifelines}`;
}

/**
 * How long a worker may take to hold its lifeline. A worker that ends before it holds it (closed,
 * crashed or out of memory while its script loads) fires no `error` event and answers nothing, so
 * without a limit the page would wait for ever ("Opening your memory…" with nothing said). A live
 * worker holds it within a second or two even on a loaded machine; one that has not by then is
 * ended and counted as a death (restarted like any other).
 */
export const LIFELINE_START_LIMIT_MS = 15_000;

export interface LifelineOptions {
  readonly locks: LifelineLocks;
  readonly name: string;
  readonly stopped: () => Error;
  readonly onDeath: () => void;
  /** LIFELINE_START_LIMIT_MS unless given (tests). */
  readonly startLimitMs?: number;
  /** setTimeout unless given (tests). */
  readonly timer?: (fn: () => void, ms: number) => { cancel(): void };
}

// Core has no DOM or Node types: the platform's timer, as the workers and Node both have it.
const platform = globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown; clearTimeout(h: unknown): void };
const realTimer = (fn: () => void, ms: number) => {
  const id = platform.setTimeout(fn, ms);
  return { cancel: () => platform.clearTimeout(id) };
};

export function watchLifeline(
  worker: Pick<WorkerStart<unknown>, 'holdLifeline' | 'onError' | 'terminate'>,
  options: LifelineOptions,
): Lifeline {
  let die!: (err: Error) => void;
  const dead = new Promise<never>((_, reject) => (die = reject));
  dead.catch(() => undefined);
  let gone = false;
  let alive = false;
  const kill = () => {
    if (gone) return;
    gone = true;
    die(options.stopped());
    worker.terminate();
    options.onDeath();
  };
  worker.onError(() => alive || kill());
  const limit = (options.timer ?? realTimer)(() => alive || kill(), options.startLimitMs ?? LIFELINE_START_LIMIT_MS);
  void Promise.race([worker.holdLifeline(options.name), dead]).then(
    () => {
      if (gone) return; // held only after the limit: it was ended already
      alive = true;
      limit.cancel();
      void options.locks.request(options.name, () => kill());
    },
    () => limit.cancel(),
  );
  return { dead, kill, gone: () => gone };
}

export interface WatchedWorkerOptions<T, S extends WorkerStart<T> = WorkerStart<T>> {
  /** Which worker, for lock names ('models', 'device-llm'). */
  readonly kind: string;
  /** Starts a fresh worker. */
  start(): S;
  readonly locks: LifelineLocks;
  /** The error calls in flight fail with when the worker dies. */
  stopped(): Error;
  /** The error calls in flight fail with when the worker is replaced on purpose (`replace`). */
  replaced(): Error;
  /** After a death: whether a new worker was started (false once it died too often). */
  onStopped?(restarting: boolean): void;
  /** A worker was started (`restart` after a death or a replacement): wire it up (ports, settings). */
  onStarted?(worker: S, restart: boolean): void;
  readonly now: () => number;
  readonly maxRestarts?: number;
  readonly windowMs?: number;
}

export interface WatchedWorker<T, S extends WorkerStart<T> = WorkerStart<T>> {
  /** Calls go to the current worker (started on first use); they fail, never hang, when it dies. */
  readonly remote: T;
  /** The current worker, started if there is none yet. Throws once restarting was given up. */
  current(): S;
  /** Whether a worker is running now (without starting one). */
  running(): boolean;
  /** Ends the current worker on purpose and starts a new one; its calls fail with `replaced()`. */
  replace(): void;
}

interface Generation<S> {
  readonly worker: S;
  readonly lifeline: Lifeline;
  readonly cut: Promise<never>;
  cutOff(err: Error): void;
}

export function watchedWorker<T extends object, S extends WorkerStart<T> = WorkerStart<T>>(
  options: WatchedWorkerOptions<T, S>,
): WatchedWorker<T, S> {
  const maxRestarts = options.maxRestarts ?? 3;
  const windowMs = options.windowMs ?? 60_000;
  const deaths: number[] = [];
  let gen: Generation<S> | null = null;
  let givenUp = false;

  const launch = (restart: boolean): Generation<S> => {
    const worker = options.start();
    let cutOff!: (err: Error) => void;
    const cut = new Promise<never>((_, reject) => (cutOff = reject));
    cut.catch(() => undefined);
    const next: Generation<S> = {
      worker,
      cut,
      cutOff,
      lifeline: watchLifeline(worker, {
        locks: options.locks,
        name: lifelineName(options.kind),
        stopped: options.stopped,
        onDeath: () => died(next),
      }),
    };
    // A death is also a cut-off: calls race one promise whatever ended them.
    next.lifeline.dead.catch((err: Error) => cutOff(err));
    gen = next;
    options.onStarted?.(worker, restart);
    return next;
  };

  const died = (which: Generation<S>) => {
    if (gen !== which) return; // replaced already: its calls were cut off with `replaced()`
    gen = null;
    const now = options.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - windowMs) deaths.shift();
    const restarting = deaths.length <= maxRestarts;
    if (!restarting) givenUp = true;
    options.onStopped?.(restarting);
    if (restarting) launch(true);
  };

  const ensure = (): Generation<S> => {
    if (gen) return gen;
    if (givenUp)
      throw new RecollectError(
        'WORKER_STOPPED',
        `${options.stopped().message} It stopped several times in a row, so Recollect stopped restarting it; reload the page.`,
      );
    return launch(false);
  };

  const remote = new Proxy({} as T, {
    get(_target, key) {
      if (typeof key !== 'string' || key === 'then') return undefined;
      return (...args: unknown[]) => {
        let g: Generation<S>;
        try {
          g = ensure();
        } catch (err) {
          return Promise.reject(err);
        }
        const method = (g.worker.api as Record<string, unknown>)[key];
        if (typeof method !== 'function') return Promise.reject(new TypeError(`${key} is not a method`));
        return Promise.race([Promise.resolve(method.apply(g.worker.api, args)), g.cut]);
      };
    },
  });

  return {
    remote,
    current: () => ensure().worker,
    running: () => gen !== null,
    replace() {
      const old = gen;
      if (old) {
        gen = null;
        old.cutOff(options.replaced());
        old.worker.terminate();
      }
      launch(old !== null);
    },
  };
}
