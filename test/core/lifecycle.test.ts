import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import type { PolicyName } from '../../src/core/episodes/consolidationPolicy';
import { topicProvider } from '../support/topicEmbedder';
import { createEngine } from '../../src/host/createEngine';

const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 10, 9);

/** Topic embedder: each text maps to the axis of the first topic word it contains. */
const TOPICS = ['dog', 'flight', 'guitar', 'rent'];
const provider = topicProvider(TOPICS);

async function engineWith(policy: PolicyName) {
  const store = await openNodeStore();
  let id = 0;
  const engine = createEngine(store, { only: ['episodes'], embedders: provider, newId: () => `id${++id}` });
  await engine.start();
  await engine.synthesis.setPolicy(policy);
  await store.createConversation({ id: 'c', title: 't' });
  return { store, engine };
}

/** Five sessions: dog (day 1), flight (day 2), dog again (days 3 and 4), a salient rent fact (day 9). */
const SESSIONS: [number, string, string[]][] = [
  [0, 'user', ['I walked the dog this morning.', 'The dog loves the park near our house.']],
  [24, 'user', ['Our flight to Lisbon is delayed again.', 'The flight was supposed to leave at noon.']],
  [48, 'user', ['The dog chewed my shoes today.', 'I need a dog trainer, honestly.']],
  [72, 'user', ['The dog trainer came by.', 'The dog already sits on command.']],
  [200, 'user', ['Actually our rent goes up to 1400 euros from May.', 'The rent increase is a lot.']],
];

async function ingest(engine: MemoryEngine) {
  let n = 0;
  for (const [hours, role, texts] of SESSIONS) {
    for (const [i, content] of texts.entries()) {
      await engine.conversations.appendTurn({
        id: `m${++n}`,
        conversationId: 'c',
        role: role as 'user',
        content,
        occurredAt: T0 + hours * H + i * 60_000,
      });
    }
  }
  await engine.idle();
  await engine.closeOpenCells();
}

describe('episode lifecycle (no LLM)', () => {
  it('segments by day, clusters recurring topics into one scene and scores every turn', async () => {
    const { store, engine } = await engineWith('off');
    await ingest(engine);
    const cells = await store.db.query<{
      id: string;
      first_seq: number;
      last_seq: number;
      closed_by: string;
      scene_id: string;
      status: string;
    }>('SELECT id, first_seq, last_seq, closed_by, scene_id, status FROM memcells ORDER BY first_seq');
    expect(cells.map((c) => [c.first_seq, c.last_seq])).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
      [7, 8],
      [9, 10],
    ]);
    expect(cells.map((c) => c.closed_by)).toEqual(['day-change', 'day-change', 'day-change', 'day-change', 'time-gap']);
    expect(cells[0]!.scene_id).toBe(cells[2]!.scene_id); // dog, three times
    expect(cells[0]!.scene_id).toBe(cells[3]!.scene_id);
    expect(new Set(cells.map((c) => c.scene_id)).size).toBe(3);
    expect(cells.every((c) => c.status === 'raw')).toBe(true); // policy off: nothing queued
    expect(await store.jobs.counts()).toMatchObject({ pending: 0 });
    const enc = await store.db.query<{ encoding: string }>('SELECT encoding FROM messages ORDER BY seq');
    for (const row of enc)
      expect(JSON.parse(row.encoding)).toMatchObject({
        novelty: expect.any(Number),
        salience: expect.any(Number),
        score: expect.any(Number),
      });
    expect(
      (
        await store.getVectors(
          'memcell',
          cells.map((c) => c.id),
          'topic@1',
        )
      ).length,
    ).toBe(5);
  });

  it("derives foresight from future statements: the user's plans and the assistant's own commitments", async () => {
    const { store, engine } = await engineWith('off');
    const now = Date.now();
    await engine.conversations.appendTurn({
      id: 'f1',
      conversationId: 'c',
      role: 'user',
      content: 'My dog has a vet appointment next Friday.',
      occurredAt: now,
    });
    await engine.conversations.appendTurn({
      id: 'f2',
      conversationId: 'c',
      role: 'assistant',
      content: 'I will remind you next Friday.',
      occurredAt: now + 1000,
    });
    // Advice is not a plan, and neither is a question.
    await engine.conversations.appendTurn({
      id: 'f4',
      conversationId: 'c',
      role: 'assistant',
      content: 'You could also book a grooming session next Friday.',
      occurredAt: now + 2000,
    });
    await engine.conversations.appendTurn({
      id: 'f5',
      conversationId: 'c',
      role: 'user',
      content: 'What should I bring to the vet next Friday?',
      occurredAt: now + 3000,
    });
    // A date that has already passed by now is kept, but marked expired.
    await engine.conversations.appendTurn({
      id: 'f3',
      conversationId: 'c',
      role: 'user',
      content: 'The dog show is on Saturday.',
      occurredAt: T0,
    });
    await engine.idle();
    const rows = await store.db.query<{ content: string; source: string; status: string; source_message_id: string }>(
      'SELECT content, source, status, source_message_id FROM foresights ORDER BY source_message_id',
    );
    expect(rows).toEqual([
      { content: 'My dog has a vet appointment next Friday.', source: 'date-parser', status: 'active', source_message_id: 'f1' },
      { content: 'I will remind you next Friday.', source: 'date-parser', status: 'active', source_message_id: 'f2' },
      { content: 'The dog show is on Saturday.', source: 'date-parser', status: 'expired', source_message_id: 'f3' },
    ]);
  });

  it('places every turn exactly once, also across a restart', async () => {
    const { store, engine } = await engineWith('off');
    await engine.conversations.appendTurn({ id: 'a', conversationId: 'c', role: 'user', content: 'dog one', occurredAt: T0 });
    await engine.idle();
    engine.stop();
    const again = createEngine(store, { only: ['episodes'], embedders: provider });
    await again.start();
    await again.conversations.appendTurn({ id: 'b', conversationId: 'c', role: 'user', content: 'dog two', occurredAt: T0 + 1000 });
    await again.idle();
    const cells = await store.db.query<{ first_seq: number; last_seq: number }>('SELECT first_seq, last_seq FROM memcells');
    expect(cells).toEqual([{ first_seq: 1, last_seq: 2 }]); // the resumed open cell grew
  });
});

describe.each(['eager', 'recurrence', 'off'] as const)('consolidation policy %s', (policy) => {
  it('queues synthesis as the policy says, and every turn stays searchable', async () => {
    const { store, engine } = await engineWith(policy);
    await ingest(engine);
    const queued = (
      await store.db.query<{ first_seq: number }>("SELECT first_seq FROM memcells WHERE status = 'queued' ORDER BY first_seq")
    ).map((r) => r.first_seq);
    const jobs = await store.jobs.counts();
    if (policy === 'eager') expect(queued).toEqual([1, 3, 5, 7, 9]);
    // recurrence: the dog scene recurred (three cells); the rent cell holds a salient, novel correction;
    // the flight cell stays raw.
    if (policy === 'recurrence') expect(queued).toEqual([1, 5, 7, 9]);
    if (policy === 'off') expect(queued).toEqual([]);
    expect(jobs.pending).toBe(queued.length);
    // Every turn stays searchable, whatever the policy did with its episode.
    const found = async (q: string) => (await engine.conversations.search(q)).map((h) => h.message.id).sort();
    expect(await found('dog')).toEqual(['m1', 'm2', 'm5', 'm6', 'm7', 'm8']);
    expect(await found('flight')).toEqual(['m3', 'm4']);
    expect(await found('rent')).toEqual(['m10', 'm9']);
  });
});

describe('heat and retrieval', () => {
  it('an answer that uses a raw episode visits it, heats its scene and (recurrence) queues it', async () => {
    const { store, engine } = await engineWith('recurrence');
    await ingest(engine);
    const flight = await store.db.query<{ id: string; status: string; scene_id: string }>(
      'SELECT id, status, scene_id FROM memcells WHERE first_seq = 3',
    );
    expect(flight[0]!.status).toBe('raw');
    const [before] = await store.db.query<{ heat: number }>('SELECT heat FROM memscenes WHERE id = ?', [flight[0]!.scene_id]);
    await engine.noteRetrieved(['m3']);
    const [after] = await store.db.query<{ heat: number }>('SELECT heat FROM memscenes WHERE id = ?', [flight[0]!.scene_id]);
    expect(after!.heat).toBeGreaterThan(before!.heat);
    const [cell] = await store.db.query<{ status: string; visits: number }>('SELECT status, visits FROM memcells WHERE id = ?', [
      flight[0]!.id,
    ]);
    expect(cell).toEqual({ status: 'queued', visits: 1 });
  });

  it('runs the hottest due job first', async () => {
    const store = await openNodeStore();
    await store.jobs.enqueue('x', { n: 'cold' }, { priority: 0.5 });
    await store.jobs.enqueue('x', { n: 'hot' }, { priority: 3 });
    await store.jobs.enqueue('x', { n: 'warm' }, { priority: 1 });
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await store.jobs.claimNext(Date.now()))!.payload.n);
    expect(order).toEqual(['hot', 'warm', 'cold']);
  });
});
