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
 * be stopped, or, with `synthesis`, a minimal valid JSON reply to each synthesis stage (recognised
 * by the prompt's headings, like test/support/synthesisResponder.ts). Like Chrome, a prompt that
 * would take the session past its `contextWindow` is refused with a QuotaExceededError (tokens
 * counted as characters / 4). What the app did with it is kept on `window.__languageModelStub`.
 */
export interface LanguageModelStubOptions {
  /** What availability() says until a create() (with a monitor) has "downloaded" the model. */
  readonly availability: 'unavailable' | 'downloadable' | 'downloading' | 'available';
  /** Milliseconds between streamed pieces. */
  readonly pieceMs: number;
  /** Pieces per answer before the stream closes on its own. */
  readonly pieces: number;
  /** The window sessions report (default 6,144). */
  readonly contextWindow?: number;
  /** Answer synthesis prompts (episode, theme, profile) and the memory summary's with valid JSON. */
  readonly synthesis?: boolean;
}

export interface LanguageModelStubLog {
  availabilityCalls: number;
  creates: { initialPrompts: { role: string; content: string }[]; monitored: boolean }[];
  prompts: string[];
  aborted: number;
  destroyed: number;
  downloadEvents: number[];
  /** Per prompt: its stage ('memcell', 'scene', 'profile', 'summary' or 'other') and the session's tokens with it. */
  usage: { stage: string; tokens: number }[];
  /** Prompts refused as over the window. */
  overflows: number;
}

/** Runs in the page (serialised by Playwright): no imports, no closures over module scope. */
export function installLanguageModelStub(options: LanguageModelStubOptions): void {
  const log: LanguageModelStubLog = {
    availabilityCalls: 0,
    creates: [],
    prompts: [],
    aborted: 0,
    destroyed: 0,
    downloadEvents: [],
    usage: [],
    overflows: 0,
  };
  const stageOf = (input: string) =>
    /^TURNS[ :]/m.test(input)
      ? 'memcell'
      : input.includes('NEW EPISODES:')
        ? 'scene'
        : input.includes('CURRENT PROFILE:')
          ? 'profile'
          : input.startsWith('ITEMS:\n')
            ? 'summary'
            : 'other';
  /** The JSON a synthesis stage needs, from what the prompt shows (a fact per user turn, a summary naming the episodes, a profile item per scene). */
  const synthesisReply = (stage: string, input: string): string | null => {
    if (stage === 'memcell') {
      const facts = [...input.matchAll(/^\[(\d+)\] .*? \| (.+?) \(user\): (.*)$/gm)].map((m) => ({
        text: `${m[2]} said: ${m[3]!.slice(0, 80)}`,
        speaker: m[2],
        kind: 'new',
        turns: [Number(m[1])],
      }));
      return JSON.stringify({
        title: 'Stub episode',
        narrative: `The user talked: ${facts.map((f) => f.text).join(' ')}`.slice(0, 600),
        facts,
        foresight: [],
      });
    }
    if (stage === 'scene')
      return JSON.stringify({
        title: 'Stub theme',
        summary: `Stub theme summary of ${[...input.matchAll(/^(E\d+) \| /gm)].map((m) => m[1]).join(', ')}.`,
      });
    if (stage === 'profile') {
      return JSON.stringify({
        operations: [...input.matchAll(/^(S\d+) \(episodes/gm)].map((m) => ({
          op: 'add',
          kind: 'explicit',
          key: `stub topic ${m[1]}`,
          value: 'talked about on this device',
          confidence: 0.9,
          evidence: [m[1]],
        })),
      });
    }
    if (stage === 'summary') {
      const sentences = [...input.matchAll(/^(M\d+) \[[^\]]*\] (.+)$/gm)].map((m) => ({
        text: `On this device: ${m[2]!.slice(0, 60)}`,
        items: [m[1]],
      }));
      return JSON.stringify({ paragraphs: [{ topic: 'Stub topic', sentences }] });
    }
    return null;
  };
  let state: string = options.availability;
  const abortError = () => new DOMException('The operation was aborted.', 'AbortError');
  const tokens = (text: string) => Math.ceil(text.length / 4);

  class StubSession {
    contextUsage: number;
    readonly contextWindow = options.contextWindow ?? 6_144;
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
      const stage = stageOf(input);
      if (this.contextUsage + tokens(input) > this.contextWindow) {
        log.overflows++;
        throw new DOMException('The input is too large.', 'QuotaExceededError');
      }
      this.contextUsage += tokens(input);
      log.usage.push({ stage, tokens: this.contextUsage });
      const json = options.synthesis ? synthesisReply(stage, input) : null;
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
            if (json !== null) {
              signal?.removeEventListener('abort', stop);
              controller.enqueue(json);
              controller.close();
              return;
            }
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
    async create(
      createOptions: {
        initialPrompts?: { role: string; content: string }[];
        signal?: AbortSignal;
        monitor?: (m: EventTarget) => void;
      } = {},
    ): Promise<StubSession> {
      if (state === 'unavailable') throw new DOMException('The model is not available on this device.', 'NotSupportedError');
      if (createOptions.signal?.aborted) throw abortError();
      const monitor = new EventTarget();
      createOptions.monitor?.(monitor);
      log.creates.push({
        initialPrompts: (createOptions.initialPrompts ?? []).map((m) => ({ role: m.role, content: m.content })),
        monitored: !!createOptions.monitor,
      });
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
