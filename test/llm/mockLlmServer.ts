/**
 * A deterministic OpenAI-compatible server for pipeline tests and the construction-cost benchmark
 * It must never be used to claim answer accuracy: its answers are derived
 * mechanically from the prompt (see `defaultResponder`) or supplied by the test.
 *
 * Speaks POST /v1/chat/completions (JSON and SSE streaming, with usage in a final chunk when
 * `stream_options.include_usage` is set) and GET /v1/models; answers CORS preflights. Tokens are
 * counted as whitespace-separated words, so the same prompt always costs the same.
 *
 * Switches (setBehaviour) — "Next" counters apply to the next N chat requests, then run out:
 * latencyMs, chunkDelayMs, rateLimitNext (+ retryAfter), serverErrorNext, hangNext, malformedNext,
 * truncateNext, dropStreamNext (a stream's connection is cut after its second chunk), htmlNext and emptyNext (a 200 that is a web
 * page or empty), malformedJsonNext, emptyChoicesNext, errorObjectNext and mislabelledNext (a 200 whose JSON body is cut off,
 * has no choices, is an error object, or is not JSON at all though labelled so), ignoreMaxTokens, badFrameNext and errorFrameNext (a stream whose third frame is not JSON, or is an error), omitUsage, apiKey (401 for any other bearer token), modelsRoute,
 * rejectUnknownModels, rejectResponseFormat, responder. A max_tokens limit cuts the reply to that
 * many words (finish_reason 'length'), so benchmarks should pass generous limits.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockMessage {
  readonly role: string;
  readonly content: string;
}

/** The parts of a chat request a responder looks at. */
export interface MockChatRequest {
  readonly model: string;
  readonly messages: readonly MockMessage[];
  readonly stream: boolean;
  /** True when response_format json_object/json_schema was asked for, or the prompt says JSON. */
  readonly wantsJson: boolean;
  readonly maxTokens: number | undefined;
  readonly body: Record<string, unknown>;
}

export type MockResponder = (req: MockChatRequest) => string;

export interface MockBehaviour {
  /** Delay before any response starts. */
  latencyMs: number;
  /** Delay between stream chunks. */
  chunkDelayMs: number;
  /** Answer the next N chat requests with 429. */
  rateLimitNext: number;
  /** Retry-After header value sent with 429s (seconds or an HTTP date); null sends none. */
  retryAfter: string | null;
  /** Answer the next N chat requests with 500. */
  serverErrorNext: number;
  /** Never answer the next N chat requests (the client must time out or abort). */
  hangNext: number;
  /** Replace the next N replies with prose that contains no JSON at all. */
  malformedNext: number;
  /** Cut the next N replies to 60% of their characters (finish_reason 'length'). */
  truncateNext: number;
  /** Cut the connection of the next N streamed replies after two content chunks (no finish, no [DONE]). */
  dropStreamNext: number;
  /** Answer the next N chat requests with 200 and an HTML page, as a website or a login wall does. */
  htmlNext: number;
  /** Answer the next N chat requests with 200 and an empty body. */
  emptyNext: number;
  /** Answer the next N chat requests with 200 and a JSON body cut off in the middle (malformed JSON). */
  malformedJsonNext: number;
  /** Answer the next N chat requests with 200 and a completion whose `choices` is empty. */
  emptyChoicesNext: number;
  /** Answer the next N chat requests with 200 and an error object (`{"error": …}`) instead of a completion. */
  errorObjectNext: number;
  /** Answer the next N chat requests with 200, Content-Type application/json, and a body that is plain text. */
  mislabelledNext: number;
  /** In the next N streamed replies, send a frame that is not JSON after two content chunks, then end. */
  badFrameNext: number;
  /** In the next N streamed replies, send an error frame (`data: {"error": …}`) after two content chunks, then end. */
  errorFrameNext: number;
  /** Ignore max_tokens, as some servers do (a runaway reply). */
  ignoreMaxTokens: boolean;
  /** Send no `usage` (non-streaming) and no usage chunk (streaming). */
  omitUsage: boolean;
  /** When set, any request whose bearer token differs gets 401. */
  apiKey: string | null;
  /** False: GET /v1/models answers 404, like servers without the route. */
  modelsRoute: boolean;
  models: string[];
  /** True: chat requests naming a model not in `models` get 404, like Ollama. */
  rejectUnknownModels: boolean;
  /** True: requests carrying response_format get 400, like servers without JSON mode. */
  rejectResponseFormat: boolean;
  responder: MockResponder;
}

export interface MockRecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown> | undefined;
}

export interface MockLlmServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:41234/v1 */
  readonly url: string;
  /** Every request received, in order (preflights included). */
  readonly requests: MockRecordedRequest[];
  setBehaviour(patch: Partial<MockBehaviour>): void;
  /** Current behaviour, with counters as they are now. */
  behaviour(): Readonly<MockBehaviour>;
  close(): Promise<void>;
}

/** FNV-1a, 32 bits: a stable, dependency-free hash for deterministic answers. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function countWords(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/).length;
}

function lastUserMessage(req: MockChatRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) if (req.messages[i]?.role === 'user') return req.messages[i]?.content ?? '';
  return '';
}

/**
 * Default answer: a hash of the whole prompt plus the first words of the last user message.
 * With JSON asked for: {"answer": …, "echo": …, "hash": …}.
 */
/** The system prompt of the engine's title call (src/core/engine/conversationTitles.ts) starts so. */
export const TITLE_PROMPT_START = 'You name conversations';

export const defaultResponder: MockResponder = (req) => {
  // A conversation title: "About: " and the first six words the user said, so tests can tell it apart.
  if (req.messages[0]?.content.startsWith(TITLE_PROMPT_START)) {
    return `About: ${lastUserMessage(req)
      .replace(/^User:\s*/, '')
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 6)
      .join(' ')}`;
  }
  const hash = fnv1a(req.messages.map((m) => `${m.role}:${m.content}`).join('\n'))
    .toString(16)
    .padStart(8, '0');
  const echo = lastUserMessage(req).split(/\s+/).filter(Boolean).slice(0, 12).join(' ');
  if (req.wantsJson) return JSON.stringify({ answer: `mock ${hash}`, echo, hash });
  return `Mock answer ${hash}: ${echo}`;
};

const DEFAULTS: MockBehaviour = {
  latencyMs: 0,
  chunkDelayMs: 0,
  rateLimitNext: 0,
  retryAfter: '0',
  serverErrorNext: 0,
  hangNext: 0,
  malformedNext: 0,
  truncateNext: 0,
  dropStreamNext: 0,
  htmlNext: 0,
  emptyNext: 0,
  malformedJsonNext: 0,
  emptyChoicesNext: 0,
  errorObjectNext: 0,
  mislabelledNext: 0,
  badFrameNext: 0,
  errorFrameNext: 0,
  ignoreMaxTokens: false,
  omitUsage: false,
  apiKey: null,
  modelsRoute: true,
  models: ['mock-model'],
  rejectUnknownModels: false,
  rejectResponseFormat: false,
  responder: defaultResponder,
};

const STAINLESS = [
  'x-stainless-arch',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
];

function cors(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'retry-after, retry-after-ms');
  if (req.method === 'OPTIONS') {
    const requested = String(req.headers['access-control-request-headers'] ?? '')
      .toLowerCase()
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const allowed = new Set([
      'authorization',
      'content-type',
      'accept',
      'user-agent',
      ...STAINLESS,
      ...requested.filter((h) => h.startsWith('x-stainless-')),
    ]);
    res.setHeader('Access-Control-Allow-Headers', [...allowed].join(', '));
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Max-Age', '600');
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function apiError(res: ServerResponse, status: number, message: string, type: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type, code: null, param: null } }, headers);
}

const wait = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    // a body that is not JSON is recorded as none
    return undefined;
  }
}

function toChatRequest(body: Record<string, unknown>): MockChatRequest {
  const messages = Array.isArray(body.messages)
    ? (body.messages as { role?: unknown; content?: unknown }[]).map((m) => ({
        role: String(m.role ?? ''),
        content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''),
      }))
    : [];
  const format = (body.response_format as { type?: unknown } | undefined)?.type;
  const wantsJson = format === 'json_object' || format === 'json_schema' || messages.some((m) => /\bjson\b/i.test(m.content));
  const maxTokens =
    typeof body.max_tokens === 'number'
      ? body.max_tokens
      : typeof body.max_completion_tokens === 'number'
        ? body.max_completion_tokens
        : undefined;
  return { model: String(body.model ?? ''), messages, stream: body.stream === true, wantsJson, maxTokens, body };
}

/** Splits text into chunks of up to three words, keeping the whitespace, so deltas rejoin exactly. */
function chunksOf(text: string): string[] {
  const parts = text.match(/\S+\s*/g) ?? [];
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += 3) out.push(parts.slice(i, i + 3).join(''));
  if (out.length > 0 && lead) out[0] = lead + out[0];
  return out;
}

export async function startMockLlmServer(initial: Partial<MockBehaviour> = {}): Promise<MockLlmServer> {
  const state: MockBehaviour = { ...DEFAULTS, ...initial };
  const requests: MockRecordedRequest[] = [];
  let sequence = 0;

  async function chat(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown> | undefined): Promise<void> {
    if (!body) return apiError(res, 400, 'Request body must be JSON.', 'invalid_request_error');
    if (state.rejectUnknownModels && !state.models.includes(String(body.model))) {
      return apiError(res, 404, `model '${String(body.model)}' not found`, 'not_found_error');
    }
    if (state.hangNext > 0) {
      state.hangNext--;
      return; // never answer; close() destroys the socket
    }
    await wait(state.latencyMs);
    if (state.rateLimitNext > 0) {
      state.rateLimitNext--;
      return apiError(
        res,
        429,
        'Rate limit reached. Please try again later.',
        'rate_limit_error',
        state.retryAfter === null ? {} : { 'Retry-After': state.retryAfter },
      );
    }
    if (state.serverErrorNext > 0) {
      state.serverErrorNext--;
      return apiError(res, 500, 'The server had an error while processing your request.', 'server_error');
    }
    if (state.htmlNext > 0) {
      state.htmlNext--;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Please sign in</h1></body></html>');
      return;
    }
    if (state.emptyNext > 0) {
      state.emptyNext--;
      res.writeHead(200);
      res.end();
      return;
    }
    if (state.malformedJsonNext > 0) {
      state.malformedJsonNext--;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        '{"id": "chatcmpl-mock-cut", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\\"title',
      );
      return;
    }
    if (state.emptyChoicesNext > 0) {
      state.emptyChoicesNext--;
      return sendJson(res, 200, {
        id: 'chatcmpl-mock-empty',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: String(body.model ?? ''),
        choices: [],
      });
    }
    if (state.errorObjectNext > 0) {
      state.errorObjectNext--;
      return sendJson(res, 200, { error: { message: 'The upstream model is overloaded.', type: 'server_error', code: null, param: null } });
    }
    if (state.mislabelledNext > 0) {
      state.mislabelledNext--;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('upstream connect error or disconnect/reset before headers. reset reason: connection termination');
      return;
    }
    if (state.rejectResponseFormat && body.response_format !== undefined) {
      return apiError(res, 400, "Unrecognized request argument supplied: 'response_format'", 'invalid_request_error');
    }
    const chatReq = toChatRequest(body);
    let content = state.responder(chatReq);
    let finishReason = 'stop';
    if (state.malformedNext > 0) {
      state.malformedNext--;
      content = 'I am sorry, but I cannot produce that in the requested format right now.';
    } else if (state.truncateNext > 0) {
      state.truncateNext--;
      content = content.slice(0, Math.floor(content.length * 0.6));
      finishReason = 'length';
    }
    if (chatReq.maxTokens !== undefined && !state.ignoreMaxTokens && countWords(content) > chatReq.maxTokens) {
      content = (content.match(/\S+\s*/g) ?? []).slice(0, chatReq.maxTokens).join('').trimEnd();
      finishReason = 'length';
    }
    const promptTokens = chatReq.messages.reduce((n, m) => n + countWords(m.content), 0);
    const usage = { prompt_tokens: promptTokens, completion_tokens: countWords(content), total_tokens: promptTokens + countWords(content) };
    const id = `chatcmpl-mock-${++sequence}`;
    const created = 1_700_000_000 + sequence;
    const model = chatReq.model || (state.models[0] ?? 'mock-model');

    if (!chatReq.stream) {
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason, logprobs: null }],
        ...(state.omitUsage ? {} : { usage }),
      });
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    const send = (chunk: unknown): boolean => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    const frame = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    send(frame({ role: 'assistant', content: '' }, null));
    const drop = state.dropStreamNext > 0;
    if (drop) state.dropStreamNext--;
    const badFrame = state.badFrameNext > 0;
    if (badFrame) state.badFrameNext--;
    const errorFrame = !badFrame && state.errorFrameNext > 0;
    if (errorFrame) state.errorFrameNext--;
    let sent = 0;
    for (const piece of chunksOf(content)) {
      await wait(state.chunkDelayMs);
      if (res.destroyed) return;
      if (drop && sent === 2) {
        res.destroy(); // the connection breaks mid-answer
        return;
      }
      if ((badFrame || errorFrame) && sent === 2) {
        res.end(
          badFrame
            ? 'data: {"id": "x", "choices": [{"delta": {"content": "oops\n\n'
            : `data: ${JSON.stringify({ error: { message: 'The model crashed while generating.', type: 'server_error' } })}\n\n`,
        );
        return;
      }
      send(frame({ content: piece }, null));
      sent++;
    }
    send(frame({}, finishReason));
    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    if (includeUsage && !state.omitUsage) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    res.end('data: [DONE]\n\n');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/^\/v1(?=\/)/, '');
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    requests.push({ method: req.method ?? '', path: req.url ?? '/', headers: { ...req.headers }, body });
    cors(req, res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      res.end();
      return;
    }
    if (state.apiKey !== null) {
      const given = /^Bearer\s+(.*)$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
      // Echoes the wrong key like some real servers do, so clients' redaction gets tested.
      if (given !== state.apiKey) return apiError(res, 401, `Incorrect API key provided: ${given || '(none)'}.`, 'invalid_request_error');
    }
    if (req.method === 'GET' && path === '/models') {
      if (!state.modelsRoute) return apiError(res, 404, 'Not found', 'invalid_request_error');
      return sendJson(res, 200, {
        object: 'list',
        data: state.models.map((m) => ({ id: m, object: 'model', created: 1_700_000_000, owned_by: 'mock' })),
      });
    }
    if (req.method === 'POST' && path === '/chat/completions') return chat(req, res, body);
    return apiError(res, 404, `Unknown route ${req.method} ${req.url}`, 'invalid_request_error');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) apiError(res, 500, `mock failure: ${String(err)}`, 'server_error');
      else res.destroy();
    });
  });
  // Node closes an idle kept-alive connection after 5 s, the client (undici) stops reusing one after
  // 4 s: on a starved event loop the two cross, the client sends on a socket the server is closing
  // and a test sees "Could not reach". The mock keeps idle connections far longer than any client.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setBehaviour(patch) {
      Object.assign(state, patch);
    },
    behaviour: () => ({ ...state }),
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The brief's name: `start()` returns {url, close, setBehaviour, requests}. */
export const start = startMockLlmServer;
