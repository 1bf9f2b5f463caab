/**
 * The `Llm` port over any OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama, LM Studio,
 * llama.cpp, vLLM…) using the `openai` SDK, in a browser worker or in Node.
 *
 * Invariants:
 * - Every HTTP attempt of a chat completion is reported once to the LlmCallSink — success, error
 *   or cancellation — with usage from the server or, when it gave none, estimated locally.
 * - The API key appears in no LlmCall, no error message and no error detail (see llmErrors.redact).
 * - Retries (ours, not the SDK's, so each attempt is reported and Retry-After is capped) happen on
 *   429, 5xx and unreachable servers, with exponential backoff and jitter; a stream is retried only
 *   before its first delta, since text already shown cannot be taken back.
 * - Optional request features some servers reject (response_format, stream_options) are dropped
 *   after the first 400/422 and not sent again by this client.
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { ErrorCode } from '../core/base/errors';
import {
  systemClock,
  type Clock,
  type Llm,
  type LlmCall,
  type LlmCallOutcome,
  type LlmCallSink,
  type LlmConnectionStatus,
  type LlmConnectionTest,
  type LlmJsonRequest,
  type LlmJsonResult,
  type LlmAbortSignal,
  type LlmRequest,
  type LlmResult,
  type LlmStreamEvent,
  type LlmUsage,
} from '../core/base/ports';
import { LlmError, failedMidStream, isRetryable, notACompletion, streamCut, toLlmError } from './llmErrors';
import { AttemptGuard, cancelled, retryDelay, sleep } from './retry';
import { completeJson } from './structured';
import { estimatePromptTokens, estimateTokens } from '../core/base/tokens';

export interface LlmEndpointConfig {
  /** e.g. "http://localhost:11434/v1"; a bare origin gets "/v1" appended. */
  readonly baseUrl: string;
  /** Optional: local servers need none, and then no Authorization header is sent. */
  readonly apiKey?: string;
  readonly model: string;
}

export interface LlmClientOptions {
  readonly sink?: LlmCallSink;
  readonly clock?: Clock;
  /** Longest wait for the response to start, and between stream chunks. Default 60 s. */
  readonly timeoutMs?: number;
  /** Attempts per call, including the first. Default 4. */
  readonly maxAttempts?: number;
  /** First backoff delay; doubles per retry. Default 500 ms. */
  readonly baseDelayMs?: number;
  /** Cap on any single wait, including a server's Retry-After. Default 20 s. */
  readonly maxDelayMs?: number;
  /** Jitter source, for tests. Default Math.random. */
  readonly random?: () => number;
  /** Custom fetch (tests, proxies). Default globalThis.fetch. */
  readonly fetch?: typeof fetch;
}

// The SDK adds X-Stainless-* telemetry headers; in a browser each one must be allowed by the
// server's CORS preflight, and several local servers allow only a fixed list. They carry nothing
// the endpoint needs, so they are removed (a null header value deletes it in the SDK).
const STRIP_HEADERS = [
  'X-Stainless-Arch',
  'X-Stainless-Lang',
  'X-Stainless-OS',
  'X-Stainless-Package-Version',
  'X-Stainless-Retry-Count',
  'X-Stainless-Runtime',
  'X-Stainless-Runtime-Version',
  'X-Stainless-Timeout',
];

// How servers word "I don't know that parameter": OpenAI ("Unrecognized request argument"),
// vLLM/pydantic ("Extra inputs are not permitted"), llama.cpp and others ("not supported").
const FEATURE_REJECTION =
  /response_format|stream_options|json|unrecogni[sz]ed|unsupported|not supported|unknown (field|param|argument)|extra (inputs|fields)|not permitted/i;

/** Trims, drops trailing slashes, and appends /v1 when the URL is a bare origin. */
export function normalizeBaseUrl(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  try {
    const url = new URL(trimmed);
    if (url.pathname === '/' || url.pathname === '') return `${url.origin}/v1`;
  } catch {
    // Left as typed; the first request reports it as unreachable.
  }
  return trimmed;
}

interface CallMeta {
  readonly stage: string;
  readonly jobId: number | null;
  readonly attempt: number;
  readonly createdAt: number;
}

export class LlmClient implements Llm {
  readonly baseUrl: string;
  readonly model: string;
  private readonly apiKey: string | undefined;
  private readonly sdk: OpenAI;
  private readonly sink: LlmCallSink | undefined;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: { baseDelayMs: number; maxDelayMs: number };
  private readonly random: () => number;
  private jsonModeSupported = true;
  private streamUsageSupported = true;

  constructor(config: LlmEndpointConfig, options: LlmClientOptions = {}) {
    this.baseUrl = normalizeBaseUrl(config.baseUrl);
    this.model = config.model.trim();
    this.apiKey = config.apiKey?.trim() || undefined;
    this.sink = options.sink;
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 4);
    this.backoff = { baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: options.maxDelayMs ?? 20_000 };
    this.random = options.random ?? Math.random;
    const headers: Record<string, null> = Object.fromEntries(STRIP_HEADERS.map((h) => [h, null]));
    if (!this.apiKey) headers.Authorization = null;
    this.sdk = new OpenAI({
      baseURL: this.baseUrl,
      // The SDK insists on a key; with none configured the Authorization header is deleted above.
      apiKey: this.apiKey ?? 'none',
      dangerouslyAllowBrowser: true,
      maxRetries: 0,
      // Our AttemptGuard enforces timeoutMs (including between stream chunks); this is a backstop.
      timeout: this.timeoutMs + 1_000,
      defaultHeaders: headers,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  get isConfigured(): boolean {
    return this.baseUrl !== '' && this.model !== '';
  }

  async complete(req: LlmRequest): Promise<LlmResult> {
    return this.completeWith(req, this.maxAttempts);
  }

  completeJson<T>(req: LlmJsonRequest<T>): Promise<LlmJsonResult<T>> {
    return completeJson(this, req);
  }

  async *stream(req: LlmRequest): AsyncGenerator<LlmStreamEvent, void, undefined> {
    this.requireConfigured();
    let budget = this.maxAttempts;
    for (let attempt = 1; ; attempt++) {
      const meta = this.meta(req, attempt);
      const guard = new AttemptGuard(req.signal, this.timeoutMs);
      let text = '';
      let emitted = false;
      let settled = false;
      let model = this.modelFor(req);
      let finishReason: string | null = null;
      let serverUsage: { prompt_tokens: number; completion_tokens: number } | undefined;
      const withUsage = this.streamUsageSupported;
      try {
        const { data: chunks, response } = await this.sdk.chat.completions
          .create(
            { ...this.body(req), stream: true, ...(withUsage ? { stream_options: { include_usage: true } } : {}) },
            { signal: guard.signal },
          )
          .withResponse();
        // Content-Type is readable across origins (a CORS-safelisted header): it tells a web page
        // from an empty body once the stream turns out to hold no events.
        const contentType = response.headers.get('content-type') ?? '';
        guard.touch();
        let frames = 0;
        for await (const chunk of chunks) {
          guard.touch();
          frames++;
          if (chunk.model) model = chunk.model;
          if (chunk.usage) serverUsage = chunk.usage;
          const choice = chunk.choices?.[0];
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          const delta = choice?.delta?.content;
          if (delta) {
            text += delta;
            emitted = true;
            guard.pause();
            yield { type: 'delta', text: delta };
            guard.touch();
          }
        }
        // The SDK's stream ends quietly on abort instead of throwing; ours is not a normal end.
        if (guard.timedOut || guard.cancelled) throw new Error('aborted');
        // An HTML page or an empty body parses as an SSE stream with no events at all.
        if (frames === 0) throw notACompletion(this.baseUrl, '', contentType);
        guard.dispose();
        const usage = await this.usageOf(serverUsage, req, text);
        settled = true;
        this.report(meta, model, usage, 'ok', null);
        yield { type: 'done', result: { text, model, usage, finishReason } };
        return;
      } catch (err) {
        guard.dispose();
        let error = this.toError(err, guard, req);
        if (emitted && error.code === 'LLM_UNAVAILABLE')
          error = streamCut({ baseUrl: this.baseUrl, apiKey: this.apiKey }, text.length, error);
        else if (emitted && error.code !== 'LLM_CANCELLED') error = failedMidStream(error, text.length);
        settled = true;
        await this.reportFailure(meta, error, req, emitted ? text : '');
        if (!emitted && withUsage && this.isFeatureRejection(error)) {
          this.streamUsageSupported = false;
          budget++;
          continue;
        }
        if (emitted || !isRetryable(error.code) || attempt >= budget) throw error;
        await sleep(retryDelay(attempt, error.retryAfterMs, this.backoff, this.random), req.signal);
      } finally {
        // The consumer stopped iterating early (break/return): stop the download and say so.
        if (!settled) {
          guard.abort();
          guard.dispose();
          await this.reportFailure(meta, cancelled(), req, text);
        }
      }
    }
  }

  /** Model ids from GET /models; [] when the server has no such route. */
  async listModels(signal?: LlmAbortSignal): Promise<string[]> {
    // Listing needs only the address: it is how a user finds the model name to type.
    if (!this.baseUrl) throw new LlmError('LLM_NOT_CONFIGURED', 'Enter the endpoint address first.');
    const guard = new AttemptGuard(signal, this.timeoutMs);
    try {
      const body = await this.sdk.get<unknown>('/models', { signal: guard.signal });
      return parseModelList(body);
    } catch (err) {
      const error = this.toError(err, guard);
      if (error.status === 404 || error.status === 405 || error.status === 501) return [];
      throw error;
    } finally {
      guard.dispose();
    }
  }

  /**
   * For Settings' "Test connection": lists models, then sends a tiny completion (reported to the
   * sink under stage 'connection_test') to check the key and model for real. Never throws.
   */
  async testConnection(opts: { signal?: LlmAbortSignal; probe?: boolean } = {}): Promise<LlmConnectionTest> {
    const started = this.clock.now();
    const elapsed = (): number => this.clock.now() - started;
    if (!this.isConfigured) {
      return {
        status: 'other',
        code: 'LLM_NOT_CONFIGURED',
        message: 'Enter the endpoint URL and the model name first.',
        models: [],
        latencyMs: 0,
      };
    }
    let models: string[] = [];
    try {
      models = await this.listModels(opts.signal);
      if (opts.probe !== false) {
        await this.completeWith(
          { stage: 'connection_test', messages: [{ role: 'user', content: 'Reply with the word OK.' }], maxTokens: 8, signal: opts.signal },
          1,
        );
      }
    } catch (err) {
      const error = err instanceof LlmError ? err : toLlmError(err, this.errorContext(false, false));
      let message = error.message;
      if (error.code === 'LLM_NOT_FOUND' && models.length > 0 && !models.includes(this.model)) {
        message = `The model "${this.model}" is not offered by ${this.baseUrl}. Available: ${models.slice(0, 10).join(', ')}${models.length > 10 ? ', …' : ''}.`;
      }
      return {
        status: connectionStatus(error),
        message,
        models,
        code: error.code,
        ...(error.status !== undefined ? { httpStatus: error.status } : {}),
        latencyMs: elapsed(),
      };
    }
    const listed = models.length === 0 || models.includes(this.model) ? '' : ` (the server does not list "${this.model}" but accepted it)`;
    return {
      status: 'ok',
      message: `Connected to ${this.baseUrl}; model "${this.model}" answered${listed}.`,
      models,
      latencyMs: elapsed(),
    };
  }

  // ---------------------------------------------------------------------------------------------

  private async completeWith(req: LlmRequest, maxAttempts: number): Promise<LlmResult> {
    this.requireConfigured();
    let budget = maxAttempts;
    for (let attempt = 1; ; attempt++) {
      const meta = this.meta(req, attempt);
      const json = req.json === true && this.jsonModeSupported;
      const guard = new AttemptGuard(req.signal, this.timeoutMs);
      try {
        const res = await this.sdk.chat.completions.create(
          { ...this.body(req), stream: false, ...(json ? { response_format: { type: 'json_object' as const } } : {}) },
          { signal: guard.signal },
        );
        guard.dispose();
        // The SDK hands back the body as text when it is not JSON (an HTML page, an empty reply).
        if (typeof res !== 'object' || res === null || !Array.isArray(res.choices)) throw notACompletion(this.baseUrl, res);
        const choice = res.choices[0];
        const text = choice?.message?.content ?? '';
        const model = res.model || this.modelFor(req);
        const usage = await this.usageOf(res.usage ?? undefined, req, text);
        this.report(meta, model, usage, 'ok', null);
        return { text, model, usage, finishReason: choice?.finish_reason ?? null };
      } catch (err) {
        guard.dispose();
        const error = this.toError(err, guard, req);
        await this.reportFailure(meta, error, req, '');
        if (json && this.isFeatureRejection(error)) {
          // e.g. older llama.cpp / vLLM builds: "response_format not supported". The structured
          // layer still extracts and validates JSON from plain text.
          this.jsonModeSupported = false;
          budget++;
          continue;
        }
        if (!isRetryable(error.code) || attempt >= budget) throw error;
        await sleep(retryDelay(attempt, error.retryAfterMs, this.backoff, this.random), req.signal);
      }
    }
  }

  /** The configured model, unless the call names its own (a conversation's model). */
  private modelFor(req: LlmRequest): string {
    return req.model?.trim() || this.model;
  }

  private body(req: LlmRequest): ChatCompletionCreateParamsBase {
    return {
      model: this.modelFor(req),
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
      ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    };
  }

  /** A 400/422 that blames an optional parameter (not, say, an over-long prompt). */
  private isFeatureRejection(error: LlmError): boolean {
    return error.code === 'LLM_REJECTED' && (error.status === 400 || error.status === 422) && FEATURE_REJECTION.test(error.detail ?? '');
  }

  private requireConfigured(): void {
    if (!this.isConfigured) {
      throw new LlmError('LLM_NOT_CONFIGURED', 'No language model is configured. Set the endpoint URL and model in Settings.');
    }
  }

  private meta(req: LlmRequest, attempt: number): CallMeta {
    if (req.signal?.aborted) throw cancelled();
    return { stage: req.stage, jobId: req.jobId ?? null, attempt, createdAt: this.clock.now() };
  }

  private errorContext(timedOut: boolean, wasCancelled: boolean, model = this.model) {
    return { baseUrl: this.baseUrl, model, apiKey: this.apiKey, timedOut, cancelled: wasCancelled, now: this.clock.now() };
  }

  private toError(err: unknown, guard: AttemptGuard, req?: LlmRequest): LlmError {
    return toLlmError(err, this.errorContext(guard.timedOut, guard.cancelled, req ? this.modelFor(req) : this.model));
  }

  private async usageOf(
    server: { prompt_tokens: number; completion_tokens: number } | undefined,
    req: LlmRequest,
    text: string,
  ): Promise<LlmUsage> {
    if (server && Number.isFinite(server.prompt_tokens) && Number.isFinite(server.completion_tokens)) {
      return { promptTokens: server.prompt_tokens, completionTokens: server.completion_tokens, estimated: false };
    }
    const [promptTokens, completionTokens] = await Promise.all([estimatePromptTokens(req.messages), estimateTokens(text)]);
    return { promptTokens, completionTokens, estimated: true };
  }

  /**
   * A failed attempt costs what the server processed: nothing we can know for a refusal (429,
   * 401, 5xx, unreachable), so 0; a stream cut off after output began, or a timeout/cancel that
   * may have been processed, is estimated from the prompt and the partial text.
   */
  private async reportFailure(meta: CallMeta, error: LlmError, req: LlmRequest, partialText: string): Promise<void> {
    const outcome: LlmCallOutcome = error.code === 'LLM_CANCELLED' ? 'cancelled' : 'error';
    const maybeProcessed = partialText !== '' || error.code === 'LLM_TIMEOUT' || error.code === 'LLM_CANCELLED';
    const usage: LlmUsage = maybeProcessed
      ? await this.usageOf(undefined, req, partialText)
      : { promptTokens: 0, completionTokens: 0, estimated: false };
    this.report(meta, this.modelFor(req), usage, outcome, error.code);
  }

  private report(meta: CallMeta, model: string, usage: LlmUsage, outcome: LlmCallOutcome, error: ErrorCode | null): void {
    if (!this.sink) return;
    const call: LlmCall = {
      stage: meta.stage,
      model,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      tokensEstimated: usage.estimated,
      latencyMs: Math.max(0, this.clock.now() - meta.createdAt),
      outcome,
      error,
      attempt: meta.attempt,
      jobId: meta.jobId,
      createdAt: meta.createdAt,
    };
    // Accounting must never break the call it accounts for.
    try {
      const pending = this.sink.record(call);
      if (pending) pending.catch(() => undefined);
    } catch {
      // ignored, see above
    }
  }
}

function connectionStatus(error: LlmError): LlmConnectionStatus {
  switch (error.code) {
    case 'LLM_UNAUTHORIZED':
      return 'unauthorized';
    case 'LLM_NOT_FOUND':
      return 'not_found';
    case 'LLM_TIMEOUT':
      return 'timeout';
    case 'LLM_UNAVAILABLE':
      return error.status === undefined ? 'network' : 'other';
    default:
      return 'other';
  }
}

/** OpenAI's {data:[{id}]}, Ollama's native {models:[{name}]}, or a bare array. */
export function parseModelList(body: unknown): string[] {
  const list = Array.isArray(body)
    ? body
    : Array.isArray((body as { data?: unknown })?.data)
      ? (body as { data: unknown[] }).data
      : Array.isArray((body as { models?: unknown })?.models)
        ? (body as { models: unknown[] }).models
        : [];
  const ids: string[] = [];
  for (const item of list) {
    if (typeof item === 'string') ids.push(item);
    else if (item && typeof item === 'object') {
      const o = item as { id?: unknown; name?: unknown; model?: unknown };
      const id = [o.id, o.name, o.model].find((v): v is string => typeof v === 'string');
      if (id) ids.push(id);
    }
  }
  return ids;
}
