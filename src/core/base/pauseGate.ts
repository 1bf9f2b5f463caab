/**
 * Lets background work wait between steps while anyone asked it to (`pause()` returns that
 * caller's resume; the work goes on when every caller has resumed). Work that is waiting keeps its
 * place: it resumes where it stopped.
 */
export class PauseGate {
  #paused: { promise: Promise<void>; resume: () => void; count: number } | null = null;

  /** Pauses until the returned function is called (once; later calls do nothing). */
  pause(): () => void {
    if (!this.#paused) {
      let resume = () => undefined as void;
      const promise = new Promise<void>((r) => (resume = r));
      this.#paused = { promise, resume, count: 0 };
    }
    const paused = this.#paused;
    paused.count++;
    let once = false;
    return () => {
      if (once) return;
      once = true;
      if (--paused.count > 0) return;
      if (this.#paused === paused) this.#paused = null;
      paused.resume();
    };
  }

  /** Resolves at once, or when the last pause ends. */
  async whilePaused(): Promise<void> {
    while (this.#paused) await this.#paused.promise;
  }
}
