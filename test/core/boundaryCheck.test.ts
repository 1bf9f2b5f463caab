import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { createEngine } from '../../src/host/createEngine';

let mock: MockLlmServer;
let calls = 0;
beforeAll(async () => {
  // The judge says a new topic starts exactly at the message about the piano.
  mock = await startMockLlmServer({
    responder: (req) => {
      const text = req.messages.map((m) => String(m.content)).join('\n');
      if (!text.includes('NEXT MESSAGE')) return '{}';
      calls++;
      const next = text.split('NEXT MESSAGE:')[1] ?? '';
      return JSON.stringify({ newTopic: next.includes('piano') });
    },
  });
});
afterAll(async () => mock.close());

async function cellsWith(check: boolean, llmUp = true) {
  const store = await openNodeStore();
  const llm = new LlmClient({ baseUrl: llmUp ? mock.url : 'http://127.0.0.1:9/v1', model: 'm' }, { maxAttempts: 1, timeoutMs: 2_000 });
  const engine = createEngine(store, { only: ['episodes'], llm });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  await engine.synthesis.setBoundaryCheck(check);
  await store.createConversation({ id: 'c', title: 't' });
  const texts = [
    'We went hiking on Sunday.',
    'The trail was steep.',
    'We saw a deer.',
    'It rained at the top.',
    'I started piano lessons.',
    'My teacher is patient.',
  ];
  for (const [i, content] of texts.entries())
    await engine.conversations.appendTurn({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user',
      content,
      occurredAt: Date.UTC(2026, 0, 5, 10, i),
    });
  await engine.idle();
  return (await store.db.query<{ first_seq: number; last_seq: number }>('SELECT first_seq, last_seq FROM memcells ORDER BY first_seq')).map(
    (r) => [r.first_seq, r.last_seq],
  );
}

describe('optional LLM boundary check', () => {
  it('is off by default: rules alone keep one episode', async () => {
    calls = 0;
    expect(await cellsWith(false)).toEqual([[1, 6]]);
    expect(calls).toBe(0);
  });

  it('splits where the model sees a new topic', async () => {
    calls = 0;
    expect(await cellsWith(true)).toEqual([
      [1, 4],
      [5, 6],
    ]);
    expect(calls).toBe(1);
  });

  it('falls back to the rules when the endpoint is down', async () => {
    expect(await cellsWith(true, false)).toEqual([[1, 6]]);
  });
});
