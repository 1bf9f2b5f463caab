/**
 * The browser's built-in language model (the Prompt API: `LanguageModel`, desktop Chrome 148+)
 * as a `TextGenerator`. It runs where `LanguageModel` is exposed (the page); the engine worker
 * reaches it through a port, like any other generator.
 *
 * Shape used (Chrome's documented interface): `LanguageModel.availability()` →
 * 'unavailable' | 'downloadable' | 'downloading' | 'available'; `LanguageModel.create({
 * initialPrompts, temperature, topK, signal, monitor })` → a session with
 * `promptStreaming(input, { signal })` (a ReadableStream of text deltas), `measureContextUsage()`,
 * `contextUsage`, `contextWindow` and `destroy()` (the spec's IDL; Chrome before them named these
 * `measureInputUsage()`, `inputUsage` and `inputQuota`, now kept for extensions only: both are read). The system prompt and earlier turns go in
 * `initialPrompts` (a system message is only allowed first); the last message is the prompt.
 * Each generation gets a fresh session, so nothing of one conversation leaks into another.
 */
import type { BuiltInAvailability, DeviceGenerationRequest, DeviceGenerationResult, TextGenerator, TextListener } from '../core/protocol';
import type { LlmMessage } from '../core/base/ports';
import { estimatePromptTokens, estimateTokens } from '../core/base/tokens';
import { LlmError } from './llmErrors';

/** The model id the ledger records for the built-in model. */
export const BUILT_IN_MODEL_ID = 'chrome-built-in';

/**
 * The window assumed for the built-in model when the browser did not say: Gemini Nano's session
 * quota as Chrome has reported it (`inputQuota`, now `contextWindow`: 6,144 tokens). The session's
 * own figure is read when the model is chosen (builtInContextWindow) and used instead.
 */
export const BUILT_IN_CONTEXT_TOKENS = 6_144;

interface AbortSignalLike {
  readonly aborted: boolean;
}

export interface PromptApiSession {
  promptStreaming(input: string, options?: { signal?: AbortSignalLike }): AsyncIterable<string> | ReadableStream<string>;
  measureContextUsage?(input: string): Promise<number>;
  readonly contextUsage?: number;
  readonly contextWindow?: number;
  /** The older names (extensions only since the spec renamed them). */
  measureInputUsage?(input: string): Promise<number>;
  readonly inputUsage?: number;
  readonly inputQuota?: number;
  destroy(): void;
}

export interface PromptApiCreateOptions {
  initialPrompts?: { role: 'system' | 'user' | 'assistant'; content: string }[];
  temperature?: number;
  topK?: number;
  signal?: AbortSignalLike;
  monitor?: (m: { addEventListener(type: 'downloadprogress', listener: (e: { loaded: number }) => void): void }) => void;
}

/** The `LanguageModel` global, structurally. */
export interface LanguageModelApi {
  availability(options?: object): Promise<string>;
  create(options?: PromptApiCreateOptions): Promise<PromptApiSession>;
  params?(): Promise<{ defaultTopK: number; maxTopK: number; defaultTemperature: number; maxTemperature: number }>;
}

/** The page's `LanguageModel`, if this browser has one. */
export function findLanguageModel(scope: object = globalThis): LanguageModelApi | null {
  const api = (scope as { LanguageModel?: unknown }).LanguageModel;
  return api && typeof (api as LanguageModelApi).availability === 'function' && typeof (api as LanguageModelApi).create === 'function'
    ? (api as LanguageModelApi)
    : null;
}

/** `availability()` folded into the states the app explains; anything odd reads as unavailable. */
export async function builtInAvailability(api: LanguageModelApi | null): Promise<BuiltInAvailability> {
  if (!api) return 'unsupported';
  try {
    const state = await api.availability();
    return state === 'available' || state === 'downloadable' || state === 'downloading' ? state : 'unavailable';
  } catch {
    // availability() can throw (a flag, a policy): read as unavailable, as the doc says
    return 'unavailable';
  }
}

/** What to tell a person for each state. */
export function builtInAdvice(state: BuiltInAvailability): string {
  switch (state) {
    case 'available':
      return 'The browser’s built-in model is ready. Nothing is downloaded by Recollect and nothing leaves this device.';
    case 'downloadable':
      return 'The browser can download its built-in model (several GB, once). Choosing it starts that download in the browser; it needs about 22 GB of free disk and a GPU with more than 4 GB of memory or 16 GB of RAM.';
    case 'downloading':
      return 'The browser is downloading its built-in model. Answers start once it has finished.';
    case 'unavailable':
      return 'This device cannot run the browser’s built-in model (not enough disk, memory or GPU). Download a model below instead.';
    case 'unsupported':
      return 'This browser has no built-in model (desktop Chrome 148 or later has one). Download a model below instead.';
  }
}

export class PromptApiGenerator implements TextGenerator {
  readonly #api: LanguageModelApi;
  readonly #running = new Map<string, AbortController>();
  readonly #cancelled = new Set<string>();

  constructor(api: LanguageModelApi) {
    this.#api = api;
  }

  cancel(requestId: string): void {
    this.#cancelled.add(requestId);
    this.#running.get(requestId)?.abort();
  }

  async generate(request: DeviceGenerationRequest, onText?: TextListener): Promise<DeviceGenerationResult> {
    const { history, prompt } = split(request.messages);
    const controller = new AbortController();
    this.#running.set(request.requestId, controller);
    if (this.#cancelled.delete(request.requestId)) controller.abort();
    let session: PromptApiSession | null = null;
    let text = '';
    let overBudget = false;
    let promptTokens: number | null = null;
    let completionTokens: number | null = null;
    try {
      if (!controller.signal.aborted) {
        session = await this.#api.create({
          initialPrompts: history,
          ...(request.temperature !== undefined ? { temperature: request.temperature, topK: 3 } : {}),
          signal: controller.signal,
        });
        const before = usageOf(session);
        const measure = session.measureContextUsage?.bind(session) ?? session.measureInputUsage?.bind(session);
        const measured = measure ? await measure(prompt).catch(() => null) : null;
        if (typeof before === 'number' && typeof measured === 'number') promptTokens = before + measured;
        for await (const piece of iterate(session.promptStreaming(prompt, { signal: controller.signal }))) {
          if (!piece) continue;
          text += piece;
          onText?.(piece, 'built-in');
          if (estimateLength(text) > request.maxNewTokens) {
            // The Prompt API has no output limit; stop once the budget is spent.
            overBudget = true;
            controller.abort();
            break;
          }
        }
        const after = usageOf(session);
        if (promptTokens !== null && typeof after === 'number' && after >= promptTokens) completionTokens = after - promptTokens;
      }
    } catch (err) {
      if (!isAbort(err, controller)) throw toPromptApiError(err);
    } finally {
      this.#running.delete(request.requestId);
      this.#cancelled.delete(request.requestId);
      session?.destroy();
    }
    const cancelled = controller.signal.aborted && !overBudget;
    const counted = promptTokens !== null && completionTokens !== null;
    return {
      text,
      model: BUILT_IN_MODEL_ID,
      promptTokens: counted ? promptTokens! : await estimatePromptTokens(request.messages),
      completionTokens: counted ? completionTokens! : await estimateTokens(text),
      tokensEstimated: !counted,
      finishReason: cancelled ? 'cancelled' : overBudget ? 'length' : 'stop',
      device: 'built-in',
    };
  }
}

function split(messages: readonly LlmMessage[]): { history: { role: LlmMessage['role']; content: string }[]; prompt: string } {
  const last = messages.at(-1);
  if (!last || last.role !== 'user')
    throw new LlmError('LLM_REJECTED', 'The built-in model needs the conversation to end with a user message.');
  // A system message is only accepted first; later ones (rare) are folded into it.
  const system = messages
    .slice(0, -1)
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const turns = messages
    .slice(0, -1)
    .filter((m) => m.role !== 'system')
    .map((m) => ({ role: m.role, content: m.content }));
  return { history: [...(system ? [{ role: 'system' as const, content: system }] : []), ...turns], prompt: last.content };
}

/** Tokens the session holds so far (the spec's `contextUsage`, or Chrome's older `inputUsage`). */
function usageOf(session: PromptApiSession): number | undefined {
  return typeof session.contextUsage === 'number' ? session.contextUsage : session.inputUsage;
}

/**
 * Lets the browser download its model: `create()` with a `downloadprogress` monitor (the event's
 * `loaded` is a fraction, 0–1), then the session is let go. Chrome needs a user gesture for this
 * while the model is 'downloadable', so it is called from a button's click.
 */
export async function downloadBuiltInModel(api: LanguageModelApi, onProgress: (fraction: number) => void): Promise<void> {
  try {
    const session = await api.create({
      monitor: (m) => m.addEventListener('downloadprogress', (e) => onProgress(Math.max(0, Math.min(1, Number(e.loaded) || 0)))),
    });
    session.destroy();
  } catch (err) {
    throw toPromptApiError(err);
  }
}

/**
 * The context window the browser's model reports for a session (`contextWindow`, or Chrome's
 * older `inputQuota`), read from a session made for the purpose and let go; null when it says
 * nothing usable (no figure, or Infinity: "no hard limit") or the model is not 'available' —
 * create() would then start a download of several GB, which only a click may do.
 */
export async function builtInContextWindow(api: LanguageModelApi): Promise<number | null> {
  if ((await builtInAvailability(api)) !== 'available') return null;
  let session: PromptApiSession | null = null;
  try {
    session = await api.create();
    const reported = session.contextWindow ?? session.inputQuota;
    return typeof reported === 'number' && Number.isFinite(reported) && reported > 0 ? Math.floor(reported) : null;
  } catch {
    return null;
  } finally {
    session?.destroy();
  }
}

/** A cheap upper bound for "has it written maxNewTokens yet" (≈ 4 characters per token). */
function estimateLength(text: string): number {
  return Math.ceil(text.length / 4);
}

async function* iterate(source: AsyncIterable<string> | ReadableStream<string>): AsyncGenerator<string> {
  if (Symbol.asyncIterator in source) {
    yield* source as AsyncIterable<string>;
    return;
  }
  const reader = (source as ReadableStream<string>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function isAbort(err: unknown, controller: AbortController): boolean {
  return controller.signal.aborted || (err as { name?: unknown } | null)?.name === 'AbortError';
}

function toPromptApiError(err: unknown): LlmError {
  const name = (err as { name?: unknown } | null)?.name;
  const message = err instanceof Error ? err.message : String(err);
  // QuotaExceededError: the prompt does not fit the model's context window.
  if (name === 'QuotaExceededError')
    return new LlmError('LLM_REJECTED', `The conversation is too long for the browser's built-in model: ${message}`);
  if (name === 'NotSupportedError')
    return new LlmError('LLM_REJECTED', `The browser's built-in model cannot take this request: ${message}`);
  if (name === 'NotAllowedError' || name === 'InvalidStateError')
    return new LlmError('LLM_NOT_CONFIGURED', `The browser's built-in model is not available: ${message}`);
  return new LlmError('LLM_UNAVAILABLE', `The browser's built-in model failed: ${message}`);
}
