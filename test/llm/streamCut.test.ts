/**
 * The answer path says what happened: a stream whose connection breaks after
 * the answer began is LLM_STREAM_CUT (not "could not reach … CORS"), with the partial text
 * delivered first; an answer ended by the token limit is stored marked as cut off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmClient } from '../../src/llm/LlmClient';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { startMockLlmServer, type MockLlmServer } from './mockLlmServer';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: () => 'Basil likes sun and regular water, and tomatoes like the same, so plant them together in the bed.',
  });
});
afterAll(async () => mock.close());

const client = () => new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 });

async function engine() {
  const store = await openNodeStore();
  const e = new MemoryEngine({ store, llm: client() });
  await e.start();
  await e.conversations.create({ id: 'c', title: 'Garden' });
  await e.conversations.appendTurn({ id: 'q', conversationId: 'c', role: 'user', content: 'What grows with basil?' });
  return e;
}

describe('a cut answer is reported as cut', () => {
  it('the client reports a broken stream as LLM_STREAM_CUT after the partial text, and does not retry it', async () => {
    mock.setBehaviour({ dropStreamNext: 1, chunkDelayMs: 5 });
    const deltas: string[] = [];
    const before = mock.requests.length;
    const err = await (async () => {
      for await (const e of client().stream({ stage: 'answer', messages: [{ role: 'user', content: 'hi' }] }))
        if (e.type === 'delta') deltas.push(e.text);
    })().then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(deltas.length).toBe(2);
    expect(err?.code).toBe('LLM_STREAM_CUT');
    expect(err?.message).toMatch(/cut off: the connection to .* broke after \d+ characters/);
    expect(err?.message).not.toMatch(/CORS|Could not reach/);
    expect(mock.requests.length - before).toBe(1);
  });

  it('ask rejects with LLM_STREAM_CUT after streaming the partial answer, and stores no answer', async () => {
    const e = await engine();
    mock.setBehaviour({ dropStreamNext: 1, chunkDelayMs: 5 });
    const partial: string[] = [];
    const err = await e.answers
      .ask({ conversationId: 'c', userMessageId: 'q', answerId: 'a1' }, (ev) => {
        if (ev.type === 'delta') partial.push(ev.text);
      })
      .then(
        () => null,
        (x: unknown) => x as { code: string },
      );
    expect(err?.code).toBe('LLM_STREAM_CUT');
    // The mock cuts the connection after its second chunk: both reached the page before the error.
    expect(partial).toHaveLength(2);
    expect(partial.every((piece) => piece.length > 0)).toBe(true);
    expect((await e.conversations.messages('c')).map((m) => m.id)).toEqual(['q']);
  });

  it('an answer ended by the token limit is stored marked as cut off', async () => {
    const e = await engine();
    mock.setBehaviour({ truncateNext: 1, dropStreamNext: 0 });
    const { answer, messageId } = await e.answers.ask({ conversationId: 'c', userMessageId: 'q', answerId: 'a2' }, () => undefined);
    expect(answer.finishReason).toBe('length');
    const stored = (await e.conversations.messages('c')).find((m) => m.id === messageId);
    expect(stored?.metadata).toMatchObject({ cutOff: 'length' });
    // a complete answer carries no such mark
    const full = await e.answers.ask({ conversationId: 'c', userMessageId: 'q', answerId: 'a3' }, () => undefined);
    expect((await e.conversations.messages('c')).find((m) => m.id === full.messageId)?.metadata).not.toHaveProperty('cutOff');
  });
});
