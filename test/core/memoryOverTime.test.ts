/**
 * Memory that keeps its promises over time, through the real engine, SQLite and the
 * mock endpoint, with a fake clock and a fake upkeep timer: idle episodes close on the timer and at
 * start, a policy change applies to queued and raw work at once, foresight expires while the app
 * is open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import type { Timer } from '../../src/core/base/jobs';
import { LlmClient } from '../../src/llm/LlmClient';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { immediateTimer, topicProvider } from '../support/topicEmbedder';
import { createEngine } from '../../src/host/createEngine';
import type { PolicyName } from '../../src/core/episodes/consolidationPolicy';

const H = 3_600_000;
let n = 0;
const nextId = () => `m${++n}`;
const T0 = Date.UTC(2026, 2, 10, 9);
const provider = topicProvider(['dog', 'flight', 'rent']);

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

/** A timer the test fires by hand: `fire()` runs what is due, as the platform timer would later. */
function fakeTimer() {
  const pending = new Set<() => void>();
  const timer: Timer = (fn) => {
    pending.add(fn);
    return { cancel: () => pending.delete(fn) };
  };
  return {
    timer,
    fire: () => {
      const due = [...pending];
      pending.clear();
      for (const fn of due) fn();
    },
    size: () => pending.size,
  };
}

async function setup(options: { policy?: PolicyName; endpoint?: boolean; zone?: string; store?: SqliteMemoryStore; at?: number } = {}) {
  const store = options.store ?? (await openNodeStore());
  const clock = {
    t: options.at ?? T0,
    now() {
      return this.t;
    },
  };
  const upkeep = fakeTimer();
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 1 });
  const engine = createEngine(store, {
    only: ['episodes', 'synthesis', 'explorer'],
    embedders: provider,
    llm: options.endpoint === false ? null : llm,
    timer: immediateTimer,
    upkeepTimer: upkeep.timer,
    clock,
    profileDebounceMs: 0,
    platformTimeZone: () => options.zone ?? 'UTC',
  });
  await engine.start();
  if (options.policy) await engine.synthesis.setPolicy(options.policy);
  if (!options.store) await store.createConversation({ id: 'c', title: 't' });
  return { store, engine, clock, upkeep, llm };
}

const cells = (store: SqliteMemoryStore) =>
  store.db.query<{ id: string; status: string; closed_by: string | null; narrative: string | null }>(
    'SELECT id, status, closed_by, narrative FROM memcells ORDER BY start_at',
  );

describe('idle episodes close on their own', () => {
  it('a conversation left alone for a day gets its episode closed and synthesised on the upkeep timer', async () => {
    const { store, engine, clock, upkeep } = await setup({ policy: 'eager' });
    await engine.conversations.appendTurn({
      id: nextId(),
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content: 'I adopted a dog named Biscuit.',
      occurredAt: T0,
    });
    await engine.conversations.appendTurn({
      id: nextId(),
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content: 'The dog is a beagle mix.',
      occurredAt: T0 + 60_000,
    });
    await engine.idle();
    expect(await cells(store)).toMatchObject([{ status: 'raw', closed_by: null }]);
    expect(upkeep.size()).toBe(1); // the next check is scheduled

    clock.t = T0 + 25 * H; // a day later, nothing new in that conversation
    upkeep.fire();
    await engine.idle();
    const [cell] = await cells(store);
    expect(cell).toMatchObject({ status: 'synthesised', closed_by: 'time-gap' });
    expect(cell!.narrative).toBeTruthy();
    expect((await store.db.query('SELECT id FROM memcells WHERE scene_id IS NOT NULL')).length).toBe(1);
    expect((await store.llmCalls.byStage()).memcell?.calls).toBe(1);

    // Idempotent: more checks close nothing again and call nothing again.
    upkeep.fire();
    await engine.idle();
    expect(await cells(store)).toHaveLength(1);
    expect((await store.llmCalls.byStage()).memcell?.calls).toBe(1);
    engine.stop();
  });

  it('closes what an earlier session left open when the engine starts again (through start())', async () => {
    const first = await setup({ policy: 'eager' });
    await first.engine.conversations.appendTurn({
      id: nextId(),
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content: 'My flight to Lisbon is on Friday.',
      occurredAt: T0,
    });
    await first.engine.idle();
    first.engine.stop();
    expect(await cells(first.store)).toMatchObject([{ closed_by: null }]);

    const second = await setup({ store: first.store, at: T0 + 30 * H });
    await second.engine.idle();
    expect(await cells(first.store)).toMatchObject([{ status: 'synthesised', closed_by: 'time-gap' }]);
    second.engine.stop();
  });

  it('a new day in the user time zone closes an episode before the gap does, and UTC would not', async () => {
    // 22:00 in Tokyo is 13:00 UTC; 00:30 in Tokyo (2.5 h later, under the 3 h gap) is a new Tokyo day but the same UTC day.
    const at = Date.UTC(2026, 2, 10, 13);
    for (const [zone, closedBy] of [
      ['Asia/Tokyo', 'day-change'],
      ['UTC', null],
    ] as const) {
      const { store, engine, clock, upkeep } = await setup({ zone, at, endpoint: false });
      await engine.conversations.appendTurn({
        id: nextId(),
        conversationId: 'c',
        role: 'user',
        speaker: 'Ana',
        content: 'Rent is due soon.',
        occurredAt: at,
      });
      await engine.idle();
      clock.t = at + 2.5 * H;
      upkeep.fire();
      await engine.idle();
      expect((await cells(store))[0]!.closed_by).toBe(closedBy);
      engine.stop();
    }
  });

  it('does not close an episode of old turns imported just now (last activity, not the turn dates)', async () => {
    const { store, engine, clock, upkeep } = await setup({ at: Date.UTC(2026, 5, 1, 12), endpoint: false });
    await engine.conversations.appendTurn({
      id: nextId(),
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content: 'My dog chewed a shoe.',
      occurredAt: Date.UTC(2023, 4, 2, 10),
    });
    await engine.idle();
    clock.t += 60_000;
    upkeep.fire();
    await engine.idle();
    expect((await cells(store))[0]!.closed_by).toBeNull();
    engine.stop();
  });
});

describe('an import restarts the upkeep and the time zone', () => {
  it('a file with an open episode and a chosen zone: after the import the zone applies and the episode closes', async () => {
    const source = await setup({ endpoint: false });
    await source.engine.settings.setTimeZone('Asia/Tokyo');
    await source.engine.conversations.appendTurn({
      id: nextId(),
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content: 'Rent is due soon.',
      occurredAt: T0,
    });
    await source.engine.idle();
    const bytes = await source.engine.data.exportDatabase();
    source.engine.stop();

    const target = await setup({ endpoint: false, at: T0 + 30 * H });
    expect((await target.engine.settings.timeZone()).source).toBe('browser');
    await target.engine.data.importDatabase(bytes);
    await target.engine.idle();
    expect(await target.engine.settings.timeZone()).toEqual({ timeZone: 'Asia/Tokyo', source: 'user' });
    expect((await cells(target.store))[0]!.closed_by).toBe('time-gap');
    expect(target.upkeep.size()).toBe(1); // the timer runs again on the new memory
    target.engine.stop();
  });
});

describe('a consolidation policy change applies at once', () => {
  async function threeQueued() {
    const s = await setup({ policy: 'eager', endpoint: false });
    const days = ['I adopted a dog named Biscuit.', 'My flight to Lisbon is on Friday.', 'The rent went up again.'];
    for (const [i, content] of days.entries())
      await s.engine.conversations.appendTurn({
        id: nextId(),
        conversationId: 'c',
        role: 'user',
        speaker: 'Ana',
        content,
        occurredAt: T0 + i * 24 * H,
      });
    await s.engine.idle();
    await s.engine.closeOpenCells();
    await s.engine.idle();
    return s;
  }

  it('off cancels queued synthesis (kept, no call made) and eager revives it', async () => {
    const { store, engine, llm } = await threeQueued();
    expect((await engine.synthesis.status()).jobs.pending).toBe(3);
    await engine.synthesis.setPolicy('off');
    expect((await engine.synthesis.status()).jobs).toMatchObject({ pending: 0, cancelled: 3, failed: 0 });
    expect((await cells(store)).every((c) => c.status === 'raw')).toBe(true);

    engine.setLlm(llm); // an endpoint appears: still nothing may run under `off`
    await engine.idle();
    expect((await store.llmCalls.byStage()).memcell?.calls ?? 0).toBe(0);

    await engine.synthesis.setPolicy('eager');
    await engine.idle();
    expect((await cells(store)).every((c) => c.status === 'synthesised')).toBe(true);
    expect((await store.llmCalls.byStage()).memcell?.calls).toBe(3);
    expect((await engine.synthesis.status()).jobs.cancelled).toBe(0);
    engine.stop();
  });

  it('switching recurrence → eager synthesises the episodes recurrence left raw', async () => {
    const { store, engine } = await setup({ policy: 'recurrence' });
    const days = ['I adopted a dog named Biscuit.', 'My flight to Lisbon is on Friday.'];
    for (const [i, content] of days.entries())
      await engine.conversations.appendTurn({
        id: nextId(),
        conversationId: 'c',
        role: 'user',
        speaker: 'Ana',
        content,
        occurredAt: T0 + i * 24 * H,
      });
    await engine.idle();
    await engine.closeOpenCells();
    await engine.idle();
    expect((await cells(store)).map((c) => c.status)).toEqual(['raw', 'raw']);
    await engine.synthesis.setPolicy('eager');
    await engine.idle();
    expect((await cells(store)).map((c) => c.status)).toEqual(['synthesised', 'synthesised']);
    engine.stop();
  });
});

describe('foresight expires while the app is open', () => {
  it('a past plan turns expired on the upkeep timer, without a restart', async () => {
    const { engine, clock, upkeep } = await setup({ endpoint: false });
    await engine.conversations.appendTurn({
      id: nextId(),
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content: 'My dentist appointment is tomorrow.',
      occurredAt: T0,
    });
    await engine.idle();
    expect(await engine.plans.list()).toMatchObject([{ status: 'active' }]);
    clock.t = T0 + 3 * 24 * H;
    upkeep.fire();
    await engine.idle();
    expect(await engine.plans.list()).toMatchObject([{ status: 'expired' }]);
    engine.stop();
  });
});
