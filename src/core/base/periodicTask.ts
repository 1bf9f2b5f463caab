/**
 * Work that repeats while the engine runs (closing idle episodes, expiring foresight): once at
 * start, then every `everyMs` on an injected Timer, so tests drive it with a fake clock and timer.
 * A pass never overlaps the previous one, and a failing pass is recorded, not thrown: the next
 * tick tries again.
 */
import { toErrorInfo, type ErrorInfo } from './errors';
import type { Timer } from './jobs';

export class PeriodicTask {
  readonly #run: () => Promise<void>;
  readonly #timer: Timer;
  readonly #everyMs: number;
  #handle: { cancel(): void } | null = null;
  #pass: Promise<void> | null = null;
  #stopped = true;
  #lastError: ErrorInfo | null = null;

  constructor(run: () => Promise<void>, timer: Timer, everyMs: number) {
    this.#run = run;
    this.#timer = timer;
    this.#everyMs = everyMs;
  }

  get lastError(): ErrorInfo | null {
    return this.#lastError;
  }

  /** Runs a pass now and schedules the next ones (a restart after stop() is allowed). */
  start(): Promise<void> {
    this.#stopped = false;
    return this.tick();
  }

  /** Runs one pass now (or waits for the running one) and schedules the next. */
  async tick(): Promise<void> {
    if (this.#stopped) return;
    this.#handle?.cancel();
    this.#pass ??= this.#run()
      .then(
        () => {
          this.#lastError = null;
        },
        (err: unknown) => {
          this.#lastError = toErrorInfo(err);
        },
      )
      .finally(() => {
        this.#pass = null;
      });
    await this.#pass;
    if (this.#stopped) return;
    this.#handle?.cancel(); // two overlapping tick() calls leave one timer, not two
    this.#handle = this.#timer(() => void this.tick(), this.#everyMs);
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    while (this.#pass) await this.#pass;
  }

  stop(): void {
    this.#stopped = true;
    this.#handle?.cancel();
    this.#handle = null;
  }
}
