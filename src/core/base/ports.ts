/**
 * Capabilities injected into core code. Implementations live in src/models (transformers.js),
 * src/llm and test fakes; core never imports them directly.
 */
import type { ErrorCode } from './errors';
import type { Message, Role } from './types';

/** Queries and documents may be embedded differently (e.g. bge's instruction prefix on queries). */
export type EmbedRole = 'query' | 'document';

/** Turns texts into unit-length vectors. Never returns NaN: empty or all-unknown text gives a zero vector. */
export interface Embedder {
  /** Stable identity stored next to every vector it produced, e.g. "recollect/glove-100d-sif@1". */
  readonly id: string;
  readonly dim: number;
  embed(texts: readonly string[], role?: EmbedRole): Promise<Float32Array[]>;
}

/** Embedders by catalog model id (the engine may need two at once while re-embedding). */
export interface EmbedderProvider {
  /** The model used when the database has not chosen one yet (the bundled offline model). */
  readonly defaultModelId: string;
  /** Throws MODEL_UNAVAILABLE (lazily, on embed) when the model is not on this device. */
  embedder(modelId: string): Embedder;
  /**
   * The reranker chosen in Settings → Models, or null when none is (reranking off, the default).
   * Asked on every recall: the choice can change at any time. Absent = this provider never reranks.
   */
  activeReranker?(): Promise<Reranker | null>;
  /**
   * Tells the model host which model's vectors retrieval uses now, so it keeps that one loaded as
   * its embedder (and reports it as the running model). Absent = models are loaded on use only.
   */
  activate?(modelId: string): Promise<void>;
}

/** Scores (query, document) pairs; higher is more relevant. One score per document, in order. */
export interface Reranker {
  readonly id: string;
  /**
   * How far recall lets this model's verdicts move the fused order, 0..1 (the catalog entry's
   * `rerankTrust`; recall/rerankOrder.ts): 0 = not at all (recall does not ask it), 1 = what
   * it singles out goes to the top. Absent = 1 (a test fake, the recall bench's oracle and random).
   */
  readonly trust?: number;
  rerank(query: string, docs: readonly string[]): Promise<number[]>;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

// ---------------------------------------------------------------------------------------------
// LLM. Core asks for text or JSON through `Llm`; src/llm implements it against an
// OpenAI-compatible endpoint, tests use the mock server or a fake. No SDK types cross this line.
// ---------------------------------------------------------------------------------------------

/**
 * The part of AbortSignal that `Llm` needs. Declared structurally because src/core compiles
 * without DOM/Node types; a real AbortSignal satisfies it.
 */
export interface LlmAbortSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export type LlmRole = Role;

/** A message sent to a model: what of a turn the model reads. */
export type LlmMessage = Pick<Message, 'role' | 'content'>;

export interface LlmRequest {
  /** What the call is for ('answer', 'synthesis', 'profile', …): the key usage is reported under. */
  readonly stage: string;
  readonly messages: readonly LlmMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Ask the server for a JSON object (response_format json_object) where it supports that. */
  readonly json?: boolean;
  readonly signal?: LlmAbortSignal;
  /** The job this call serves, recorded with its usage. */
  readonly jobId?: number | null;
  /** An endpoint model for this call instead of the configured one (a conversation's own); models on this device ignore it. */
  readonly model?: string;
}

export interface LlmUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** True when the server reported no `usage` and the counts were estimated locally. */
  readonly estimated: boolean;
}

export interface LlmResult {
  readonly text: string;
  /** The model that answered, as the server named it (falls back to the configured model). */
  readonly model: string;
  readonly usage: LlmUsage;
  /** 'stop', 'length' (cut off by maxTokens), … or null when the server did not say. */
  readonly finishReason: string | null;
}

/** Streaming answers: text deltas as they arrive, then exactly one 'done' carrying the whole result. */
export type LlmStreamEvent = { readonly type: 'delta'; readonly text: string } | { readonly type: 'done'; readonly result: LlmResult };

/**
 * Failures are thrown as errors with an LLM_* `code` (see errors.ts): LLM_RATE_LIMITED,
 * LLM_UNAVAILABLE and LLM_TIMEOUT are worth retrying later; LLM_UNAUTHORIZED, LLM_NOT_FOUND and
 * LLM_NOT_CONFIGURED need the user; LLM_CANCELLED follows an abort.
 */
export interface Llm {
  /**
   * Set by models that run on this device (src/llm/DeviceLlm.ts): what ran and where, for "What
   * was sent" (e.g. "SmolLM2 135M Instruct, WebGPU"). Absent for an endpoint.
   */
  readonly onDevice?: string;
  /**
   * The context window of a small model on this device: synthesis batches and the default memory
   * budget are sized for it (synthesis/smallModel.ts, settings.ts). Absent for an endpoint.
   */
  readonly contextTokens?: number;
  complete(req: LlmRequest): Promise<LlmResult>;
  stream(req: LlmRequest): AsyncIterable<LlmStreamEvent>;
  /**
   * A JSON object validated against `schema`: asks for JSON, repairs common breakage (code
   * fences, prose around it, truncation), retries once with the validation errors, then throws
   * LLM_BAD_OUTPUT (with the raw reply and the issues). src/llm/structured.ts implements it.
   */
  completeJson<T>(req: LlmJsonRequest<T>): Promise<LlmJsonResult<T>>;
}

/** One validation problem, e.g. { path: ['facts', 0, 'speaker'], message: 'Required' }. */
export interface LlmSchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** The part of a zod schema completeJson uses; any zod (3.x or 4.x) schema satisfies it. */
export interface LlmSchema<T> {
  safeParse(
    data: unknown,
  ):
    | { readonly success: true; readonly data: T }
    | { readonly success: false; readonly error: { readonly issues: readonly LlmSchemaIssue[] } };
}

export interface LlmJsonRequest<T> extends Omit<LlmRequest, 'json'> {
  readonly schema: LlmSchema<T>;
}

export interface LlmJsonResult<T> {
  readonly value: T;
  /** The model's reply the value was taken from (the last attempt's). */
  readonly raw: string;
  /** True when the JSON had to be repaired (fences, prose, truncation, syntax) before parsing. */
  readonly repaired: boolean;
  /** 1, or 2 when the first reply failed validation and the model was asked again. */
  readonly attempts: number;
  /** Summed over attempts. */
  readonly usage: LlmUsage;
}

export type LlmCallOutcome = 'ok' | 'error' | 'cancelled';

/**
 * One HTTP attempt against the endpoint (retries are separate records with their `attempt`),
 * as stored in `llm_calls`. Never contains the API key, prompts or answers.
 */
export interface LlmCall {
  readonly stage: string;
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly tokensEstimated: boolean;
  readonly latencyMs: number;
  readonly outcome: LlmCallOutcome;
  /** An ErrorCode (LLM_*) when outcome is not 'ok'. */
  readonly error: ErrorCode | null;
  /** 1 for the first try, 2 for the first retry, … */
  readonly attempt: number;
  readonly jobId: number | null;
  /** Epoch milliseconds when the attempt started. */
  readonly createdAt: number;
}

/** Receives every LlmCall. Must not throw into the caller; failures here are swallowed. */
export interface LlmCallSink {
  record(call: LlmCall): void | Promise<void>;
}

export type LlmConnectionStatus = 'ok' | 'unauthorized' | 'not_found' | 'network' | 'timeout' | 'other';

/** What Settings shows after "Test connection". `message` is written for a person. */
export interface LlmConnectionTest {
  readonly status: LlmConnectionStatus;
  readonly message: string;
  /** Models listed by GET /models; empty when the server does not offer that route. */
  readonly models: readonly string[];
  readonly code?: ErrorCode;
  readonly httpStatus?: number;
  readonly latencyMs: number;
}
