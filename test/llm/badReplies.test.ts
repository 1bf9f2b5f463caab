/**
 * Replies that are not what they seem, through the real client and the mock server's fault
 * switches: a 200 that is a web page or empty, a stream with a malformed or an error frame, an
 * empty answer, a runaway answer. Each is reported as what it is (never "(no answer)" stored, never
 * "the connection broke"), and the ledger does not count it as a successful call.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LlmCall, LlmCallSink, LlmStreamEvent } from '../../src/core/base/ports';
import { LlmClient } from '../../src/llm/LlmClient';
import { MAX_ANSWER_CHARS } from '../../src/core/recall/answer';
import { startMockLlmServer, type MockLlmServer } from './mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';

let mock: MockLlmServer;
let calls: LlmCall[];
let answerText = 'Basil and tomatoes share a bed well because both like sun.';
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => answerText });
});
afterAll(async () => mock.close());
beforeEach(() => {
  calls = [];
});
afterEach(() => {
  mock.setBehaviour({ htmlNext: 0, emptyNext: 0, badFrameNext: 0, errorFrameNext: 0, rateLimitNext: 0, ignoreMaxTokens: false });
  answerText = 'Basil and tomatoes share a bed well because both like sun.';
});

const sink: LlmCallSink = { record: (c) => void calls.push(c) };
const client = () => new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink, maxAttempts: 1, timeoutMs: 5_000 });
const ask = { stage: 'answer', messages: [{ role: 'user' as const, content: 'What grows with basil?' }] };

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('resolved');
}

async function drain(events: AsyncIterable<LlmStreamEvent>): Promise<string> {
  let text = '';
  for await (const e of events) if (e.type === 'delta') text += e.text;
  return text;
}

describe('LlmClient: replies that are not chat completions', () => {
  it('an HTML 200 is LLM_BAD_OUTPUT naming a web page, and an error in the ledger (both modes)', async () => {
    mock.setBehaviour({ htmlNext: 1 });
    const plain = await failure(() => client().complete(ask));
    expect(plain.code).toBe('LLM_BAD_OUTPUT');
    expect(plain.message).toMatch(/a web page \(HTML\).*usually ends in \/v1/);
    mock.setBehaviour({ htmlNext: 1 });
    const streamed = await failure(() => drain(client().stream(ask)));
    expect(streamed.code).toBe('LLM_BAD_OUTPUT');
    expect(streamed.message).toMatch(/a web page \(HTML\)/);
    expect(calls.map((c) => c.outcome)).toEqual(['error', 'error']);
    expect(calls.map((c) => c.error)).toEqual(['LLM_BAD_OUTPUT', 'LLM_BAD_OUTPUT']);
  });

  it('an empty 200 is LLM_BAD_OUTPUT saying the reply was empty', async () => {
    mock.setBehaviour({ emptyNext: 1 });
    const err = await failure(() => client().complete(ask));
    expect(err).toMatchObject({ code: 'LLM_BAD_OUTPUT' });
    expect(err.message).toContain('an empty reply');
    expect(calls[0]).toMatchObject({ outcome: 'error' });
    mock.setBehaviour({ emptyNext: 1 });
    expect((await failure(() => drain(client().stream(ask)))).message).toContain('an empty reply');
  });

  it('a malformed stream frame is reported as malformed, not as a broken connection', async () => {
    mock.setBehaviour({ badFrameNext: 1 });
    const err = await failure(() => drain(client().stream(ask)));
    expect(err.code).toBe('LLM_BAD_OUTPUT');
    expect(err.message).toMatch(/malformed reply/);
    expect(err.message).toMatch(/characters had arrived/);
    expect(err.message).not.toMatch(/connection|CORS/);
  });

  it("an error frame is reported with the server's words", async () => {
    mock.setBehaviour({ errorFrameNext: 1 });
    const err = await failure(() => drain(client().stream(ask)));
    expect(err.code).toBe('LLM_REJECTED');
    expect(err.message).toContain('The model crashed while generating.');
    expect(err.message).not.toMatch(/connection broke/);
  });

  it('no message promises a retry nobody makes or a setting that does not exist', async () => {
    mock.setBehaviour({ rateLimitNext: 1, retryAfter: null });
    const err = await failure(() => client().complete(ask));
    expect(err.code).toBe('LLM_RATE_LIMITED');
    expect(err.message).not.toMatch(/will retry|raise the timeout/i);
  });
});

describe('answers through the engine', () => {
  it('an empty answer is an error, not a stored "(no answer)"; the user turn stays', async () => {
    const { store, engine } = await answeringEngine(mock.url);
    await store.createConversation({ id: 'c', title: 'garden' });
    await engine.conversations.appendTurn({ id: 'u1', conversationId: 'c', role: 'user', content: 'What grows with basil?' });
    answerText = '';
    const err = await failure(() => engine.answers.ask({ conversationId: 'c', userMessageId: 'u1', answerId: 'a1' }, () => undefined));
    expect(err.code).toBe('LLM_BAD_OUTPUT');
    expect(err.message).toContain('empty answer');
    mock.setBehaviour({ htmlNext: 1 });
    answerText = 'fine';
    expect(
      (await failure(() => engine.answers.ask({ conversationId: 'c', userMessageId: 'u1', answerId: 'a2' }, () => undefined))).code,
    ).toBe('LLM_BAD_OUTPUT');
    expect((await store.listMessages('c')).map((m) => m.id)).toEqual(['u1']);
  });

  it('a runaway streamed answer (3 MB) is cut at the limit, stored cut and marked', async () => {
    const { store, engine } = await answeringEngine(mock.url);
    await store.createConversation({ id: 'c', title: 'garden' });
    await engine.conversations.appendTurn({ id: 'u1', conversationId: 'c', role: 'user', content: 'Tell me everything.' });
    answerText = 'Tomatoes need sun and steady water. '.repeat(85_000);
    mock.setBehaviour({ ignoreMaxTokens: true });
    let streamed = 0;
    const result = await engine.answers.ask({ conversationId: 'c', userMessageId: 'u1', answerId: 'a1' }, (e) => {
      if (e.type === 'delta') streamed += e.text.length;
    });
    expect(streamed).toBe(MAX_ANSWER_CHARS);
    const stored = await store.getMessage(result.messageId!);
    expect(stored!.content.length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    expect(stored!.metadata).toMatchObject({ cutOff: 'size' });
  });
});
