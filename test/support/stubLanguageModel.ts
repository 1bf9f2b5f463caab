/**
 * A stand-in for the browser's `LanguageModel` (the Prompt API) with its documented interface:
 * `availability()` in its four states, `create({ initialPrompts, temperature, topK, signal })`, and
 * sessions with `promptStreaming(input, { signal })` (a ReadableStream of text deltas that errors
 * with an AbortError when the signal fires), `measureInputUsage()`, `inputUsage`, `inputQuota`,
 * `destroy()`. Token counts are words, so tests can check the accounting exactly.
 */
import type { LanguageModelApi, PromptApiCreateOptions, PromptApiSession } from '../../src/llm/PromptApiGenerator';

export interface StubLanguageModel extends LanguageModelApi {
  state: string;
  /** What the next prompts answer, in order (the last one repeats). */
  replies: string[];
  /** Every create() call's options, for assertions. */
  readonly created: PromptApiCreateOptions[];
  /** Every prompt given to promptStreaming. */
  readonly prompts: string[];
  /** Sessions still alive. */
  live: number;
  /** Throw this from promptStreaming instead of answering (e.g. a QuotaExceededError). */
  failWith: Error | null;
  /** The window sessions report: Chrome's older `inputQuota` (4,096 here) and/or the spec's `contextWindow`. */
  reports: { inputQuota?: number; contextWindow?: number };
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

export function stubLanguageModel(state = 'available'): StubLanguageModel {
  const stub: StubLanguageModel = {
    state,
    replies: ['The built-in model answers in several small pieces of text.'],
    created: [],
    prompts: [],
    live: 0,
    failWith: null,
    reports: { inputQuota: 4096 },
    async availability() {
      return stub.state;
    },
    async create(options: PromptApiCreateOptions = {}): Promise<PromptApiSession> {
      if (stub.state !== 'available') throw Object.assign(new Error('The model is not available.'), { name: 'NotAllowedError' });
      stub.created.push(options);
      stub.live++;
      let usage = (options.initialPrompts ?? []).reduce((n, p) => n + words(p.content), 0);
      let destroyed = false;
      return {
        get inputUsage() {
          return usage;
        },
        ...stub.reports,
        async measureInputUsage(input: string) {
          return words(input);
        },
        destroy() {
          if (!destroyed) stub.live--;
          destroyed = true;
        },
        promptStreaming(input: string, opts: { signal?: { aborted: boolean } } = {}) {
          if (stub.failWith) throw stub.failWith;
          stub.prompts.push(input);
          usage += words(input);
          const reply = stub.replies.length > 1 ? stub.replies.shift()! : stub.replies[0]!;
          const pieces = reply.match(/\S+\s*/g) ?? [];
          return new ReadableStream<string>({
            async pull(controller) {
              // One piece per macrotask, like a model producing tokens.
              await new Promise((r) => setTimeout(r, 0));
              if (opts.signal?.aborted) {
                controller.error(new DOMException('The operation was aborted.', 'AbortError'));
                return;
              }
              const piece = pieces.shift();
              if (piece === undefined) return controller.close();
              usage += words(piece);
              controller.enqueue(piece);
            },
          });
        },
      };
    },
  };
  return stub;
}
