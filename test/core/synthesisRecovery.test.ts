/**
 * Background synthesis recovers from a bad endpoint: a retry back-off survives an engine restart,
 * work that failed while the endpoint hung resumes once a call succeeds again, a server's
 * `Retry-After: 3600` does not stop synthesis for the hour, and a reply cut by the token limit is
 * not accepted as complete. Driven through the mock server's fault switches.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlJobStore } from '../../src/storage/jobRepo';
import { JobRunner } from '../../src/core/base/jobs';
import { RecollectError } from '../../src/core/base/errors';
import { MemorySettingsStore } from '../support/MemorySettingsStore';
import { LlmClient } from '../../src/llm/LlmClient';
import { completeJson } from '../../src/llm/structured';
import { createEngine } from '../../src/host/createEngine';
import { MAX_RATE_LIMIT_PAUSE_MS } from '../../src/core/synthesis/Consolidator';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { topicProvider } from '../support/topicEmbedder';
import { fakeTime as fakeTimeFrom } from '../support/fakeTime';

const T0 = Date.UTC(2026, 2, 10, 9);
const provider = topicProvider(['dog', 'flight']);

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());
afterEach(() => mock.setBehaviour({ hangNext: 0, rateLimitNext: 0, retryAfter: '0', truncateNext: 0 }));

const fakeTime = (start = T0) => fakeTimeFrom(start);

async function twoEpisodes(engine: ReturnType<typeof createEngine>) {
  await engine.conversations.appendTurn({
    id: 'm1',
    conversationId: 'c',
    role: 'user',
    speaker: 'Ana',
    content: 'I adopted a dog named Biscuit.',
    occurredAt: T0,
  });
  await engine.conversations.appendTurn({
    id: 'm2',
    conversationId: 'c',
    role: 'user',
    speaker: 'Ana',
    content: 'My flight to Lisbon is on Friday.',
    occurredAt: T0 + 48 * 3_600_000,
  });
  await engine.idle();
  await engine.closeOpenCells();
  await engine.idle();
}

describe('synthesis recovery', () => {
  it('a retry back-off survives a restart: the new runner wakes when it is due', async () => {
    const db = await openMemoryDatabase();
    const t = fakeTime();
    const store = new SqlJobStore(db, t.clock);
    const first = new JobRunner({
      store,
      clock: t.clock,
      timer: t.timer,
      config: { baseBackoffMs: 10_000 },
      handlers: {
        synth: async () => {
          throw new RecollectError('LLM_TIMEOUT', 'hung');
        },
      },
    });
    await store.enqueue('synth', {});
    await first.start();
    await first.idle();
    first.stop(); // the tab closes during the back-off
    let ran = 0;
    const second = new JobRunner({ store, clock: t.clock, timer: t.timer, handlers: { synth: async () => void ran++ } });
    await second.start();
    await second.idle();
    expect(ran).toBe(0); // not before the back-off
    t.advance(10_000);
    await second.idle();
    expect(ran).toBe(1);
  });

  it('episodes that failed while the endpoint hung are synthesised once a call succeeds again', async () => {
    const t = fakeTime(Date.now());
    const store = await openNodeStore({ clock: t.clock });
    const engine = createEngine(store, {
      only: ['episodes', 'synthesis', 'recall'],
      embedders: provider,
      settings: new MemorySettingsStore(),
      clock: t.clock,
      timer: t.timer,
      profileDebounceMs: 0,
      llmFactory: (s, sink) =>
        new LlmClient({ baseUrl: s.baseUrl, model: s.model }, { ...(sink ? { sink } : {}), timeoutMs: 250, maxAttempts: 1 }),
    });
    await engine.start();
    await engine.settings.saveLlm({ baseUrl: mock.url, model: 'mock-model' });
    await engine.synthesis.setPolicy('eager');
    await store.createConversation({ id: 'c', title: 't' });
    mock.setBehaviour({ hangNext: 1_000 });
    await twoEpisodes(engine);
    for (let i = 0; i < 6; i++) {
      t.advance(16 * 60_000); // past every back-off
      await engine.idle();
    }
    const statuses = async () => (await store.db.query<{ status: string }>('SELECT status FROM memcells ORDER BY id')).map((r) => r.status);
    expect(await statuses()).toEqual(['failed', 'failed']);

    mock.setBehaviour({ hangNext: 0 });
    // Any successful call shows the endpoint is back: here, an answer.
    await engine.answers.ask({ conversationId: 'c', question: 'Where do I fly?', temporary: true, answerId: 'q' }, () => undefined);
    // The revival runs after the ledger records the answer's call: give it a few rounds.
    for (let i = 0; i < 20 && (await statuses()).some((x) => x !== 'synthesised'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      t.advance(60_000);
      await engine.idle();
    }
    expect(await statuses()).toEqual(['synthesised', 'synthesised']);
    engine.stop();
  }, 60_000);

  it('Retry-After: 3600 pauses synthesis for at most a few minutes, not the hour', async () => {
    const t = fakeTime(Date.now());
    const store = await openNodeStore({ clock: t.clock });
    const llm = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink: store.llmCalls, maxAttempts: 1, clock: t.clock });
    const engine = createEngine(store, {
      only: ['episodes', 'synthesis'],
      embedders: provider,
      llm,
      clock: t.clock,
      timer: t.timer,
      profileDebounceMs: 0,
    });
    await engine.start();
    await engine.synthesis.setPolicy('eager');
    await store.createConversation({ id: 'c', title: 't' });
    mock.setBehaviour({ rateLimitNext: 1, retryAfter: '3600' });
    await twoEpisodes(engine);
    expect((await engine.synthesis.status()).pausedReason).toContain('slow down');
    t.advance(MAX_RATE_LIMIT_PAUSE_MS);
    await engine.idle();
    const done = await store.db.query("SELECT id FROM memcells WHERE status = 'synthesised'");
    expect(done.length).toBe(2);
    engine.stop();
    expect(MAX_RATE_LIMIT_PAUSE_MS).toBeLessThanOrEqual(5 * 60_000);
  });

  it('a JSON reply cut by the token limit is asked again, even when what arrived parses', async () => {
    const llm = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { maxAttempts: 1 });
    mock.setBehaviour({
      truncateNext: 1,
      responder: () => JSON.stringify({ facts: ['Ana adopted a dog named Biscuit', 'Ana flies to Lisbon on Friday'] }),
    });
    const result = await completeJson(llm, {
      stage: 'synthesis',
      messages: [{ role: 'user', content: 'Facts as JSON.' }],
      schema: z.object({ facts: z.array(z.string()) }),
    });
    mock.setBehaviour({ responder: synthesisResponder });
    expect(result.attempts).toBe(2);
    expect(result.value.facts).toEqual(['Ana adopted a dog named Biscuit', 'Ana flies to Lisbon on Friday']);
  });
});
