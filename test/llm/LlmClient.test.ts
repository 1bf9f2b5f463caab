import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LlmCall, LlmCallSink, LlmStreamEvent } from '../../src/core/base/ports';
import { estimateTokens } from '../../src/core/base/tokens';
import { LlmClient, normalizeBaseUrl, parseModelList, type LlmClientOptions } from '../../src/llm/LlmClient';
import { parseRetryAfter, redact } from '../../src/llm/llmErrors';
import { retryDelay } from '../../src/llm/retry';
import { startMockLlmServer, type MockLlmServer } from './mockLlmServer';

const KEY = 'sk-test-SECRET-0123456789abcdef';

class RecordingSink implements LlmCallSink {
  readonly calls: LlmCall[] = [];
  record(call: LlmCall): void {
    this.calls.push(call);
  }
}

let mock: MockLlmServer;
let sink: RecordingSink;

function client(opts: Partial<LlmClientOptions> & { apiKey?: string; model?: string; baseUrl?: string } = {}): LlmClient {
  const { apiKey, model, baseUrl, ...rest } = opts;
  return new LlmClient(
    { baseUrl: baseUrl ?? mock.url, model: model ?? 'mock-model', ...(apiKey !== undefined ? { apiKey } : {}) },
    { sink, timeoutMs: 2_000, maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 20, ...rest },
  );
}

const ask = (content: string) => ({ stage: 'answer', messages: [{ role: 'user' as const, content }] });

async function collect(events: AsyncIterable<LlmStreamEvent>): Promise<LlmStreamEvent[]> {
  const out: LlmStreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

async function closedPortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { code: string }).code;
  }
  return 'resolved';
}

beforeAll(async () => {
  mock = await startMockLlmServer();
});
afterAll(async () => {
  await mock.close();
});
afterEach(() => {
  mock.setBehaviour({
    latencyMs: 0,
    chunkDelayMs: 0,
    rateLimitNext: 0,
    retryAfter: '0',
    serverErrorNext: 0,
    hangNext: 0,
    malformedNext: 0,
    truncateNext: 0,
    omitUsage: false,
    apiKey: null,
    modelsRoute: true,
    models: ['mock-model'],
    rejectUnknownModels: false,
    rejectResponseFormat: false,
  });
  mock.requests.length = 0;
});
beforeEach(() => {
  sink = new RecordingSink();
});

describe('LlmClient against the mock server', () => {
  it('completes non-streaming and records server usage', async () => {
    const res = await client().complete(ask('hello there friend'));
    expect(res.text).toMatch(/^Mock answer [0-9a-f]{8}: hello there friend$/);
    expect(res.finishReason).toBe('stop');
    expect(res.usage).toEqual({ promptTokens: 3, completionTokens: 6, estimated: false });
    expect(sink.calls).toHaveLength(1);
    expect(sink.calls[0]).toMatchObject({
      stage: 'answer',
      model: 'mock-model',
      promptTokens: 3,
      completionTokens: 6,
      tokensEstimated: false,
      outcome: 'ok',
      error: null,
      attempt: 1,
      jobId: null,
    });
  });

  it('is deterministic for the same prompt', async () => {
    const a = await client().complete(ask('same prompt'));
    const b = await client().complete(ask('same prompt'));
    expect(a.text).toBe(b.text);
  });

  it('estimates usage when the server reports none', async () => {
    mock.setBehaviour({ omitUsage: true });
    const res = await client().complete({ ...ask('a question with several words in it'), jobId: 7 });
    expect(res.usage.estimated).toBe(true);
    expect(res.usage.promptTokens).toBeGreaterThan(5);
    expect(res.usage.completionTokens).toBeGreaterThan(3);
    expect(sink.calls[0]).toMatchObject({ tokensEstimated: true, outcome: 'ok', jobId: 7 });
  });

  it('streams deltas that join to the full text, with usage from the final chunk', async () => {
    const events = await collect(client().stream(ask('tell me a long story about the sea and the wind')));
    const deltas = events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text);
    const done = events.at(-1);
    expect(deltas.length).toBeGreaterThan(1);
    expect(done?.type).toBe('done');
    if (done?.type !== 'done') throw new Error('no done event');
    expect(deltas.join('')).toBe(done.result.text);
    expect(done.result.usage.estimated).toBe(false);
    expect(done.result.usage.completionTokens).toBe(done.result.text.split(/\s+/).length);
    expect(mock.requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(sink.calls).toEqual([expect.objectContaining({ outcome: 'ok', tokensEstimated: false, attempt: 1 })]);
  });

  it('estimates streaming usage when the server sends no usage chunk', async () => {
    mock.setBehaviour({ omitUsage: true });
    const events = await collect(client().stream(ask('stream without usage')));
    const done = events.at(-1);
    if (done?.type !== 'done') throw new Error('no done event');
    expect(done.result.usage.estimated).toBe(true);
    expect(sink.calls[0]?.tokensEstimated).toBe(true);
  });

  it('retries 429 honouring Retry-After, then succeeds', async () => {
    mock.setBehaviour({ rateLimitNext: 2, retryAfter: '0' });
    const res = await client().complete(ask('busy'));
    expect(res.text).toContain('busy');
    expect(sink.calls.map((c) => [c.attempt, c.outcome, c.error])).toEqual([
      [1, 'error', 'LLM_RATE_LIMITED'],
      [2, 'error', 'LLM_RATE_LIMITED'],
      [3, 'ok', null],
    ]);
    expect(sink.calls[0]).toMatchObject({ promptTokens: 0, completionTokens: 0 });
  });

  it('gives up after maxAttempts with LLM_RATE_LIMITED carrying retryAfterMs', async () => {
    mock.setBehaviour({ rateLimitNext: 10, retryAfter: '1' });
    const err = await client({ maxAttempts: 2, maxDelayMs: 5 })
      .complete(ask('busy'))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'LLM_RATE_LIMITED', status: 429, retryAfterMs: 1000 });
    expect(sink.calls).toHaveLength(2);
  });

  it('retries 500 and succeeds; gives up with LLM_UNAVAILABLE', async () => {
    mock.setBehaviour({ serverErrorNext: 1 });
    await expect(client().complete(ask('flaky'))).resolves.toMatchObject({ finishReason: 'stop' });
    expect(sink.calls.map((c) => c.outcome)).toEqual(['error', 'ok']);
    mock.setBehaviour({ serverErrorNext: 5 });
    expect(await codeOf(client({ maxAttempts: 2 }).complete(ask('down')))).toBe('LLM_UNAVAILABLE');
  });

  it('retries a stream that fails before its first delta', async () => {
    mock.setBehaviour({ serverErrorNext: 1 });
    const events = await collect(client().stream(ask('streamed retry')));
    expect(events.at(-1)?.type).toBe('done');
    expect(sink.calls.map((c) => c.attempt)).toEqual([1, 2]);
  });

  it('times out a hung server with LLM_TIMEOUT (not retried)', async () => {
    mock.setBehaviour({ hangNext: 5 });
    expect(await codeOf(client({ timeoutMs: 150 }).complete(ask('hang')))).toBe('LLM_TIMEOUT');
    expect(sink.calls).toEqual([expect.objectContaining({ outcome: 'error', error: 'LLM_TIMEOUT', attempt: 1, tokensEstimated: true })]);
  });

  it('times out a stream that stalls between chunks', async () => {
    mock.setBehaviour({ chunkDelayMs: 400 });
    expect(await codeOf(collect(client({ timeoutMs: 100 }).stream(ask('slow stream'))))).toBe('LLM_TIMEOUT');
  });

  it('cancels with LLM_CANCELLED when the signal aborts', async () => {
    mock.setBehaviour({ hangNext: 1 });
    const ac = new AbortController();
    const p = client().complete({ ...ask('cancel me'), signal: ac.signal });
    setTimeout(() => ac.abort(), 30);
    expect(await codeOf(p)).toBe('LLM_CANCELLED');
    expect(sink.calls).toEqual([expect.objectContaining({ outcome: 'cancelled', error: 'LLM_CANCELLED' })]);
    const pre = new AbortController();
    pre.abort();
    expect(await codeOf(client().complete({ ...ask('never sent'), signal: pre.signal }))).toBe('LLM_CANCELLED');
  });

  it('cancels a stream mid-way and records the partial output', async () => {
    mock.setBehaviour({ chunkDelayMs: 30 });
    const ac = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const e of client().stream({
        ...ask('one two three four five six seven eight nine ten eleven twelve'),
        signal: ac.signal,
      })) {
        if (e.type === 'delta') {
          seen.push(e.text);
          ac.abort();
        }
      }
    };
    expect(await codeOf(run())).toBe('LLM_CANCELLED');
    expect(seen).toHaveLength(1);
    expect(sink.calls).toEqual([expect.objectContaining({ outcome: 'cancelled', tokensEstimated: true })]);
    // The partial output is what was streamed before the stop, counted by the local estimate.
    expect(sink.calls[0]!.completionTokens).toBe(await estimateTokens(seen.join('')));
  });

  it('records a cancelled call when the consumer stops iterating early', async () => {
    mock.setBehaviour({ chunkDelayMs: 10 });
    for await (const e of client().stream(ask('a b c d e f g h i j k l m n o p'))) {
      if (e.type === 'delta') break;
    }
    expect(sink.calls).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
  });

  it('maps 401 to LLM_UNAUTHORIZED without leaking the key', async () => {
    mock.setBehaviour({ apiKey: 'sk-the-right-one-000000' });
    const err = await client({ apiKey: KEY })
      .complete(ask('hi'))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'LLM_UNAUTHORIZED', status: 401 });
    expect(JSON.stringify({ ...(err as object), message: (err as Error).message })).not.toContain(KEY);
    expect(JSON.stringify({ ...(err as object) })).not.toContain('SECRET');
    expect(mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('sends the key when set, no Authorization header when not, and no X-Stainless headers', async () => {
    mock.setBehaviour({ apiKey: KEY });
    await client({ apiKey: KEY }).complete(ask('with key'));
    mock.setBehaviour({ apiKey: null });
    await client().complete(ask('without key'));
    const [withKey, withoutKey] = mock.requests.slice(-2);
    expect(withKey?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(withoutKey?.headers.authorization).toBeUndefined();
    expect(Object.keys(withoutKey?.headers ?? {}).filter((h) => h.startsWith('x-stainless'))).toEqual([]);
  });

  it('maps connection refused to LLM_UNAVAILABLE after retrying', async () => {
    const err = await client({ baseUrl: await closedPortUrl(), maxAttempts: 2 })
      .complete(ask('anyone?'))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'LLM_UNAVAILABLE' });
    expect((err as Error).message).toMatch(/Could not reach/);
    expect(sink.calls.map((c) => c.error)).toEqual(['LLM_UNAVAILABLE', 'LLM_UNAVAILABLE']);
  });

  it('throws LLM_NOT_CONFIGURED without a model or URL', async () => {
    expect(await codeOf(client({ model: ' ' }).complete(ask('x')))).toBe('LLM_NOT_CONFIGURED');
    expect(sink.calls).toEqual([]);
  });

  it('drops response_format after a server rejects it', async () => {
    mock.setBehaviour({ rejectResponseFormat: true });
    const c = client();
    const res = await c.complete({ ...ask('give json'), json: true });
    expect(res.text).toContain('"answer"');
    await c.complete({ ...ask('again'), json: true });
    const bodies = mock.requests.map((r) => r.body);
    expect(bodies.map((b) => b?.response_format !== undefined)).toEqual([true, false, false]);
    expect(sink.calls.map((c2) => c2.error)).toEqual(['LLM_REJECTED', null, null]);
  });

  it('lists models and tolerates servers without /models', async () => {
    mock.setBehaviour({ models: ['a', 'b'] });
    expect(await client().listModels()).toEqual(['a', 'b']);
    mock.setBehaviour({ modelsRoute: false });
    expect(await client().listModels()).toEqual([]);
  });

  it('lists models with no model name typed yet (that is how one finds it)', async () => {
    mock.setBehaviour({ models: ['a', 'b'] });
    expect(await client({ model: '' }).listModels()).toEqual(['a', 'b']);
    expect(await codeOf(client({ baseUrl: '', model: '' }).listModels())).toBe('LLM_NOT_CONFIGURED');
  });

  it('survives a sink that throws', async () => {
    const bad: LlmCallSink = {
      record: () => {
        throw new Error('disk full');
      },
    };
    const c = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink: bad });
    await expect(c.complete(ask('still works'))).resolves.toMatchObject({ finishReason: 'stop' });
  });
});

describe('testConnection', () => {
  it('ok, with the models listed', async () => {
    const res = await client().testConnection();
    expect(res).toMatchObject({ status: 'ok', models: ['mock-model'] });
    expect(sink.calls).toEqual([expect.objectContaining({ stage: 'connection_test', outcome: 'ok' })]);
  });

  it('unauthorized', async () => {
    mock.setBehaviour({ apiKey: 'sk-other-000000' });
    const res = await client({ apiKey: KEY }).testConnection();
    expect(res).toMatchObject({ status: 'unauthorized', code: 'LLM_UNAUTHORIZED', httpStatus: 401 });
    expect(JSON.stringify(res)).not.toContain(KEY);
  });

  it('not found, naming the models on offer', async () => {
    mock.setBehaviour({ rejectUnknownModels: true, models: ['llama3.2:3b'] });
    const res = await client({ model: 'llama3:70b' }).testConnection();
    expect(res.status).toBe('not_found');
    expect(res.message).toContain('llama3.2:3b');
  });

  it('network', async () => {
    const res = await client({ baseUrl: await closedPortUrl() }).testConnection();
    expect(res).toMatchObject({ status: 'network', code: 'LLM_UNAVAILABLE' });
    expect(res.message).toMatch(/CORS/);
  });

  it('timeout', async () => {
    mock.setBehaviour({ hangNext: 1 });
    expect(await client({ timeoutMs: 150 }).testConnection()).toMatchObject({ status: 'timeout', code: 'LLM_TIMEOUT' });
  });

  it('not configured', async () => {
    expect(await client({ baseUrl: '' }).testConnection()).toMatchObject({ status: 'other', code: 'LLM_NOT_CONFIGURED' });
  });
});

describe('helpers', () => {
  it('parses Retry-After in seconds, HTTP dates and retry-after-ms', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), now)).toBe(10_000);
    expect(parseRetryAfter(h({ 'retry-after': 'Tue, 31 Dec 2024 00:00:10 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(h({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(h({}), now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, capped, and prefers Retry-After up to the cap', () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(1, undefined, opts, () => 0)).toBe(50);
    expect(retryDelay(1, undefined, opts, () => 1)).toBe(100);
    expect(retryDelay(3, undefined, opts, () => 1)).toBe(400);
    expect(retryDelay(10, undefined, opts, () => 1)).toBe(1000);
    expect(retryDelay(1, 300, opts, () => 0.5)).toBe(300);
    expect(retryDelay(1, 60_000, opts, () => 0.5)).toBe(1000);
  });

  it('normalises base URLs', () => {
    expect(normalizeBaseUrl('http://localhost:11434')).toBe('http://localhost:11434/v1');
    expect(normalizeBaseUrl(' http://localhost:1234/v1/ ')).toBe('http://localhost:1234/v1');
    expect(normalizeBaseUrl('https://openrouter.ai/api/v1')).toBe('https://openrouter.ai/api/v1');
  });

  it('parses model lists of several shapes', () => {
    expect(parseModelList({ data: [{ id: 'x' }] })).toEqual(['x']);
    expect(parseModelList({ models: [{ name: 'llama3' }] })).toEqual(['llama3']);
    expect(parseModelList(['a'])).toEqual(['a']);
    expect(parseModelList(null)).toEqual([]);
  });

  it('redacts keys and bearer tokens', () => {
    expect(redact(`Incorrect API key provided: ${KEY}.`, KEY)).not.toContain('SECRET');
    expect(redact('Authorization: Bearer abc.def', undefined)).toBe('Authorization: Bearer [redacted]');
    expect(redact('key sk-proj-abcdefgh1234 leaked', undefined)).toBe('key [redacted] leaked');
  });
});
