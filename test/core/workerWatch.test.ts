import { describe, expect, it } from 'vitest';
import { watchedWorker, watchLifeline, type LifelineLocks, type WorkerStart } from '../../src/core/base/workerWatch';
import { RecollectError, toErrorInfo } from '../../src/core/base/errors';

/** Web Locks as far as lifelines use them: a lock waits until its holder lets it go. */
class FakeLocks implements LifelineLocks {
  readonly #held = new Map<string, Promise<void>>();
  hold(name: string): () => void {
    let release!: () => void;
    this.#held.set(name, new Promise<void>((resolve) => (release = resolve)));
    return release;
  }
  async request(name: string, callback: () => unknown): Promise<unknown> {
    await this.#held.get(name);
    return callback();
  }
}

interface Api {
  echo(text: string): Promise<string>;
  hang(): Promise<string>;
}

/** A worker that answers `echo`, never answers `hang`, and can die (its lock goes with it). */
class FakeWorker implements WorkerStart<Api> {
  #release: (() => void) | null = null;
  #errorListeners: (() => void)[] = [];
  terminated = false;
  constructor(
    private readonly locks: FakeLocks,
    private readonly failAtStart = false,
  ) {}
  readonly api: Api = {
    echo: async (text) => text,
    hang: () => new Promise<string>(() => undefined),
  };
  holdLifeline(name: string): Promise<void> {
    if (this.failAtStart) return new Promise<void>(() => undefined);
    this.#release = this.locks.hold(name);
    return Promise.resolve();
  }
  onError(listener: () => void): void {
    this.#errorListeners.push(listener);
  }
  /** Out of memory, a crash, self.close(): the browser frees its locks; nothing is said. */
  die(): void {
    this.#release?.();
  }
  crashAtStart(): void {
    for (const l of this.#errorListeners) l();
  }
  terminate(): void {
    this.terminated = true;
    this.#release?.();
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(options: { maxRestarts?: number; failAtStart?: boolean } = {}) {
  const locks = new FakeLocks();
  const started: FakeWorker[] = [];
  const stops: boolean[] = [];
  const starts: boolean[] = [];
  let now = 0;
  const watched = watchedWorker<Api, FakeWorker>({
    kind: 'test',
    locks,
    now: () => now,
    start: () => {
      const w = new FakeWorker(locks, options.failAtStart);
      started.push(w);
      return w;
    },
    stopped: () => new RecollectError('WORKER_STOPPED', 'The test worker stopped.'),
    replaced: () => new RecollectError('MODEL_ERROR', 'The test worker was replaced.'),
    onStopped: (restarting) => stops.push(restarting),
    onStarted: (_w, restart) => starts.push(restart),
    ...(options.maxRestarts !== undefined ? { maxRestarts: options.maxRestarts } : {}),
  });
  return { watched, started, stops, starts, advance: (ms: number) => (now += ms) };
}

describe('watchedWorker', () => {
  it('starts the worker on first use and passes calls through', async () => {
    const { watched, started } = setup();
    expect(started).toHaveLength(0);
    await expect(watched.remote.echo('hello')).resolves.toBe('hello');
    expect(started).toHaveLength(1);
  });

  it('fails a call in flight with WORKER_STOPPED when the worker dies, restarts it, and the next call works', async () => {
    const { watched, started, stops, starts } = setup();
    const pending = watched.remote.hang();
    await settle();
    started[0]!.die();
    await expect(pending).rejects.toMatchObject({ code: 'WORKER_STOPPED', message: 'The test worker stopped.' });
    expect(stops).toEqual([true]);
    expect(starts).toEqual([false, true]);
    expect(started).toHaveLength(2);
    expect(started[0]!.terminated).toBe(true);
    await expect(watched.remote.echo('again')).resolves.toBe('again');
  });

  it('counts a worker that errors before it holds its lifeline as dead', async () => {
    const { watched, started, stops } = setup({ failAtStart: true, maxRestarts: 0 });
    const pending = watched.remote.echo('never mind');
    await pending; // the fake answers even though its lifeline is not held
    const hanging = watched.remote.hang();
    started[0]!.crashAtStart();
    await expect(hanging).rejects.toMatchObject({ code: 'WORKER_STOPPED' });
    expect(stops).toEqual([false]);
  });

  it('stops restarting after too many deaths in the window, and says so on every call', async () => {
    const { watched, started, stops } = setup({ maxRestarts: 2 });
    await watched.remote.echo('x');
    for (let i = 0; i < 3; i++) {
      await settle();
      started.at(-1)!.die();
      await settle();
    }
    expect(stops).toEqual([true, true, false]);
    expect(watched.running()).toBe(false);
    const err = await watched.remote.echo('y').catch((e: unknown) => e);
    expect(toErrorInfo(err).code).toBe('WORKER_STOPPED');
    expect(toErrorInfo(err).message).toContain('stopped restarting it');
  });

  it('forgets deaths older than the window', async () => {
    const { watched, started, stops, advance } = setup({ maxRestarts: 1 });
    await watched.remote.echo('x');
    for (let i = 0; i < 3; i++) {
      await settle();
      started.at(-1)!.die();
      await settle();
      advance(61_000);
    }
    expect(stops).toEqual([true, true, true]);
  });

  it('replace() cuts off calls with the replaced error, without counting a death', async () => {
    const { watched, started, stops } = setup();
    const pending = watched.remote.hang();
    await settle();
    watched.replace();
    await expect(pending).rejects.toMatchObject({ message: 'The test worker was replaced.' });
    await settle();
    expect(stops).toEqual([]);
    expect(started[0]!.terminated).toBe(true);
    await expect(watched.remote.echo('new')).resolves.toBe('new');
  });
});

describe('watchLifeline', () => {
  it('an error after the lifeline is held is an exception in a living worker, not a death', async () => {
    const locks = new FakeLocks();
    const worker = new FakeWorker(locks);
    let deaths = 0;
    const lifeline = watchLifeline(worker, { locks, name: 'n', stopped: () => new Error('gone'), onDeath: () => deaths++ });
    await settle();
    worker.crashAtStart();
    await settle();
    expect(deaths).toBe(0);
    expect(lifeline.gone()).toBe(false);
    worker.die();
    await expect(lifeline.dead).rejects.toThrow('gone');
    expect(deaths).toBe(1);
  });

  /** A timer the test fires by hand. */
  const manualTimer = () => {
    const pending: { fn: () => void; cancelled: boolean }[] = [];
    return {
      timer: (fn: () => void) => {
        const t = { fn, cancelled: false };
        pending.push(t);
        return { cancel: () => (t.cancelled = true) };
      },
      fire: () => pending.filter((t) => !t.cancelled).forEach((t) => t.fn()),
      live: () => pending.filter((t) => !t.cancelled).length,
    };
  };

  /** A worker (silent at start or not) watched with a hand-fired start limit; deaths counted. */
  const watchedWithLimit = (silentAtStart: boolean) => {
    const locks = new FakeLocks();
    const worker = new FakeWorker(locks, silentAtStart);
    const clock = manualTimer();
    const seen = { deaths: 0 };
    const lifeline = watchLifeline(worker, {
      locks,
      name: 'n',
      stopped: () => new Error('gone'),
      onDeath: () => seen.deaths++,
      startLimitMs: 15_000,
      timer: clock.timer,
    });
    return { worker, clock, seen, lifeline };
  };

  it('a worker that ends before it holds its lifeline (no error event, no answer) is a death once the start limit passes', async () => {
    // Closed while its script loaded: holds nothing, says nothing.
    const { worker, clock, seen, lifeline } = watchedWithLimit(true);
    await settle();
    expect(lifeline.gone()).toBe(false);
    clock.fire();
    await expect(lifeline.dead).rejects.toThrow('gone');
    expect(seen.deaths).toBe(1);
    expect(worker.terminated).toBe(true);
  });

  it('a worker that holds its lifeline in time is never ended by the start limit', async () => {
    const { worker, clock, seen, lifeline } = watchedWithLimit(false);
    await settle();
    expect(clock.live()).toBe(0); // cancelled when the lifeline was held
    clock.fire();
    await settle();
    expect(seen.deaths).toBe(0);
    expect(lifeline.gone()).toBe(false);
    expect(worker.terminated).toBe(false);
  });
});
