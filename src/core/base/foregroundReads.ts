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
 * The reads a person starts come in runs (the page searches, then recalls; a chat send reads turns,
 * facts and episodes): writers wait until no read has been in flight for `lingerMs` too, or the next
 * batch would slip in between two reads of one run, and the second would wait for all of it.
 *
 * Invariant: background work is delayed, never stopped: `whenIdle` resolves after `maxWaitMs` even
 * while reads keep coming (a page that searches without pause must not starve an import).
 */

interface TimerHost {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const host = () => globalThis as unknown as TimerHost;

/** How long a background writer waits at most for the reads in flight (one recall is well under this). */
export const FOREGROUND_MAX_WAIT_MS = 1_000;
/** Quiet time after the last read before writers go (a page's next call arrives within a few ms). */
export const FOREGROUND_LINGER_MS = 50;

export class ForegroundReads {
  readonly #lingerMs: number;
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  /** The linger after the last read ended, while it runs. */
  #lingering: unknown = null;

  constructor(options: { readonly lingerMs?: number } = {}) {
    this.#lingerMs = options.lingerMs ?? FOREGROUND_LINGER_MS;
  }

  /** Runs `read` as a foreground read: background writers asking `whenIdle` wait for it. */
  async run<T>(read: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    if (this.#lingering !== null) {
      host().clearTimeout(this.#lingering);
      this.#lingering = null;
    }
    try {
      return await read();
    } finally {
      if (--this.#inFlight === 0) {
        if (this.#lingerMs > 0) {
          this.#lingering = host().setTimeout(() => {
            this.#lingering = null;
            this.#wakeAll();
          }, this.#lingerMs);
        } else this.#wakeAll();
      }
    }
  }

  /** Whether a foreground read is in flight (or ended less than `lingerMs` ago). */
  get busy(): boolean {
    return this.#inFlight > 0 || this.#lingering !== null;
  }

  #wakeAll(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves when no foreground read is in flight (nor ended within `lingerMs`), or after `maxWaitMs` at the latest. */
  whenIdle(maxWaitMs = FOREGROUND_MAX_WAIT_MS): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        host().clearTimeout(timer);
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve();
      };
      const timer = host().setTimeout(wake, maxWaitMs);
      this.#waiters.push(wake);
    });
  }
}
