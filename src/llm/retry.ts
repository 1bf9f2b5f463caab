/**
 * Backoff arithmetic and an abortable sleep for LlmClient's retry loop.
 */
import type { LlmAbortSignal } from '../core/base/ports';
import { LlmError } from './llmErrors';

export interface BackoffOptions {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Delay before attempt `attempt + 1`: exponential with "equal jitter" (half fixed, half random) so
 * many clients do not retry in lock-step, yet the wait never collapses to zero. A server's
 * Retry-After wins over the computed delay, but both are capped at `maxDelayMs`.
 */
export function retryDelay(attempt: number, retryAfterMs: number | undefined, opts: BackoffOptions, random: () => number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), opts.maxDelayMs);
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** Resolves after `ms`, or rejects with LLM_CANCELLED as soon as `signal` aborts. */
export function sleep(ms: number, signal?: LlmAbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function cancelled(): LlmError {
  return new LlmError('LLM_CANCELLED', 'The request to the language model was cancelled.');
}

/**
 * One attempt's abort controller: fires when the caller's signal aborts or when no progress was
 * made for `timeoutMs` (waiting for the response, or between stream chunks). Remembers which.
 */
export class AttemptGuard {
  readonly controller = new AbortController();
  timedOut = false;
  cancelled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onAbort = (): void => {
    this.cancelled = true;
    this.controller.abort();
  };

  constructor(
    private readonly outer: LlmAbortSignal | undefined,
    private readonly timeoutMs: number,
  ) {
    if (outer?.aborted) this.onAbort();
    else outer?.addEventListener('abort', this.onAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Progress was made: restart the idle timer. */
  touch(): void {
    this.pause();
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  /** The consumer holds the stream (we are suspended at a yield): its time is not the server's. */
  pause(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  abort(): void {
    this.controller.abort();
  }

  dispose(): void {
    this.pause();
    this.outer?.removeEventListener('abort', this.onAbort);
  }
}
