/**
 * The `Llm` port over a model running on this device (a `TextGenerator`: transformers.js in its own
 * worker, or the browser's built-in model), so answers, titles, synthesis and the boundary and
 * sufficiency checks use it exactly as they use the endpoint client. Nothing leaves the device.
 *
 * Invariants, the same as LlmClient's:
 * - Every attempt is reported once to the LlmCallSink — ok, error or cancelled — under the model's
 *   catalog id, with the model's own token counts (or estimates when the provider gives none).
 * - A stream is retried only before its first delta (text shown cannot be taken back), and only for
 *   LLM_UNAVAILABLE (the worker was busy loading, or restarted).
 * - Stopping (the caller's signal, or leaving the stream early) cancels the generation on the
 *   device and ends with LLM_CANCELLED; the partial output is counted.
 * - Structured outputs go through the same repair-and-retry path (structured.ts).
 */
import type { ErrorCode } from '../core/base/errors';
import {
  systemClock,
  type Clock,
  type Llm,
  type LlmCall,
  type LlmCallOutcome,
  type LlmCallSink,
  type LlmJsonRequest,
  type LlmJsonResult,
  type LlmRequest,
  type LlmResult,
  type LlmStreamEvent,
  type LlmUsage,
} from '../core/base/ports';
import type { DeviceGenerationResult, TextGenerator } from '../core/protocol';
import { estimatePromptTokens, estimateTokens } from '../core/base/tokens';
import { LlmError, isRetryable } from './llmErrors';
import { cancelled, retryDelay, sleep } from './retry';
import { completeJson } from './structured';

export interface DeviceLlmOptions {
  /** The catalog id ('HuggingFaceTB/SmolLM2-135M-Instruct', 'chrome-built-in'): the ledger's model. */
  readonly model: string;
  /** For people ("SmolLM2 135M Instruct"); default the model id. */
  readonly label?: string;
  readonly sink?: LlmCallSink;
  readonly clock?: Clock;
  /** Attempts per call, including the first. Default 3. */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly random?: () => number;
  /** The model's context window: synthesis batches and the default memory budget are sized for it. */
  readonly contextTokens?: number;
  /** Output cap when a request sets none (small context windows). Default 512. */
  readonly defaultMaxTokens?: number;
  /** Request ids for cancel(); default a counter. */
  readonly newId?: () => string;
}

let counter = 0;

const DEVICE_NAMES: Record<string, string> = {
  webgpu: 'WebGPU, on this device’s graphics card',
  wasm: 'WASM, on this device’s processor',
  cpu: 'this device’s processor',
  'built-in': 'the browser’s built-in model',
};

export class DeviceLlm implements Llm {
  readonly model: string;
  /** Set after the first generation: 'webgpu', 'wasm', 'built-in'… */
  lastDevice: string | null = null;
  readonly label: string;
  readonly contextTokens: number | undefined;
  readonly #generator: TextGenerator;
  readonly #sink: LlmCallSink | undefined;
  readonly #clock: Clock;
  readonly #maxAttempts: number;
  readonly #backoff: { baseDelayMs: number; maxDelayMs: number };
  readonly #random: () => number;
  readonly #defaultMaxTokens: number;
  readonly #newId: () => string;

  constructor(generator: TextGenerator, options: DeviceLlmOptions) {
    this.#generator = generator;
    this.model = options.model;
    this.label = options.label ?? options.model;
    this.contextTokens = options.contextTokens;
    this.#sink = options.sink;
    this.#clock = options.clock ?? systemClock;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.#backoff = { baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: 5_000 };
    this.#random = options.random ?? Math.random;
    this.#defaultMaxTokens = options.defaultMaxTokens ?? 512;
    this.#newId = options.newId ?? (() => `gen-${++counter}-${Math.random().toString(36).slice(2, 8)}`);
  }

  /** What ran and where, for "What was sent". */
  get onDevice(): string {
    const where = DEVICE_NAMES[this.lastDevice ?? ''] ?? 'this device';
    return `${this.label} (${where})`;
  }

  async complete(req: LlmRequest): Promise<LlmResult> {
    for await (const event of this.#run(req, false)) {
      if (event.type === 'done') return event.result;
    }
    throw new LlmError('LLM_UNAVAILABLE', 'The model on this device ended without an answer.');
  }

  stream(req: LlmRequest): AsyncGenerator<LlmStreamEvent, void, undefined> {
    return this.#run(req, true);
  }

  completeJson<T>(req: LlmJsonRequest<T>): Promise<LlmJsonResult<T>> {
    return completeJson(this, req);
  }

  async *#run(req: LlmRequest, streaming: boolean): AsyncGenerator<LlmStreamEvent, void, undefined> {
    for (let attempt = 1; ; attempt++) {
      if (req.signal?.aborted) throw cancelled();
      const createdAt = this.#clock.now();
      const requestId = this.#newId();
      const pending: string[] = [];
      let wake: (() => void) | null = null;
      let text = '';
      let emitted = false;
      let settled = false;
      let stopped = false;
      const stop = (): void => {
        if (stopped) return;
        stopped = true;
        void Promise.resolve(this.#generator.cancel(requestId)).catch(() => undefined);
        // Stop now: the generation ends on its own side (its result is not waited for).
        wake?.();
      };
      req.signal?.addEventListener('abort', stop, { once: true });
      const onText = streaming
        ? (piece: string, device?: string): void => {
            if (device) this.lastDevice = device;
            pending.push(piece);
            wake?.();
          }
        : undefined;
      let outcome: { result: DeviceGenerationResult } | { error: unknown } | null = null;
      const generation = this.#generator
        .generate(
          {
            requestId,
            messages: req.messages,
            maxNewTokens: req.maxTokens ?? this.#defaultMaxTokens,
            ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          },
          onText,
        )
        .then(
          (result) => (outcome = { result }),
          (error: unknown) => (outcome = { error }),
        )
        .finally(() => wake?.());
      try {
        for (;;) {
          while (pending.length > 0) {
            const piece = pending.shift()!;
            text += piece;
            emitted = true;
            yield { type: 'delta', text: piece };
          }
          if (outcome || stopped) break;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
        }
        if (stopped && !outcome) throw cancelled();
        await generation;
        const done = outcome as unknown as { result: DeviceGenerationResult } | { error: unknown };
        if ('error' in done) throw toDeviceError(done.error);
        const result = done.result;
        this.lastDevice = result.device;
        // Deltas queued after the last wake-up are already drained above; the result's text is whole.
        const usage: LlmUsage = {
          promptTokens: result.promptTokens,
          completionTokens: result.completionTokens,
          estimated: result.tokensEstimated,
        };
        if (result.finishReason === 'cancelled' || stopped) {
          settled = true;
          this.#report(req, attempt, createdAt, usage, 'cancelled', 'LLM_CANCELLED');
          throw cancelled();
        }
        settled = true;
        this.#report(req, attempt, createdAt, usage, 'ok', null);
        yield { type: 'done', result: { text: result.text, model: this.model, usage, finishReason: result.finishReason } };
        return;
      } catch (err) {
        const error = toDeviceError(err);
        if (!settled) {
          settled = true;
          const usage = await this.#estimate(req, emitted ? text : '');
          this.#report(req, attempt, createdAt, usage, error.code === 'LLM_CANCELLED' ? 'cancelled' : 'error', error.code);
        }
        if (emitted || stopped || !isRetryable(error.code) || attempt >= this.#maxAttempts) throw error;
        await sleep(retryDelay(attempt, undefined, this.#backoff, this.#random), req.signal);
      } finally {
        req.signal?.removeEventListener('abort', stop);
        if (!settled) {
          // The consumer left the stream early (break/return): stop generating and say so.
          settled = true;
          stop();
          const usage = await this.#estimate(req, text);
          this.#report(req, attempt, createdAt, usage, 'cancelled', 'LLM_CANCELLED');
        }
      }
    }
  }

  async #estimate(req: LlmRequest, partial: string): Promise<LlmUsage> {
    const [promptTokens, completionTokens] = await Promise.all([estimatePromptTokens(req.messages), estimateTokens(partial)]);
    return { promptTokens, completionTokens, estimated: true };
  }

  #report(req: LlmRequest, attempt: number, createdAt: number, usage: LlmUsage, outcome: LlmCallOutcome, error: ErrorCode | null): void {
    if (!this.#sink) return;
    const call: LlmCall = {
      stage: req.stage,
      model: this.model,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      tokensEstimated: usage.estimated,
      latencyMs: Math.max(0, this.#clock.now() - createdAt),
      outcome,
      error,
      attempt,
      jobId: req.jobId ?? null,
      createdAt,
    };
    try {
      const pending = this.#sink.record(call);
      if (pending) pending.catch(() => undefined);
    } catch {
      // Accounting must never break the call it accounts for.
    }
  }
}

/** Errors from a generator (possibly across a worker, as plain objects with a code) as LlmErrors. */
function toDeviceError(err: unknown): LlmError {
  if (err instanceof LlmError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String((err as { message?: unknown } | null)?.message ?? err);
  if (typeof code === 'string' && code.startsWith('LLM_')) return new LlmError(code as ErrorCode, message);
  if ((err as { name?: unknown } | null)?.name === 'AbortError') return cancelled();
  return new LlmError('LLM_UNAVAILABLE', `The model on this device failed: ${message}`);
}
