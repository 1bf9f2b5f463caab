/**
 * Holds back work until released: while held, `later(run)` keeps `run` (each function once) and
 * `release()` runs them all, once; when not held, `later` runs it at once.
 */
export class HoldGate {
  #held = false;
  #pending: (() => void)[] = [];

  get held(): boolean {
    return this.#held;
  }

  hold(): void {
    this.#held = true;
  }

  /** Runs `run` now, or when the hold ends (a function already waiting is not added twice). */
  later(run: () => void): void {
    if (!this.#held) run();
    else if (!this.#pending.includes(run)) this.#pending.push(run);
  }

  /** Ends the hold and runs what waited for it (later calls do nothing). */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    const pending = this.#pending;
    this.#pending = [];
    for (const run of pending) run();
  }
}
