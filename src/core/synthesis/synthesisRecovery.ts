/**
 * Synthesis that failed because the endpoint misbehaved comes back once the endpoint is healthy.
 *
 * Down, refusing or rate-limiting endpoints pause the queue without spending attempts, so that
 * work resumes by itself. A reply that arrives but is unusable (malformed JSON, a web page with
 * status 200, no choices, an error object, a reply cut by the token limit) spends an attempt
 * each time, and after the runner's last attempt the job fails. Such a job is *parked*: failed,
 * with an endpoint-trouble code and automatic revivals left. It goes back in the queue when the
 * endpoint proves healthy:
 *
 * - another synthesis job succeeds (the strongest proof: the same kind of reply, validated), or
 * - a cheap check passes: one small JSON completion, validated like synthesis output, run after a
 *   back-off (30 s doubling to 5 min, while parked work exists and the queue is idle) and brought
 *   forward when any other call to the endpoint succeeds (an answer, a title) or its settings change.
 *
 * After a passing check only one parked job runs first (the canary); its success brings back the
 * rest, so a model that passes the check but cannot write synthesis JSON costs one job, not all.
 *
 * Bounds, so a model that always returns garbage does not loop paying:
 * - MAX_REVIVALS automatic revivals per job, stored in the database (jobs.revivals), so reloads do
 *   not reset them; after that the job stays failed until the person's Retry. A revived job gets
 *   REVIVED_ATTEMPTS attempts, so one episode costs at most 5 + 3 × 2 attempts in all (each
 *   attempt is one call, or two when the structured-output layer asks again).
 * - MAX_FAILED_CANARIES canaries in a row may fail in one session; then only a synthesis success,
 *   an endpoint change, Retry or a new session starts checking again.
 * Work that succeeded is never revived: only failed jobs are, and a job is one atomic write.
 */
import { z } from 'zod';
import type { ErrorCode } from '../base/errors';
import type { Clock, Llm } from '../base/ports';
import type { Job, JobStore, Timer } from '../base/jobs';

/**
 * Failures that say the endpoint was in trouble (down, hung, rate-limiting, cutting, garbling or
 * refusing its replies) rather than that the job is wrong.
 */
export const RECOVERY_CODES: readonly ErrorCode[] = [
  'LLM_UNAVAILABLE',
  'LLM_TIMEOUT',
  'LLM_RATE_LIMITED',
  'LLM_STREAM_CUT',
  'LLM_BAD_OUTPUT',
  'LLM_REJECTED',
];
/**
 * Automatic revivals per job. Three covers a proxy or a small model that misbehaves for a minute
 * on three separate occasions while this episode waits; a job that failed its first run and three
 * more, each after the endpoint had proved healthy, is not going to succeed by waiting, and the
 * person can still Retry it.
 */
export const MAX_REVIVALS = 3;
/**
 * Attempts a revived job gets (of the runner's usual five): it runs only after a proof of health,
 * so its first attempt normally succeeds; if the endpoint garbles again it is parked again soon,
 * costing two attempts rather than five.
 */
export const REVIVED_ATTEMPTS = 2;
/** Canaries in a row that may fail before checks stop for this session (see the module comment). */
export const MAX_FAILED_CANARIES = 3;
export const FIRST_CHECK_MS = 30_000;
export const MAX_CHECK_MS = 5 * 60_000;
/** A call that succeeded elsewhere brings the check forward, but checks are never closer than this. */
export const MIN_CHECK_GAP_MS = 30_000;
/** The stage the check is recorded under in the ledger (LLM spend). */
export const RECOVERY_CHECK_STAGE = 'recovery_check';

const CHECK_MESSAGES = [
  { role: 'system' as const, content: 'You answer health checks of a JSON API.' },
  { role: 'user' as const, content: 'Reply with this JSON object: {"ok": true}' },
];
/** Any JSON object passes: the check is about well-formed, complete replies, not about obedience. */
const checkSchema = z.record(z.string(), z.unknown());
/** Room for a model that thinks aloud before it answers; a plain one writes five tokens. */
const CHECK_MAX_TOKENS = 400;

/** What failed and what will come back by itself (the UI's "3 episodes could not be summarised — Retry"). */
export interface SynthesisFailures {
  /** Episodes whose synthesis failed; their turns stay searchable. */
  readonly episodes: number;
  readonly themes: number;
  readonly profileUpdates: number;
  /** Of those jobs, how many will be retried by themselves once the endpoint replies properly. */
  readonly retryingByThemselves: number;
  /** When the endpoint is checked next (epoch ms), or null when no check is planned. */
  readonly nextCheckAt: number | null;
  /** False when the consolidation policy is off: retried work would only be set aside again. */
  readonly canRetry: boolean;
}

export interface SynthesisRecoveryDeps {
  readonly jobs: JobStore;
  /** The job kinds this recovers: the synthesis of an episode, a theme summary, a profile update. */
  readonly kinds: { readonly episode: string; readonly theme: string; readonly profile: string };
  readonly llm: () => Llm | null;
  /** Whether synthesis may spend tokens now (false under the `off` policy). */
  readonly allowed: () => boolean;
  /** The queue is running jobs or paused for the endpoint: their outcome will say more than a check. */
  readonly queueBusy: () => boolean;
  /** Jobs went back to pending: mark their episodes queued and run the queue. */
  readonly revived: (jobs: readonly Job[]) => Promise<void>;
  /** The runner's attempts per job (a revived job gets the last REVIVED_ATTEMPTS of them). */
  readonly maxAttempts: number;
  readonly clock: Clock;
  readonly timer: Timer;
}

export class SynthesisRecovery {
  readonly #d: SynthesisRecoveryDeps;
  /** Recovery rounds (failed checks, failed canaries) since synthesis last succeeded: the back-off. */
  #misses = 0;
  #failedCanaries = 0;
  #canary: number | null = null;
  /** False once a look found nothing parked; set again by a failure (saves a query per success). */
  #maybeParked = true;
  #wake: { cancel(): void } | null = null;
  #wakeAt: number | null = null;
  #lastCheck = Number.NEGATIVE_INFINITY;
  /** Checks and revivals under way (idle() waits for them). */
  readonly #work = new Set<Promise<void>>();
  #checking = false;
  #stopped = false;

  constructor(deps: SynthesisRecoveryDeps) {
    this.#d = deps;
  }

  /** Parked work from an earlier session is checked for at once. */
  start(): void {
    this.#stopped = false;
    this.#maybeParked = true;
    this.#schedule(0);
  }

  stop(): void {
    this.#stopped = true;
    this.#wake?.cancel();
    this.#wake = null;
    this.#wakeAt = null;
  }

  /** True while a check or a revival is under way. */
  get busy(): boolean {
    return this.#work.size > 0;
  }

  /** Resolves when no check or revival is under way (checks waiting for their back-off are not waited for). */
  async idle(): Promise<void> {
    while (this.#work.size > 0) await Promise.all([...this.#work]);
  }

  get nextCheckAt(): number | null {
    return this.#wakeAt;
  }

  /** A job failed for good (after its last attempt): check the endpoint after the back-off. */
  jobFailed(job: Job): void {
    if (job.id === this.#canary) {
      this.#canary = null;
      this.#failedCanaries++;
      this.#misses++;
    }
    this.#maybeParked = true;
    this.#schedule(this.#backoff());
  }

  /** A synthesis job succeeded: the endpoint writes usable replies, so every parked job comes back. */
  async jobSucceeded(): Promise<void> {
    this.#misses = 0;
    this.#failedCanaries = 0;
    this.#canary = null;
    if (!this.#maybeParked) return;
    await this.#track(async () => {
      const jobs = await this.#d.jobs.reviveFailed(RECOVERY_CODES, this.#d.clock.now(), this.#revival());
      // Jobs that failed for other reasons or ran out of revivals are not parked: nothing to look for until the next failure.
      this.#maybeParked = false;
      if (jobs.length > 0) await this.#d.revived(jobs);
    });
  }

  /** A call to the endpoint succeeded (an answer, a title): check soon if work is parked. */
  endpointAnswered(): void {
    if (!this.#maybeParked || this.#checking) return;
    this.#schedule(Math.max(0, this.#lastCheck + MIN_CHECK_GAP_MS - this.#d.clock.now()));
  }

  /** The endpoint or the model changed: a new chance for parked work, checked at once. */
  endpointChanged(): void {
    this.#misses = 0;
    this.#failedCanaries = 0;
    this.#canary = null;
    this.#maybeParked = true;
    this.#schedule(0);
  }

  /** The person's Retry: every failed job goes back in the queue now, whatever its error, with its revivals reset. */
  async retryAll(): Promise<number> {
    this.#misses = 0;
    this.#failedCanaries = 0;
    this.#canary = null;
    let count = 0;
    await this.#track(async () => {
      const jobs = await this.#d.jobs.retryFailed(this.#kinds(), this.#d.clock.now());
      count = jobs.length;
      if (jobs.length > 0) await this.#d.revived(jobs);
    });
    return count;
  }

  async failures(): Promise<SynthesisFailures> {
    const { episode, theme, profile } = this.#d.kinds;
    const failed = await this.#d.jobs.failedJobs(this.#kinds(), RECOVERY_CODES, MAX_REVIVALS);
    const givenUp = this.#failedCanaries >= MAX_FAILED_CANARIES;
    return {
      episodes: failed.byKind[episode] ?? 0,
      themes: failed.byKind[theme] ?? 0,
      profileUpdates: failed.byKind[profile] ?? 0,
      retryingByThemselves: givenUp ? 0 : failed.revivable,
      nextCheckAt: failed.revivable > 0 && !givenUp ? this.#wakeAt : null,
      canRetry: this.#d.allowed(),
    };
  }

  #kinds(): string[] {
    return [this.#d.kinds.episode, this.#d.kinds.theme, this.#d.kinds.profile];
  }

  #revival(): { maxRevivals: number; attemptsUsed: number } {
    return { maxRevivals: MAX_REVIVALS, attemptsUsed: Math.max(0, this.#d.maxAttempts - REVIVED_ATTEMPTS) };
  }

  #backoff(): number {
    return Math.min(MAX_CHECK_MS, FIRST_CHECK_MS * 2 ** this.#misses);
  }

  /** Wakes in `ms` unless a wake is already due sooner. */
  #schedule(ms: number): void {
    if (this.#stopped) return;
    const at = this.#d.clock.now() + ms;
    if (this.#wakeAt !== null && this.#wakeAt <= at) return;
    this.#wake?.cancel();
    this.#wakeAt = at;
    this.#wake = this.#d.timer(() => {
      this.#wake = null;
      this.#wakeAt = null;
      void this.#track(() => this.#check());
    }, ms);
  }

  /**
   * Runs `fn` as this object's work (idle() waits for it); errors are swallowed. A revival does
   * not wait for a check in flight: a job's success must not hold the queue for a slow check.
   */
  async #track(fn: () => Promise<void>): Promise<void> {
    const work = fn().catch(() => undefined);
    this.#work.add(work);
    try {
      await work;
    } finally {
      this.#work.delete(work);
    }
  }

  async #check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      await this.#checkOnce();
    } finally {
      this.#checking = false;
    }
  }

  async #checkOnce(): Promise<void> {
    if (this.#stopped || this.#failedCanaries >= MAX_FAILED_CANARIES) return;
    const llm = this.#d.llm();
    if (!llm) return; // endpointChanged() calls again when one is set
    if (!this.#d.allowed()) {
      this.#schedule(MAX_CHECK_MS); // under `off` nothing may be spent: look again later
      return;
    }
    if (this.#d.queueBusy() || this.#canary !== null) {
      this.#schedule(this.#backoff()); // a busy queue's (or a canary's) own results decide
      return;
    }
    const failed = await this.#d.jobs.failedJobs(this.#kinds(), RECOVERY_CODES, MAX_REVIVALS);
    if (failed.revivable === 0) {
      this.#maybeParked = false;
      return;
    }
    this.#lastCheck = this.#d.clock.now();
    try {
      await llm.completeJson({
        stage: RECOVERY_CHECK_STAGE,
        messages: CHECK_MESSAGES,
        schema: checkSchema,
        maxTokens: CHECK_MAX_TOKENS,
        temperature: 0,
      });
    } catch {
      this.#misses++;
      this.#schedule(this.#backoff());
      return;
    }
    // Healthy: one job first. Its success revives the rest (jobSucceeded); its failure counts as a miss.
    const [canary] = await this.#d.jobs.reviveFailed(RECOVERY_CODES, this.#d.clock.now(), { ...this.#revival(), limit: 1 });
    if (!canary) return;
    this.#canary = canary.id;
    await this.#d.revived([canary]);
  }
}
