/**
 * What the LLM made of an episode syncs as a derived record keyed by the episode's turns
 * (core/synthesis/derivedEpisode.ts): a second device whose episode holds the same turns writes the
 * first device's title, narrative, facts and plans instead of asking its own model, so it neither
 * pays again nor disagrees. Checked on the requests each device's endpoint received (the mock
 * endpoint answers the synthesis prompts mechanically; nothing here is about answer quality).
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { LlmClient } from '../../src/llm/LlmClient';
import { DurableStreamsRelay } from '../../src/relay/durableStreamsRelay';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { MemorySettingsStore } from '../support/MemorySettingsStore';
import { joinUntil, relayPerTest } from '../support/relayPerTest';
import { synthesisResponder } from '../support/synthesisResponder';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { turnText } from './syncFixtures';
import { topicProvider } from '../support/topicEmbedder';
import { RelayCable } from '../support/relayCable';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 2, 9);

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

const devices: { engine: MemoryEngine; store: SqliteMemoryStore; cable: RelayCable }[] = [];
const relay = relayPerTest('recollect-derived-', devices);

/** A device whose endpoint is the mock under the model name `model` (so its requests can be told apart). */
async function device(model: string) {
  const store = await openNodeStore();
  const cable = new RelayCable();
  const llm = new LlmClient({ baseUrl: mock.url, model }, { sink: store.llmCalls, maxAttempts: 1 });
  const engine = createEngine(store, {
    llm,
    settings: new MemorySettingsStore(),
    relayFor: (url) => cable.wrap(new DurableStreamsRelay(url)),
    embedders: topicProvider(['garden']),
    profileDebounceMs: 0,
  });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  devices.push({ engine, store, cable });
  return { engine, store, cable };
}

/** Requests of one stage a device's endpoint received: episodes list TURNS, themes NEW EPISODES. */
const calls = (model: string, heading: string) =>
  mock.requests.filter(
    (r) => r.body?.model === model && JSON.stringify((r.body as { messages?: unknown } | undefined)?.messages ?? '').includes(heading),
  ).length;
const synthesisCalls = (model: string) => calls(model, 'TURNS:');
const themeCalls = (model: string) => calls(model, 'NEW EPISODES:');

/** Every theme's title and summary, by its episodes' first turns. */
async function themes(store: SqliteMemoryStore) {
  return store.db.query<{ turns: string; title: string; summary: string }>(
    `SELECT (SELECT group_concat(first, ',') FROM (SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = c.conversation_id AND m.seq = c.first_seq) AS first
               FROM memcells c WHERE c.scene_id = s.id AND c.status = 'synthesised' ORDER BY first)) AS turns, s.title, s.summary
       FROM memscenes s WHERE s.summary IS NOT NULL ORDER BY turns`,
  );
}

/** Each synthesised episode by its first turn: title, narrative, facts and plans as stored. */
async function episodes(store: SqliteMemoryStore) {
  const cells = await store.db.query<{ id: string; first: string; title: string; narrative: string }>(
    `SELECT c.id, (SELECT m.id FROM messages m WHERE m.conversation_id = c.conversation_id AND m.seq = c.first_seq) AS first,
            c.title, c.narrative FROM memcells c WHERE c.status = 'synthesised' ORDER BY first`,
  );
  const out = [];
  for (const c of cells) {
    const facts = await store.db.query<{ content: string }>('SELECT content FROM facts WHERE memcell_id = ? ORDER BY content', [c.id]);
    const plans = await store.db.query<{ content: string; evidence: string }>(
      'SELECT content, evidence FROM foresights WHERE memcell_id = ? ORDER BY content',
      [c.id],
    );
    out.push({ first: c.first, title: c.title, narrative: c.narrative, facts: facts.map((f) => f.content), plans });
  }
  return out;
}

it("a device joining a synthesised memory writes the first device's episodes and themes without asking its own model", async () => {
  const a = await device('mock-a');
  await a.engine.conversations.create({ id: 'garden', title: 'Garden' });
  let n = 0;
  const say = (day: number, topic: string) =>
    a.engine.conversations.appendTurns([
      { id: `t${++n}`, conversationId: 'garden', role: 'user', content: turnText(topic), occurredAt: T0 + day * DAY },
      {
        id: `t${++n}`,
        conversationId: 'garden',
        role: 'assistant',
        content: `Noted: ${topic}. I will remind you next week.`,
        occurredAt: T0 + day * DAY + 1_000,
      },
    ]);
  // Three days: the day changes close the first two episodes, which synthesis then writes.
  await say(0, 'I am planning to repot the lemon tree in the garden next week');
  await say(1, 'the tomato seedlings in the garden need a bigger tray');
  await say(2, 'the garden compost bin is full');
  await a.engine.idle();
  const onA = await episodes(a.store);
  expect(onA.length).toBeGreaterThanOrEqual(2);
  expect(onA.every((e) => e.facts.length > 0)).toBe(true);
  expect(synthesisCalls('mock-a')).toBe(onA.length);
  const themesOnA = await themes(a.store);
  expect(themesOnA.length).toBeGreaterThan(0);
  expect(themeCalls('mock-a')).toBeGreaterThan(0);

  const relayUrl = relay.url;
  const { phrase } = await a.engine.sync.enable({ relayUrl });
  await a.engine.sync.syncNow();
  const b = await device('mock-b');
  await joinUntil(b, phrase, relayUrl, async () => {
    expect(await episodes(b.store)).toEqual(onA);
    expect(await themes(b.store)).toEqual(themesOnA);
  });
  // B paid for no episode and no theme: every one came from A's records.
  expect(synthesisCalls('mock-b')).toBe(0);
  expect(themeCalls('mock-b')).toBe(0);
  // And B's facts are searchable like its own.
  const [fact] = onA[0]!.facts;
  expect((await b.engine.memory.listFacts({ limit: 50 })).items.map((f) => f.content)).toContain(fact);

  // The person deletes a fact and a plan on A: they go on B, and a device joining later never gets them.
  const plan = onA.flatMap((e) => e.plans).at(0)?.content;
  expect(plan, 'the mock made a plan to delete').toBeDefined();
  const factId = (await a.engine.memory.listFacts({ limit: 50 })).items.find((f) => f.content === fact)!.id;
  await a.engine.memory.deleteFact(factId);
  const planId = (await a.store.db.query<{ id: string }>('SELECT id FROM foresights WHERE content = ?', [plan!]))[0]!.id;
  await a.engine.memory.forget([{ kind: 'foresight', id: planId }]);
  const holds = async (store: SqliteMemoryStore) => ({
    fact: (await store.db.query('SELECT 1 FROM facts WHERE content = ?', [fact!])).length,
    plan: (await store.db.query('SELECT 1 FROM foresights WHERE content = ?', [plan!])).length,
  });
  await vi.waitFor(
    async () => {
      await a.engine.sync.syncNow();
      await b.engine.sync.syncNow();
      expect(await holds(b.store)).toEqual({ fact: 0, plan: 0 });
    },
    { timeout: 60_000, interval: 500 },
  );
  // B synthesising that episode again (e.g. after a model change) does not write them back.
  const cell = (await b.store.db.query<{ id: string }>("SELECT id FROM memcells WHERE status = 'synthesised' ORDER BY first_seq"))[0]!;
  await b.engine.memory.resynthesiseMemCell(cell.id);
  await b.engine.idle();
  expect(await holds(b.store)).toEqual({ fact: 0, plan: 0 });
  const c = await device('mock-c');
  await joinUntil(c, phrase, relayUrl, async () => {
    expect((await episodes(c.store)).map((e) => e.first)).toEqual(onA.map((e) => e.first));
  });
  expect(await holds(c.store)).toEqual({ fact: 0, plan: 0 });
  expect(await c.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());
}, 120_000);

it('when both devices made a record for the same episode, the earlier one wins on both', async () => {
  const a = await device('mock-a');
  const b = await device('mock-b');
  const relayUrl = relay.url;
  const { phrase } = await a.engine.sync.enable({ relayUrl });
  await a.engine.sync.syncNow();
  await b.engine.sync.join({ phrase, relayUrl });
  await b.engine.sync.syncNow();
  // The same turns reach both devices; then each synthesises on its own before hearing of the other.
  await a.engine.conversations.create({ id: 'trip', title: 'Trip' });
  await a.engine.conversations.appendTurns([
    { id: 'p1', conversationId: 'trip', role: 'user', content: turnText('the train to Porto leaves at nine'), occurredAt: T0 },
    { id: 'p2', conversationId: 'trip', role: 'user', content: turnText('the hotel is near the river'), occurredAt: T0 + 1_000 },
  ]);
  await a.engine.sync.syncNow();
  await vi.waitFor(async () => expect(await b.store.getMessage('p2')).not.toBeNull(), { timeout: 30_000, interval: 200 });
  // Both write the same turns' episode differently: B's mock answers with other words.
  mock.setBehaviour({
    responder: (req) => {
      const reply = synthesisResponder(req);
      return req.model === 'mock-b' ? reply.replaceAll('Porto', 'Oporto') : reply;
    },
  });
  // Cut off from each other (not by timing: a fast round trip would hand one the other's record first).
  a.cable.plugged = b.cable.plugged = false;
  const day = { id: 'p3', conversationId: 'trip', role: 'user' as const, content: turnText('home again'), occurredAt: T0 + DAY };
  await a.engine.conversations.appendTurns([day]);
  await b.engine.conversations.appendTurns([{ ...day }]);
  await a.engine.idle();
  await b.engine.idle();
  expect(synthesisCalls('mock-a')).toBeGreaterThan(0);
  expect(synthesisCalls('mock-b')).toBeGreaterThan(0);
  a.cable.plugged = b.cable.plugged = true;
  await vi.waitFor(
    async () => {
      for (const d of [a, b, a, b]) await d.engine.sync.syncNow();
      await a.engine.idle();
      await b.engine.idle();
      const [onA, onB] = [await episodes(a.store), await episodes(b.store)];
      expect(onA.length).toBeGreaterThan(0);
      expect(onB).toEqual(onA);
    },
    { timeout: 60_000, interval: 500 },
  );
  expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  mock.setBehaviour({ responder: synthesisResponder });
}, 120_000);
