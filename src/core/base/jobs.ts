/**
 * The durable job queue's contract and its runner. Jobs live in SQLite (`jobs`), so a closed tab
 * or a down endpoint loses nothing: on start, jobs left `running` by a killed engine go back to
 * `pending`; failures retry with exponential backoff; a handler can ask to *pause* the queue
 * (no endpoint configured, endpoint down) without spending an attempt. Capture never waits for it.
 */
import { toErrorInfo, type ErrorInfo } from './errors';
import type { Clock } from './ports';
import { BackgroundLoop } from './backgroundLoop';

export interface Job {
  readonly id: number;
  readonly kind: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly attempts: number;
  readonly dedupeKey: string | null;
}

/** cancelled = set aside by a policy change (kept, revived when the policy allows again). */
export type JobCounts = Record<'pending' | 'scheduled' | 'running' | 'done' | 'failed' | 'cancelled', number>;

export interface JobStore {
  /** Adds a job unless one with the same dedupeKey is pending or running; returns its id. */
  enqueue(
    kind: string,
    payload: Record<string, unknown>,
    options?: { dedupeKey?: string; runAfter?: number; priority?: number },
  ): Promise<number>;
  /** Claims the due pending job with the highest priority (marks it running, attempts + 1), or null. */
  claimNext(now: number): Promise<Job | null>;
  complete(id: number, now: number): Promise<void>;
  /** Back to pending at `runAfter`, recording the error; `countAttempt: false` undoes the claim's increment. */
  retryLater(id: number, runAfter: number, error: string, countAttempt: boolean, now: number): Promise<void>;
  fail(id: number, error: string, now: number): Promise<void>;
  /** The running job may not run now (the policy forbids it): set aside as 'cancelled' with `reason`. */
  setAside(id: number, reason: string, now: number): Promise<void>;
  /** Running jobs of a previous engine go back to pending; returns how many. */
  recoverInterrupted(now: number): Promise<number>;
  /**
   * Sets pending jobs of these kinds aside (status 'cancelled', `reason` as last_error; kept, never
   * run until revived) and returns them.
   */
  cancel(kinds: readonly string[], reason: string, now: number): Promise<Job[]>;
  /** Makes cancelled jobs of these kinds pending again (attempts reset) and returns them. */
  revive(kinds: readonly string[], now: number): Promise<Job[]>;
  /** pending = due now; scheduled = waiting for its run_after (a debounce or a retry back-off). */
  counts(): Promise<JobCounts>;
  /** The earliest run_after of a pending job (so a restarted runner wakes for a back-off in progress), or null. */
  nextDue(): Promise<number | null>;
  /**
   * Failed jobs whose last error began with one of `codes` and that were revived fewer than
   * `maxRevivals` times go back to pending (revivals + 1), due at once, highest priority first, at
   * most `limit` of them; returns them. Their attempts are set to `attemptsUsed` (default 0), so
   * the runner allows only the rest of its maxAttempts. Used when the endpoint that failed them has
   * proved healthy again (core/synthesis/synthesisRecovery.ts).
   */
  reviveFailed(
    codes: readonly string[],
    now: number,
    options: { readonly maxRevivals: number; readonly limit?: number; readonly attemptsUsed?: number },
  ): Promise<Job[]>;
  /** The person's Retry: every failed job of these kinds goes back to pending, attempts and revivals reset; returns them. */
  retryFailed(kinds: readonly string[], now: number): Promise<Job[]>;
  /**
   * Failed jobs of these kinds, by kind, and how many of them reviveFailed(codes, …, maxRevivals)
   * would take back (the ones waiting for the endpoint to heal).
   */
  failedJobs(kinds: readonly string[], codes: readonly string[], maxRevivals: number): Promise<FailedJobs>;
}

export interface FailedJobs {
  readonly byKind: Readonly<Record<string, number>>;
  /** Failed for the endpoint's sake, with automatic revivals left. */
  readonly revivable: number;
}

/** What a handler may say besides success: try later without it counting as a failure. */
/** What a handler throws when its job may not run now (the policy forbids it): set aside, not failed. */
export class CancelJob extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CancelJob';
  }
}

export class PauseQueue extends Error {
  readonly retryAfterMs: number;
  constructor(reason: string, retryAfterMs: number) {
    super(reason);
    this.name = 'PauseQueue';
    this.retryAfterMs = retryAfterMs;
  }
}

export type JobHandler = (job: Job) => Promise<void>;

export interface JobRunnerConfig {
  readonly maxAttempts: number;
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
}

export const DEFAULT_JOB_RUNNER_CONFIG: JobRunnerConfig = { maxAttempts: 5, baseBackoffMs: 5_000, maxBackoffMs: 15 * 60_000 };

export interface JobRunnerStatus {
  readonly running: boolean;
  readonly pausedUntil: number | null;
  readonly pauseReason: string | null;
  readonly lastError: ErrorInfo | null;
}

/** Schedules `fn` after `ms`; injected so tests control time. */
export type Timer = (fn: () => void, ms: number) => { cancel(): void };

/** A Timer over the platform's setTimeout (present in browsers, workers and Node). */
export const platformTimer: Timer = (fn, ms) => {
  const g = globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown; clearTimeout(h: unknown): void };
  const h = g.setTimeout(fn, ms);
  return { cancel: () => g.clearTimeout(h) };
};

export class JobRunner {
  readonly #store: JobStore;
  readonly #handlers: Map<string, JobHandler>;
  readonly #clock: Clock;
  readonly #timer: Timer;
  readonly #config: JobRunnerConfig;
  readonly #loop = new BackgroundLoop(() => this.#run());
  #pausedUntil: number | null = null;
  #pauseReason: string | null = null;
  #lastError: ErrorInfo | null = null;
  #wake: { cancel(): void } | null = null;

  readonly #onFailed: ((job: Job, error: ErrorInfo) => Promise<void> | void) | undefined;

  constructor(deps: {
    store: JobStore;
    handlers: Record<string, JobHandler>;
    clock: Clock;
    timer: Timer;
    config?: Partial<JobRunnerConfig>;
    /** Called once a job has failed for good (after its last attempt). */
    onFailed?: (job: Job, error: ErrorInfo) => Promise<void> | void;
  }) {
    this.#onFailed = deps.onFailed;
    this.#store = deps.store;
    this.#handlers = new Map(Object.entries(deps.handlers));
    this.#clock = deps.clock;
    this.#timer = deps.timer;
    this.#config = { ...DEFAULT_JOB_RUNNER_CONFIG, ...deps.config };
  }

  #wakeForBacklog = false;

  async start(): Promise<void> {
    await this.#store.recoverInterrupted(this.#clock.now());
    this.#wakeForBacklog = true;
    this.kick();
  }

  stop(): void {
    this.#loop.stop();
    this.#wake?.cancel();
  }

  /** Runs due jobs now (after an enqueue, or when an endpoint appears). Clears a pause. */
  kick(options: { resume?: boolean } = {}): void {
    if (options.resume) this.#pausedUntil = null;
    this.#loop.kick();
  }

  /** Resolves when the runner has nothing due (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.#loop.idle();
  }

  status(): JobRunnerStatus {
    return { running: this.#loop.running, pausedUntil: this.#pausedUntil, pauseReason: this.#pauseReason, lastError: this.#lastError };
  }

  async #run(): Promise<void> {
    for (;;) {
      if (this.#loop.stopped) return;
      const now = this.#clock.now();
      if (this.#pausedUntil !== null && now < this.#pausedUntil) return this.#schedule(this.#pausedUntil - now);
      this.#pausedUntil = null;
      const job = await this.#store.claimNext(now);
      if (!job) {
        // Back-offs live in the database (run_after), but the timer that waits for them does not
        // survive a restart: after start, wake for the earliest one. (Only then: with a timer that
        // fires at once, doing this on every empty pass would spin.)
        if (this.#wakeForBacklog) {
          this.#wakeForBacklog = false;
          const next = await this.#store.nextDue();
          if (next !== null && !this.#loop.stopped) this.#schedule(next - this.#clock.now());
        }
        return;
      }
      const handler = this.#handlers.get(job.kind);
      if (!handler) {
        await this.#store.fail(job.id, `No handler for job kind "${job.kind}".`, now);
        continue;
      }
      try {
        await handler(job);
        await this.#store.complete(job.id, this.#clock.now());
      } catch (err) {
        const t = this.#clock.now();
        if (err instanceof PauseQueue) {
          this.#pausedUntil = t + err.retryAfterMs;
          this.#pauseReason = err.message;
          // The job stays due: the pause belongs to the runner, so a resume runs it at once.
          await this.#store.retryLater(job.id, t, err.message, false, t);
          continue;
        }
        if (err instanceof CancelJob) {
          await this.#store.setAside(job.id, err.message, t);
          continue;
        }
        const info = toErrorInfo(err);
        this.#lastError = info;
        const message = `${info.code}: ${info.message}`;
        if (job.attempts >= this.#config.maxAttempts) {
          await this.#store.fail(job.id, message, t);
          try {
            await this.#onFailed?.(job, info);
          } catch {
            /* bookkeeping after a failure must not stop the queue */
          }
        } else {
          const backoff = Math.min(this.#config.maxBackoffMs, this.#config.baseBackoffMs * 2 ** (job.attempts - 1));
          await this.#store.retryLater(job.id, t + backoff, message, true, t);
          this.#schedule(backoff);
        }
      }
    }
  }

  #schedule(ms: number): void {
    this.#wake?.cancel();
    this.#wake = this.#timer(() => this.kick(), Math.max(0, ms));
  }
}
