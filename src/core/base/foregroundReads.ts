/**
 * Reads a person is waiting for (a recall, a keyword search, the memory an answer reads) go before
 * the background writes that share the one database connection with them.
 *
 * Why: the connection runs one statement at a time, first come first served. A recall is a chain
 * of statements with awaits between them (its question's embedding is a round trip to the model
 * worker), and a history import that had built its next batch meanwhile queued a write transaction
 * of up to 150,000 characters of text in that gap: the recall's remaining statements then waited
 * for the whole transaction (and for the next one, when its embedding took longer), measured at
 * 100–250 ms of a 300 ms recall during a 17,000-turn browser import. Background writers therefore
 * ask `whenIdle()` before they queue a transaction: it resolves once no foreground read is in
 * flight. A read that arrives while a transaction runs still waits for that one transaction.
 *
 * Invariant: background work is delayed, never stopped: `whenIdle` resolves after `maxWaitMs` even
 * while reads keep coming (a page that searches without pause must not starve an import).
 */

interface TimerHost {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** How long a background writer waits at most for the reads in flight (one recall is well under this). */
export const FOREGROUND_MAX_WAIT_MS = 1_000;

export class ForegroundReads {
  #inFlight = 0;
  #waiters: (() => void)[] = [];

  /** Runs `read` as a foreground read: background writers asking `whenIdle` wait for it. */
  async run<T>(read: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    try {
      return await read();
    } finally {
      if (--this.#inFlight === 0) {
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
      }
    }
  }

  /** Whether a foreground read is in flight. */
  get busy(): boolean {
    return this.#inFlight > 0;
  }

  /** Resolves when no foreground read is in flight, or after `maxWaitMs` at the latest. */
  whenIdle(maxWaitMs = FOREGROUND_MAX_WAIT_MS): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    const host = globalThis as unknown as TimerHost;
    return new Promise((resolve) => {
      const wake = () => {
        host.clearTimeout(timer);
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve();
      };
      const timer = host.setTimeout(wake, maxWaitMs);
      this.#waiters.push(wake);
    });
  }
}
