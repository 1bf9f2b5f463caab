import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { LlmClient } from '../../src/llm/LlmClient';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { immediateTimer, topicProvider } from '../support/topicEmbedder';
import { createEngine } from '../../src/host/createEngine';
import type { Timer } from '../../src/core/base/jobs';

const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 10, 9);
const TOPICS = ['dog', 'flight', 'rent'];
const provider = topicProvider(TOPICS);

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

async function setup(withEndpoint: boolean) {
  const store = await openNodeStore();
  const llm = new LlmClient(
    { baseUrl: mock.url, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  );
  const engine = createEngine(store, {
    only: ['episodes', 'synthesis'],
    embedders: provider,
    llm: withEndpoint ? llm : null,
    timer: immediateTimer,
    profileDebounceMs: 0,
  });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  await store.createConversation({ id: 'c', title: 't' });
  return { store, engine, llm };
}

async function ingest(engine: MemoryEngine) {
  const sessions: [number, string[]][] = [
    [0, ['I adopted a dog named Biscuit.', 'The dog is a beagle mix.']],
    [24, ['My flight to Lisbon is on Friday.', 'The flight leaves at noon.']],
    [48, ['The dog learned to sit today.']],
  ];
  let n = 0;
  for (const [h, texts] of sessions) {
    for (const [i, content] of texts.entries())
      await engine.conversations.appendTurn({
        id: `m${++n}`,
        conversationId: 'c',
        role: 'user',
        speaker: 'Ana',
        content,
        occurredAt: T0 + h * H + i * 60_000,
      });
  }
  await engine.idle();
  await engine.closeOpenCells();
  await engine.idle();
}

describe('consolidation through the job queue', () => {
  it('synthesises episodes, facts, scene summaries and the profile, and logs every call', async () => {
    const { store, engine } = await setup(true);
    mock.setBehaviour({ rateLimitNext: 0, malformedNext: 0 });
    await ingest(engine);
    const cells = await store.db.query<{ status: string; narrative: string | null }>('SELECT status, narrative FROM memcells');
    expect(cells).toHaveLength(3);
    expect(cells.every((c) => c.status === 'synthesised' && c.narrative)).toBe(true);
    const facts = await store.db.query<{ id: string }>('SELECT id FROM facts');
    expect(facts).toHaveLength(5); // one per user turn (the mock synthesiser's rule), none twice
    expect(
      (
        await store.getVectors(
          'fact',
          facts.map((f) => f.id),
          'topic@1',
        )
      ).length,
    ).toBe(facts.length);
    const scenes = await store.db.query<{ summary: string | null }>('SELECT summary FROM memscenes WHERE summary IS NOT NULL');
    expect(scenes).toHaveLength(2); // the dog theme and the flight theme
    expect(await store.db.query('SELECT id FROM profile_items')).toHaveLength(2); // one item per theme
    const calls = await store.llmCalls.byStage();
    expect(calls.memcell?.calls).toBe(3);
    // Every summarised theme and every profile item cost at least one logged call.
    expect(calls.scene?.calls).toBeGreaterThanOrEqual(scenes.length);
    expect(calls.profile?.calls).toBeGreaterThanOrEqual(1);
    expect((await engine.synthesis.status()).jobs).toMatchObject({ pending: 0, failed: 0 });
  });

  it('keeps episodes raw and turns searchable with no endpoint, then catches up when one is set', async () => {
    const { store, engine, llm } = await setup(false);
    await ingest(engine);
    const status = await engine.synthesis.status();
    expect(status.endpointConfigured).toBe(false);
    expect(status.jobs.pending).toBe(3);
    expect(status.pausedReason).toContain('No LLM endpoint');
    expect((await store.db.query("SELECT id FROM memcells WHERE status = 'queued'")).length).toBe(3);
    expect((await engine.conversations.search('Biscuit')).length).toBe(1);
    const attempts = await store.db.query<{ attempts: number }>('SELECT attempts FROM jobs');
    expect(attempts.every((a) => a.attempts === 0)).toBe(true);

    engine.setLlm(llm);
    await engine.idle();
    expect((await store.db.query("SELECT id FROM memcells WHERE status = 'synthesised'")).length).toBe(3);
  });

  it('survives 429s and malformed JSON without losing turns or duplicating facts', async () => {
    const { store, engine, llm } = await setup(true);
    mock.setBehaviour({ rateLimitNext: 2, retryAfter: '0', malformedNext: 2 });
    await ingest(engine);
    mock.setBehaviour({ rateLimitNext: 0, malformedNext: 0 });
    engine.setLlm(llm); // a rate limit pauses the queue; re-applying the endpoint resumes it now
    await engine.idle();
    expect((await store.stats()).messageCount).toBe(5);
    const statuses = await store.db.query<{ status: string }>('SELECT status FROM memcells');
    expect(statuses.map((s) => s.status).sort()).toEqual(['synthesised', 'synthesised', 'synthesised']);
    const dupes = await store.db.query('SELECT content, count(*) AS n FROM facts GROUP BY memcell_id, content HAVING n > 1');
    expect(dupes).toEqual([]);
    const errors = await store.db.query<{ outcome: string }>("SELECT outcome FROM llm_calls WHERE outcome = 'error'");
    expect(errors).toHaveLength(2); // the two 429s were recorded in the ledger
  });
});

describe('the debounced profile update', () => {
  it('runs when its debounce is over, without waiting for another episode to close', async () => {
    const store = await openNodeStore();
    const llm = new LlmClient(
      { baseUrl: mock.url, model: 'mock-model' },
      { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
    );
    // Timers held until the test fires them: nothing else may wake the queue.
    const waiting: { fn: () => void; ms: number }[] = [];
    const heldTimer: Timer = (fn, ms) => {
      waiting.push({ fn, ms });
      return { cancel: () => undefined };
    };
    // A clock that stands still until the test moves it: the debounce cannot pass during ingest.
    let now = Date.now();
    const engine = createEngine(store, {
      only: ['episodes', 'synthesis'],
      embedders: provider,
      llm,
      timer: heldTimer,
      clock: { now: () => now },
      profileDebounceMs: 1000,
    });
    await engine.start();
    await engine.synthesis.setPolicy('eager');
    await store.createConversation({ id: 'c', title: 't' });
    mock.setBehaviour({ rateLimitNext: 0, malformedNext: 0 });
    await ingest(engine);
    expect(await store.db.query('SELECT id FROM memscenes WHERE summary IS NOT NULL')).not.toHaveLength(0);
    expect(await store.db.query('SELECT id FROM profile_items')).toHaveLength(0); // debounced
    now += 1100;
    for (const t of waiting.splice(0).filter((t) => t.ms >= 1000)) t.fn();
    await engine.idle();
    expect(await store.db.query('SELECT id FROM profile_items')).not.toHaveLength(0);
    engine.stop();
    await store.db.close();
  });
});
