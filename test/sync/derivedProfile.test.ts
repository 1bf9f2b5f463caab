/**
 * The profile syncs as derived records (core/synthesis/derivedProfile.ts, core/engine/syncProfile.ts):
 * a device joining a memory holds the first device's profile items without asking its own model,
 * follows later updates the same way, ends with the same items as the other device when both
 * updated before hearing of each other, and drops what a deleted turn's episode gave, as the device
 * that deleted it does. Checked on the requests each device's endpoint received (the mock endpoint
 * answers the synthesis prompts mechanically; nothing here is about answer quality).
 */
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { LlmClient } from '../../src/llm/LlmClient';
import { DurableStreamsRelay } from '../../src/relay/durableStreamsRelay';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { MemorySettingsStore } from '../support/MemorySettingsStore';
import { joinUntil, relayPerTest } from '../support/relayPerTest';
import { RelayCable } from '../support/relayCable';
import { synthesisResponder } from '../support/synthesisResponder';
import { startMockLlmServer, type MockChatRequest, type MockLlmServer } from '../llm/mockLlmServer';
import { turnText } from './syncFixtures';
import { topicProvider } from '../support/topicEmbedder';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 2, 9);

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

const devices: { engine: MemoryEngine; store: SqliteMemoryStore; cable: RelayCable }[] = [];
const relay = relayPerTest('recollect-profile-', devices);
beforeEach(() => {
  mock.setBehaviour({ responder: synthesisResponder });
});

type Device = (typeof devices)[number];

/** A device whose endpoint is the mock under the model name `model` (so its requests can be told apart). */
async function device(model: string): Promise<Device> {
  const store = await openNodeStore();
  const cable = new RelayCable();
  const llm = new LlmClient({ baseUrl: mock.url, model }, { sink: store.llmCalls, maxAttempts: 1 });
  const engine = createEngine(store, {
    llm,
    settings: new MemorySettingsStore(),
    relayFor: (url) => cable.wrap(new DurableStreamsRelay(url)),
    embedders: topicProvider(['garden', 'travel']),
    profileDebounceMs: 0,
  });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  const d = { engine, store, cable };
  devices.push(d);
  return d;
}

const prompt = (r: { body?: unknown }) => JSON.stringify((r.body as { messages?: unknown } | undefined)?.messages ?? '');
/** Requests of one stage a device's endpoint received: episodes list TURNS, themes NEW EPISODES, the profile CURRENT PROFILE. */
const calls = (model: string, heading: string) =>
  mock.requests.filter((r) => (r.body as { model?: string } | undefined)?.model === model && prompt(r).includes(heading)).length;
const synthesisCalls = (model: string) => calls(model, 'TURNS:');
const themeCalls = (model: string) => calls(model, 'NEW EPISODES:');
const profileCalls = (model: string) => calls(model, 'CURRENT PROFILE:');

/** Two turns a day in a conversation (created on first use); a later day closes the day before's episode. */
async function say(d: Device, conversationId: string, day: number, topic: string, id: string): Promise<void> {
  if (!(await d.store.getConversation(conversationId))) await d.engine.conversations.create({ id: conversationId, title: conversationId });
  await d.engine.conversations.appendTurns([
    { id: `${id}-u`, conversationId, role: 'user', content: `${topic}. ${turnText(topic)}`, occurredAt: T0 + day * DAY },
    { id: `${id}-a`, conversationId, role: 'assistant', content: `Noted: ${topic}.`, occurredAt: T0 + day * DAY + 1_000 },
  ]);
}

/** The live profile items (kind, key, value, status), each evidence episode named by its turns. */
async function profile(store: SqliteMemoryStore) {
  const items = await store.db.query<{ kind: string; key: string; value: string; status: string; evidence: string }>(
    "SELECT kind, key, value, status, evidence FROM profile_items WHERE status IN ('active', 'conflict') ORDER BY key, value",
  );
  const out = [];
  for (const item of items) {
    const evidence = [];
    for (const cell of JSON.parse(item.evidence) as string[]) {
      const [row] = await store.db.query<{ turns: string | null }>(
        `SELECT (SELECT group_concat(id, ',') FROM (SELECT m.id FROM messages m WHERE m.conversation_id = c.conversation_id
                  AND m.seq BETWEEN c.first_seq AND c.last_seq ORDER BY m.seq)) AS turns FROM memcells c WHERE c.id = ?`,
        [cell],
      );
      evidence.push(row?.turns ?? `missing ${cell}`);
    }
    out.push({ kind: item.kind, key: item.key, value: item.value, status: item.status, evidence: evidence.sort() });
  }
  return out;
}

/** Exchanges until both devices hold the same profile (each device's synthesis settled in between). */
async function converged(a: Device, b: Device) {
  let last: Awaited<ReturnType<typeof profile>> = [];
  await vi.waitFor(
    async () => {
      for (const d of [a, b, a, b]) await d.engine.sync.syncNow();
      await a.engine.idle();
      await b.engine.idle();
      last = await profile(a.store);
      expect(last.length).toBeGreaterThan(0);
      expect(await profile(b.store)).toEqual(last);
    },
    { timeout: 60_000, interval: 500 },
  );
  return last;
}

/** A builds episodes, themes and a profile from a month of garden talk; then B joins. */
async function joined() {
  const a = await device('mock-a');
  await say(a, 'garden', 0, 'I am planning to repot the lemon tree in the garden next week', 'g0');
  await say(a, 'garden', 1, 'the tomato seedlings in the garden need a bigger tray', 'g1');
  await say(a, 'garden', 2, 'the garden compost bin is full', 'g2');
  await a.engine.idle();
  const onA = await profile(a.store);
  expect(onA.length).toBeGreaterThan(0);
  expect(profileCalls('mock-a')).toBeGreaterThan(0);
  const relayUrl = relay.url;
  const { phrase } = await a.engine.sync.enable({ relayUrl });
  await a.engine.sync.syncNow();
  const b = await device('mock-b');
  await joinUntil(b, phrase, relayUrl, async () => expect(await profile(b.store)).toEqual(onA));
  return { a, b, onA };
}

/** The mock's profile answer, plus an update of the item with this key to `value`, resting on every episode shown. */
function updating(model: string, key: string, value: string) {
  return (req: MockChatRequest) => {
    const reply = synthesisResponder(req);
    const text = req.messages.find((m) => m.role === 'user')?.content ?? '';
    if (req.model !== model || !text.includes('CURRENT PROFILE:\n')) return reply;
    const label = text
      .split('\n')
      .find((l) => l.includes(` | ${key} = `))
      ?.split(' | ')[0];
    const episodes = [...new Set(text.match(/\bE\d+\b/g) ?? [])];
    if (!label || !episodes.length) return reply;
    const out = JSON.parse(reply) as { operations: unknown[] };
    out.operations.push({
      op: 'update',
      id: label,
      kind: 'explicit',
      key: null,
      value,
      confidence: 0.9,
      evidence: episodes,
      reason: 'said later',
    });
    return JSON.stringify(out);
  };
}

it("a device joining a memory holds the first device's profile without asking its model", async () => {
  const { b, onA } = await joined();
  expect(profileCalls('mock-b')).toBe(0);
  expect(themeCalls('mock-b')).toBe(0);
  expect(synthesisCalls('mock-b')).toBe(0);
  // Evidence names B's own episodes (profile() reads them in B's store), holding the same turns as A's.
  const onB = await profile(b.store);
  expect(onB).toEqual(onA);
  expect(onB.every((item) => item.evidence.length > 0 && !item.evidence.some((e) => e.startsWith('missing')))).toBe(true);
}, 120_000);

it("the first device's later updates (a new theme, an update of an item) reach the other without a call", async () => {
  const { a, b, onA } = await joined();
  const [garden] = onA;
  mock.setBehaviour({ responder: updating('mock-a', garden!.key, 'repots the lemon tree in spring') });
  const before = profileCalls('mock-a');
  // B hears of it once A is done (while A works, B would race A for the new theme: theme records have no wait).
  b.cable.plugged = false;
  await say(a, 'trip', 3, 'the travel plan for Porto is ready', 't3');
  await say(a, 'trip', 4, 'the travel bags are packed', 't4');
  await a.engine.idle();
  expect(profileCalls('mock-a')).toBeGreaterThan(before);
  const onA2 = await profile(a.store);
  expect(onA2.find((i) => i.key === garden!.key)?.value).toBe('repots the lemon tree in spring');
  expect(onA2.length).toBeGreaterThan(onA.length); // the travel theme's item
  b.cable.plugged = true;
  await vi.waitFor(
    async () => {
      await b.engine.sync.syncNow();
      await b.engine.idle();
      expect(await profile(b.store)).toEqual(onA2);
    },
    { timeout: 60_000, interval: 500 },
  );
  expect(profileCalls('mock-b')).toBe(0);
  expect(themeCalls('mock-b')).toBe(0);
  // The update went through B's own plan: its history holds it as A's does.
  const history = async (d: Device) =>
    d.store.db.query<{ op: string; value: string }>(
      "SELECT h.op, h.value FROM profile_item_history h JOIN profile_items p ON p.id = h.profile_item_id WHERE p.key = ? AND h.op = 'update'",
      [garden!.key],
    );
  expect(await history(b)).toEqual(await history(a));
  expect((await history(b)).length).toBeGreaterThan(0);
}, 120_000);

it('two devices that updated the same item before hearing of each other end with the same items', async () => {
  const { a, b, onA } = await joined();
  const [garden] = onA;
  a.cable.plugged = b.cable.plugged = false;
  // Each device talks about the garden in a chat of its own and its model updates the garden item its own way.
  mock.setBehaviour({
    responder: (req) => updating(req.model, garden!.key, `the garden as ${req.model} heard it`)(req),
  });
  await say(a, 'garden-a', 5, 'the garden hedge needs cutting', 'ga5');
  await say(a, 'garden-a', 6, 'the garden hedge is cut', 'ga6');
  await say(b, 'garden-b', 7, 'the garden pond is green', 'gb7');
  await say(b, 'garden-b', 8, 'the garden pond is clear again', 'gb8');
  await a.engine.idle();
  await b.engine.idle();
  const valueOn = async (d: Device) => (await profile(d.store)).find((i) => i.key === garden!.key)?.value;
  expect(await valueOn(a)).toBe('the garden as mock-a heard it');
  expect(await valueOn(b)).toBe('the garden as mock-b heard it');
  a.cable.plugged = b.cable.plugged = true;
  const end = await converged(a, b);
  expect(end.find((i) => i.key === garden!.key)).toBeDefined();
  expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
}, 120_000);

it('deleting a turn a profile item rests on drops that item on both devices, as a local delete does', async () => {
  const { a, b, onA } = await joined();
  // Synthesis held (the policy syncs): nothing is made again between the deletion and the check.
  await a.engine.synthesis.setPolicy('off');
  await vi.waitFor(
    async () => {
      await a.engine.sync.syncNow();
      await b.engine.sync.syncNow();
      expect(await b.engine.synthesis.policy()).toBe('off');
    },
    { timeout: 30_000, interval: 200 },
  );
  // g1-u is in the second garden episode, which an item rests on.
  const resting = onA.find((i) => i.evidence.some((e) => e.split(',').includes('g1-u')));
  expect(resting).toBeDefined();
  await a.engine.conversations.deleteMessage('g1-u');
  const onA2 = await profile(a.store);
  expect(onA2.find((i) => i.key === resting!.key)).toBeUndefined();
  expect(onA2.length).toBe(onA.length - 1); // the others stay
  await vi.waitFor(
    async () => {
      await a.engine.sync.syncNow();
      await b.engine.sync.syncNow();
      await b.engine.idle();
      expect(await b.store.getMessage('g1-u')).toBeNull();
      expect(await profile(b.store)).toEqual(onA2);
    },
    { timeout: 60_000, interval: 500 },
  );
  // Synthesis on again: the episode and its theme are made again and the profile puts back what they support, alike on both.
  await a.engine.synthesis.setPolicy('eager');
  await converged(a, b);
}, 120_000);
