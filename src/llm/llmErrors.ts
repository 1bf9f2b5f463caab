/**
 * Maps whatever the OpenAI SDK (or fetch underneath it) throws onto Recollect's LLM_* error codes,
 * with a message a person can act on. Invariant: no message, detail or field of an error made here
 * contains the API key — servers sometimes echo it back ("Incorrect API key provided: sk-…"), so
 * every text taken from a response goes through `redact`.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { RecollectError, type ErrorCode } from '../core/base/errors';
import { formatCount } from '../core/base/numbers';
import { redactSecrets } from '../core/base/secrets';

export class LlmError extends RecollectError {
  /** HTTP status when the server answered. */
  readonly status: number | undefined;
  /** How long the server asked us to wait (Retry-After), when it said. The job queue may use it. */
  readonly retryAfterMs: number | undefined;
  constructor(code: ErrorCode, message: string, opts: { detail?: string; status?: number; retryAfterMs?: number } = {}) {
    super(code, message, opts.detail);
    this.name = 'LlmError';
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** Codes worth another attempt after a pause. Timeouts are not retried here: a hung server would
 *  multiply the wait; the job queue retries them later instead. */
export function isRetryable(code: ErrorCode): boolean {
  return code === 'LLM_RATE_LIMITED' || code === 'LLM_UNAVAILABLE';
}

/** Removes the key (and anything shaped like a bearer token or provider key) from text. */
export function redact(text: string, apiKey: string | undefined): string {
  return redactSecrets(text, apiKey);
}

/**
 * Retry-After as milliseconds: `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an
 * HTTP date (RFC 9110 §10.2.3). Undefined when absent or unparseable; never negative.
 */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface ErrorContext {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string | undefined;
  /** Our own timer fired. */
  readonly timedOut: boolean;
  /** The caller's signal fired. */
  readonly cancelled: boolean;
  readonly now: number;
}

function serverMessage(err: APIError, apiKey: string | undefined): string {
  const raw = err.error as { message?: unknown } | undefined;
  const text = typeof raw?.message === 'string' ? raw.message : err.message;
  return redact(text, apiKey).slice(0, 500);
}

export function toLlmError(err: unknown, ctx: ErrorContext): LlmError {
  if (err instanceof LlmError) return err;
  // Our flags first: an abort surfaces from the SDK as APIUserAbortError or a bare AbortError.
  if (ctx.cancelled) return new LlmError('LLM_CANCELLED', 'The request to the language model was cancelled.');
  if (ctx.timedOut || err instanceof APIConnectionTimeoutError) {
    return new LlmError(
      'LLM_TIMEOUT',
      `The language model at ${ctx.baseUrl} did not answer in time. It may be overloaded or still loading the model; try again in a moment.`,
    );
  }
  if (err instanceof APIUserAbortError) return new LlmError('LLM_CANCELLED', 'The request to the language model was cancelled.');
  if (err instanceof APIConnectionError) return unreachable(ctx, err);
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const said = serverMessage(err, ctx.apiKey);
    const base = { status, detail: said };
    if (status === 401 || status === 403) {
      return new LlmError(
        'LLM_UNAUTHORIZED',
        ctx.apiKey
          ? `The endpoint ${ctx.baseUrl} refused the API key (HTTP ${status}). Check the key in Settings.`
          : `The endpoint ${ctx.baseUrl} needs an API key (HTTP ${status}). Add one in Settings.`,
        base,
      );
    }
    if (status === 404) {
      return new LlmError(
        'LLM_NOT_FOUND',
        `Not found at ${ctx.baseUrl} (HTTP 404): check the URL (it usually ends in /v1) and that the model "${ctx.model}" exists there. Server said: ${said}`,
        base,
      );
    }
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(err.headers, ctx.now);
      return new LlmError(
        'LLM_RATE_LIMITED',
        `The endpoint is rate-limiting requests (HTTP 429); wait a little and try again. Server said: ${said}`,
        retryAfterMs === undefined ? base : { ...base, retryAfterMs },
      );
    }
    if (status === 408) return new LlmError('LLM_TIMEOUT', `The endpoint timed out (HTTP 408). Server said: ${said}`, base);
    if (status === 409 || status >= 500) {
      const retryAfterMs = parseRetryAfter(err.headers, ctx.now);
      return new LlmError(
        'LLM_UNAVAILABLE',
        `The endpoint had a server error (HTTP ${status}). Server said: ${said}`,
        retryAfterMs === undefined ? base : { ...base, retryAfterMs },
      );
    }
    return new LlmError('LLM_REJECTED', `The endpoint rejected the request (HTTP ${status}): ${said}`, base);
  }
  if (err instanceof APIError && err.status === undefined && err.error !== undefined) {
    // An error frame inside a 200 stream (`data: {"error": …}`): the server answered and failed.
    return new LlmError('LLM_REJECTED', `The endpoint reported an error while answering: ${serverMessage(err, ctx.apiKey)}`, {
      detail: serverMessage(err, ctx.apiKey),
    });
  }
  if (err instanceof SyntaxError) {
    // A reply or stream frame that is not JSON: the server was reached, the connection is fine.
    return new LlmError(
      'LLM_BAD_OUTPUT',
      `The endpoint at ${ctx.baseUrl} sent a malformed reply (not valid JSON), so it could not be read.`,
      { detail: redact(err.message, ctx.apiKey).slice(0, 300) },
    );
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TypeError')) return unreachable(ctx, err);
  const detail = redact(err instanceof Error ? err.message : String(err), ctx.apiKey);
  return new LlmError('LLM_UNAVAILABLE', `The language model call failed: ${detail}`, { detail });
}

function unreachable(ctx: ErrorContext, err: Error): LlmError {
  // Browsers report a CORS refusal exactly like a refused connection ("Failed to fetch"), so the
  // message names both causes.
  const cause = (err as { cause?: unknown }).cause;
  const detail = redact([err.message, cause instanceof Error ? cause.message : ''].filter(Boolean).join(': '), ctx.apiKey);
  // The browser knows it has no network: say that, unless the endpoint is on this machine (a local
  // server answers offline, so its failure is the server's).
  if (globalThis.navigator?.onLine === false && !onThisMachine(ctx.baseUrl)) {
    return new LlmError(
      'LLM_UNAVAILABLE',
      `You are offline, so ${ctx.baseUrl} could not be reached. Your message is kept: send it again when you are back online, or answer on this device (Settings).`,
      { detail },
    );
  }
  return new LlmError(
    'LLM_UNAVAILABLE',
    `Could not reach ${ctx.baseUrl}. Check that the server is running and the URL is right; a server on another origin must also allow this app's origin (CORS — e.g. OLLAMA_ORIGINS for Ollama).`,
    { detail },
  );
}

function onThisMachine(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host === '[::1]' || host.startsWith('127.') || host.endsWith('.localhost');
  } catch {
    return false;
  }
}

/**
 * The connection broke after the server had started answering. Not "could not reach": the
 * server was reached and sent part of the answer, which the caller keeps, marked as partial.
 */
export function streamCut(ctx: Pick<ErrorContext, 'baseUrl' | 'apiKey'>, received: number, cause: LlmError): LlmError {
  return new LlmError(
    'LLM_STREAM_CUT',
    `The answer was cut off: the connection to ${ctx.baseUrl} broke after ${formatCount(received)} characters had arrived. What arrived is kept and marked as partial; Try again to ask once more.`,
    { detail: redact(cause.detail ?? cause.message, ctx.apiKey) },
  );
}

/** A 200 reply that is not a chat completion: an HTML page (wrong URL, a login wall), an empty body, other JSON. */
export function notACompletion(baseUrl: string, body: unknown, contentType = ''): LlmError {
  const text = typeof body === 'string' ? body.trim() : null;
  // A stream's body is consumed by its parser, so a page that parsed as no events is told by its type.
  const what =
    /html/i.test(contentType) || (text !== null && /^<(!doctype|html|head|body)/i.test(text))
      ? 'a web page (HTML)'
      : text === ''
        ? 'an empty reply'
        : 'something that is not a chat completion';
  return new LlmError(
    'LLM_BAD_OUTPUT',
    `The endpoint at ${baseUrl} answered with ${what} instead of a chat completion. Check the URL in Settings: it should be the API address, which usually ends in /v1.`,
    { detail: text === null ? typeof body : text.slice(0, 200) },
  );
}

/** An error that ended a stream after `received` characters had been shown. */
export function failedMidStream(error: LlmError, received: number): LlmError {
  return new LlmError(
    error.code,
    `${error.message} It happened after ${formatCount(received)} characters had arrived; they stay on screen marked as partial. Try again to ask once more.`,
    { ...(error.detail !== undefined ? { detail: error.detail } : {}), ...(error.status !== undefined ? { status: error.status } : {}) },
  );
}
