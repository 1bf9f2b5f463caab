import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LlmCall, LlmMessage } from '../../src/core/base/ports';
import { LlmClient } from '../../src/llm/LlmClient';
import { completeJson, extractJson, LlmBadOutputError } from '../../src/llm/structured';
import { defaultResponder, startMockLlmServer, type MockLlmServer, type MockResponder } from './mockLlmServer';

const KEY = 'sk-structured-SECRET-9876543210';
const Facts = z.object({ facts: z.array(z.string()).min(1), confidence: z.number().min(0).max(1) });
const GOOD = { facts: ['Alice moved to Lisbon in 2023', 'Alice has a dog named Rex'], confidence: 0.8 };

let mock: MockLlmServer;
let calls: LlmCall[];
let llm: LlmClient;

beforeAll(async () => {
  mock = await startMockLlmServer({ apiKey: KEY });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  calls = [];
  llm = new LlmClient(
    { baseUrl: mock.url, apiKey: KEY, model: 'mock-model' },
    { sink: { record: (c) => void calls.push(c) }, timeoutMs: 2_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 10 },
  );
});
afterEach(() => {
  mock.setBehaviour({ responder: defaultResponder, truncateNext: 0, malformedNext: 0, rateLimitNext: 0 });
  mock.requests.length = 0;
});

const respond = (fn: MockResponder) => mock.setBehaviour({ responder: fn });
const request = (messages: LlmMessage[] = [{ role: 'user', content: 'Extract the facts.' }]) => ({
  stage: 'synthesis',
  messages,
  schema: Facts,
  jobId: 3,
});

describe('completeJson', () => {
  it('accepts clean JSON and asks in JSON mode', async () => {
    respond(() => JSON.stringify(GOOD));
    const res = await llm.completeJson(
      request([
        { role: 'system', content: 'You extract facts.' },
        { role: 'user', content: 'go' },
      ]),
    );
    expect(res).toMatchObject({ value: GOOD, repaired: false, attempts: 1 });
    const body = mock.requests.at(-1)?.body as { response_format?: unknown; messages: LlmMessage[]; temperature?: number };
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.temperature).toBe(0);
    expect(body.messages[0]?.content).toMatch(/^You extract facts\.\n\nReply with one JSON object only/);
    expect(calls).toEqual([expect.objectContaining({ stage: 'synthesis', jobId: 3, outcome: 'ok' })]);
  });

  it('strips code fences', async () => {
    respond(() => '```json\n' + JSON.stringify(GOOD, null, 2) + '\n```');
    expect(await completeJson(llm, request())).toMatchObject({ value: GOOD, repaired: true, attempts: 1 });
  });

  it('ignores prose before and after, and reasoning tags', async () => {
    respond(() => `<think>The user wants {facts}.</think>Sure! Here it is: ${JSON.stringify(GOOD)}\nLet me know if you need more {help}.`);
    expect(await completeJson(llm, request())).toMatchObject({ value: GOOD, attempts: 1 });
  });

  it("takes a small model's object from between chatter, a fence and sloppy JSON on the first attempt", async () => {
    respond(() =>
      [
        'Sure! Here are the facts I found {as requested}:',
        '```json',
        "{'facts': ['Alice moved to Lisbon in 2023', 'Alice has a dog named Rex',], 'confidence': 0.8,}",
        '```',
        'I hope this helps! Let me know if you need anything else.',
      ].join('\n'),
    );
    expect(await completeJson(llm, request())).toMatchObject({ value: GOOD, repaired: true, attempts: 1 });
    expect(mock.requests).toHaveLength(1);
  });

  it('does not take JSON cut by the token limit as complete, even when it can be repaired: it asks again', async () => {
    respond(() => JSON.stringify({ confidence: 0.5, facts: ['first fact here', 'second fact here', 'third fact that is long enough'] }));
    mock.setBehaviour({ truncateNext: 1 });
    const res = await completeJson(llm, request());
    expect(res.attempts).toBe(2);
    expect(res.value.confidence).toBe(0.5);
    expect(res.value.facts).toHaveLength(3);
  });

  it('retries once with the validation error, then succeeds', async () => {
    respond((req) => {
      const retried = req.messages.some((m) => m.role === 'user' && m.content.includes('could not be used'));
      return retried ? JSON.stringify(GOOD) : JSON.stringify({ facts: 'Alice moved', confidence: 3 });
    });
    const res = await completeJson(llm, request());
    expect(res).toMatchObject({ value: GOOD, attempts: 2 });
    const second = (mock.requests.at(-1)?.body as { messages: LlmMessage[] }).messages;
    expect(second.at(-2)?.role).toBe('assistant');
    // zod's prettifyError: the problem, then the path it is at.
    expect(second.at(-1)?.content).toMatch(/✖ .*expected array.*\n\s*→ at facts/i);
    expect(second.at(-1)?.content).toMatch(/\n\s*→ at confidence/);
    expect(res.usage.promptTokens).toBe(calls.reduce((n, c) => n + c.promptTokens, 0));
  });

  it('recovers from a reply with no JSON at all on the retry', async () => {
    respond(() => JSON.stringify(GOOD));
    mock.setBehaviour({ malformedNext: 1 });
    expect(await completeJson(llm, request())).toMatchObject({ value: GOOD, attempts: 2 });
  });

  it('throws LLM_BAD_OUTPUT with the raw reply and issues after two failures', async () => {
    respond(() => '{"facts": [], "confidence": "high"}');
    const err = await completeJson(llm, request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmBadOutputError);
    const bad = err as LlmBadOutputError;
    expect(bad.code).toBe('LLM_BAD_OUTPUT');
    expect(bad.raw).toBe('{"facts": [], "confidence": "high"}');
    expect(bad.issues.some((i) => i.startsWith('✖ ') && i.endsWith('→ at facts'))).toBe(true);
    expect(bad.issues.some((i) => i.startsWith('✖ ') && i.endsWith('→ at confidence'))).toBe(true);
    expect(bad.message).toMatch(/→ at facts/);
    expect(JSON.parse(bad.detail ?? '{}')).toMatchObject({ raw: bad.raw });
    expect(calls).toHaveLength(2);
  });

  it('lets transport errors through unchanged', async () => {
    mock.setBehaviour({ rateLimitNext: 5 });
    await expect(completeJson(llm, request())).rejects.toMatchObject({ code: 'LLM_RATE_LIMITED' });
  });

  it('never puts the API key in a call record or an error', async () => {
    const errors: unknown[] = [];
    respond(() => 'no json here');
    errors.push(await completeJson(llm, request()).catch((e: unknown) => e));
    mock.setBehaviour({ rateLimitNext: 5 });
    errors.push(await llm.complete({ stage: 'answer', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e));
    const wrong = new LlmClient(
      { baseUrl: mock.url, apiKey: `${KEY}-wrong`, model: 'mock-model' },
      { sink: { record: (c) => void calls.push(c) } },
    );
    errors.push(await wrong.complete({ stage: 'answer', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e));
    errors.push(await wrong.testConnection());
    expect(calls.length).toBeGreaterThan(3);
    const dump = JSON.stringify([calls, errors.map((e) => (e instanceof Error ? { ...e, message: e.message, stack: e.stack } : e))]);
    expect(dump).toContain('LLM_UNAUTHORIZED');
    expect(dump).not.toContain('SECRET');
  });
});

describe('extractJson', () => {
  it('handles the usual breakage', () => {
    expect(extractJson(' {"a":1} ')).toEqual({ value: { a: 1 }, repaired: false });
    expect(extractJson('```\n{"a":1}\n```').value).toEqual({ a: 1 });
    expect(extractJson("{'a': 1, 'b': [1, 2,],}").value).toEqual({ a: 1, b: [1, 2] });
    expect(extractJson('Result: {"a": {"b": "x}y"}} trailing } text').value).toEqual({ a: { b: 'x}y' } });
    expect(extractJson('```json\n{"a": [1, 2').value).toEqual({ a: [1, 2] });
    expect(extractJson('<think>hmm {not json}</think>\n[1, 2]').value).toEqual([1, 2]);
    expect(() => extractJson('I cannot help with that.')).toThrow(/no JSON/);
  });

  it('drops prose a model writes after the object, on the same line or on the lines below', () => {
    const facts = JSON.stringify(GOOD);
    expect(extractJson(`${facts}\n\nI hope this helps!`).value).toEqual(GOOD);
    expect(extractJson(`${facts}\nLet me know if you need more {help}.`).value).toEqual(GOOD);
    expect(extractJson(`${facts} -- that is all } for now`).value).toEqual(GOOD);
    expect(
      extractJson(
        `Here you go:\n{"facts": ["Alice moved to Lisbon in 2023", "Alice has a dog named Rex"], "confidence": 0.8}\nNote: 2 facts.\n\nAnything else?`,
      ).value,
    ).toEqual(GOOD);
    expect(extractJson(`\`\`\`json\n${facts}\n\`\`\`\nThat is all.`).value).toEqual(GOOD);
  });
});
