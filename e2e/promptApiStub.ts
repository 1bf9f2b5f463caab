/**
 * A stand-in for the browser's built-in model (the Prompt API's `LanguageModel`), installed before
 * the app's scripts with `context.addInitScript(installLanguageModelStub, options)`. It follows the
 * interface the spec and Chrome document (webmachinelearning.github.io/prompt-api, MDN
 * "LanguageModel"): `availability()` → 'unavailable' | 'downloadable' | 'downloading' |
 * 'available'; `create({ initialPrompts, temperature, topK, signal, monitor })`, where `monitor(m)`
 * gets an EventTarget firing 'downloadprogress' events whose `loaded` is a fraction 0–1; a session
 * with `promptStreaming(input, { signal })` returning a ReadableStream of text pieces that errors
 * with an AbortError DOMException when the signal aborts, `measureContextUsage()`, `contextUsage`,
 * `contextWindow` and `destroy()`. No model behind it: it writes numbered words, slowly enough to
 * be stopped. What the app did with it is kept on `window.__languageModelStub` for the test.
 */
export interface LanguageModelStubOptions {
  /** What availability() says until a create() (with a monitor) has "downloaded" the model. */
  readonly availability: 'unavailable' | 'downloadable' | 'downloading' | 'available';
  /** Milliseconds between streamed pieces. */
  readonly pieceMs: number;
  /** Pieces per answer before the stream closes on its own. */
  readonly pieces: number;
}

export interface LanguageModelStubLog {
  availabilityCalls: number;
  creates: { initialPrompts: { role: string; content: string }[]; monitored: boolean }[];
  prompts: string[];
  aborted: number;
  destroyed: number;
  downloadEvents: number[];
}

/** Runs in the page (serialised by Playwright): no imports, no closures over module scope. */
export function installLanguageModelStub(options: LanguageModelStubOptions): void {
  const log: LanguageModelStubLog = { availabilityCalls: 0, creates: [], prompts: [], aborted: 0, destroyed: 0, downloadEvents: [] };
  let state: string = options.availability;
  const abortError = () => new DOMException('The operation was aborted.', 'AbortError');
  const tokens = (text: string) => Math.ceil(text.length / 4);

  class StubSession {
    contextUsage: number;
    readonly contextWindow = 6_144;
    #destroyed = false;

    constructor(initial: { content: string }[]) {
      this.contextUsage = initial.reduce((n, m) => n + tokens(m.content), 0);
    }

    async measureContextUsage(input: string): Promise<number> {
      return tokens(input);
    }

    promptStreaming(input: string, opts: { signal?: AbortSignal } = {}): ReadableStream<string> {
      if (this.#destroyed) throw new DOMException('The session was destroyed.', 'InvalidStateError');
      log.prompts.push(input);
      this.contextUsage += tokens(input);
      const signal = opts.signal;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let sent = 0;
      return new ReadableStream<string>({
        start: (controller) => {
          const stop = () => {
            clearTimeout(timer);
            log.aborted++;
            try {
              controller.error(abortError());
            } catch {
              // Already closed.
            }
          };
          if (signal?.aborted) return stop();
          signal?.addEventListener('abort', stop, { once: true });
          const next = () => {
            if (signal?.aborted) return;
            if (sent >= options.pieces) {
              signal?.removeEventListener('abort', stop);
              controller.close();
              return;
            }
            const piece = `${sent === 0 ? '' : ' '}word${sent + 1}`;
            sent++;
            this.contextUsage += 1;
            controller.enqueue(piece);
            timer = setTimeout(next, options.pieceMs);
          };
          timer = setTimeout(next, options.pieceMs);
        },
        cancel: () => clearTimeout(timer),
      });
    }

    destroy(): void {
      this.#destroyed = true;
      log.destroyed++;
    }
  }

  const LanguageModel = {
    async availability(): Promise<string> {
      log.availabilityCalls++;
      return state;
    },
    async params() {
      return { defaultTopK: 3, maxTopK: 128, defaultTemperature: 1, maxTemperature: 2 };
    },
    async create(createOptions: {
      initialPrompts?: { role: string; content: string }[];
      signal?: AbortSignal;
      monitor?: (m: EventTarget) => void;
    } = {}): Promise<StubSession> {
      if (state === 'unavailable') throw new DOMException('The model is not available on this device.', 'NotSupportedError');
      if (createOptions.signal?.aborted) throw abortError();
      const monitor = new EventTarget();
      createOptions.monitor?.(monitor);
      log.creates.push({ initialPrompts: (createOptions.initialPrompts ?? []).map((m) => ({ role: m.role, content: m.content })), monitored: !!createOptions.monitor });
      if (state === 'downloadable' || state === 'downloading') {
        state = 'downloading';
        for (const loaded of [0, 0.25, 0.5, 0.75, 1]) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          const event = new Event('downloadprogress') as Event & { loaded: number };
          Object.defineProperty(event, 'loaded', { value: loaded });
          log.downloadEvents.push(loaded);
          monitor.dispatchEvent(event);
        }
        state = 'available';
      }
      return new StubSession(createOptions.initialPrompts ?? []);
    },
  };
  // Chrome's own LanguageModel (headless Chromium exposes one that says 'unavailable') is replaced.
  Object.defineProperty(window, 'LanguageModel', { value: LanguageModel, configurable: true, writable: true });
  Object.defineProperty(window, '__languageModelStub', { value: log, configurable: true });
}
