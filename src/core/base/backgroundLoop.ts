/**
 * A serial background loop: `kick()` runs the body now, or once more after the running pass if a
 * pass is already under way (work that arrived meanwhile is never missed, and two passes never
 * overlap). Used by the embedding indexer, the lifecycle and the job runner.
 */
export class BackgroundLoop {
  readonly #body: () => Promise<void>;
  readonly #repeat: () => boolean;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  /** `repeat` decides whether a kick that arrived during a pass triggers another pass. */
  constructor(body: () => Promise<void>, repeat: () => boolean = () => true) {
    this.#body = body;
    this.#repeat = repeat;
  }

  get running(): boolean {
    return this.#running !== null;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#body().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        if (this.#repeat()) this.kick();
      }
    });
  }

  /** Resolves when no pass is running (tests, benchmark ingest). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  stop(): void {
    this.#stopped = true;
  }
}
