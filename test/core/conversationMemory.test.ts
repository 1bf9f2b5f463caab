/**
 * The memory switches of a conversation, end to end through the engine (SQLite store, mock LLM
 * endpoint): what an answer is sent, what becomes episodes, and what happens when "remember" is
 * turned on or off later. The store side of the switches runs on both stores in storeBehaviour.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { openNodeStore } from '../../src/storage/openNodeDatabase';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { InMemoryStore } from '../support/InMemoryStore';
import { MEMORY_OFF_NOTE } from '../../src/core/recall/answer';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'An answer.' });
});
afterAll(async () => mock.close());

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 3);

async function setup() {
  const { store, engine } = await answeringEngine(mock.url);
  await engine.conversations.create({ id: 'pets', title: 'pets' });
  await engine.conversations.appendTurn({
    id: 'p1',
    conversationId: 'pets',
    role: 'user',
    speaker: 'You',
    content: 'My dog Biscuit is a beagle mix.',
    occurredAt: T0,
  });
  await engine.idle();
  return { store, engine };
}

/** Everything the answer of `answerId` sent to the endpoint, as one string. */
async function sent(
  store: Awaited<ReturnType<typeof openNodeStore>>,
  answerId: string,
): Promise<{ text: string; meta: Record<string, unknown> }> {
  const m = await store.getMessage(answerId);
  expect(m).not.toBeNull();
  return { text: JSON.stringify(m!.metadata.requests), meta: m!.metadata as Record<string, unknown> };
}

async function cellsOf(store: Awaited<ReturnType<typeof openNodeStore>>, conversationId: string): Promise<number> {
  const [row] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM memcells WHERE conversation_id = ?', [conversationId]);
  return Number(row?.n ?? 0);
}

async function ask(engine: MemoryEngine, conversationId: string, id: string, question: string): Promise<void> {
  await engine.conversations.appendTurn({ id, conversationId, role: 'user', speaker: 'You', content: question, occurredAt: T0 + 2 * DAY });
  await engine.answers.ask({ conversationId, userMessageId: id, answerId: `${id}-a` }, () => undefined);
}

describe('"Use memory in answers"', () => {
  it("off: the answer gets no memory, only the conversation's own recent turns, and says memory was off", async () => {
    const { store, engine } = await setup();
    await engine.settings.setAnswerSettings({ sufficiencyCheck: true });
    await engine.conversations.create({ id: 'plain', title: 'plain', useMemory: false });
    await engine.conversations.appendTurn({
      id: 'x1',
      conversationId: 'plain',
      role: 'user',
      speaker: 'You',
      content: 'We are planning a garden.',
      occurredAt: T0 + DAY,
    });
    await ask(engine, 'plain', 'x2', 'What breed is my dog Biscuit?');
    const off = await sent(store, 'x2-a');
    expect(off.meta.memoryOff).toBe(true);
    expect(off.text).toContain(MEMORY_OFF_NOTE);
    expect(off.text).toContain('We are planning a garden.'); // its own recent turns
    expect(off.text).not.toContain('beagle mix'); // another conversation's turn
    expect((off.meta.requests as unknown[]).length).toBe(1); // no sufficiency call either

    // Switched on, the same question reaches the other conversation's turn.
    await engine.conversations.setMemory('plain', { useMemory: true });
    await ask(engine, 'plain', 'x3', 'What breed is my dog Biscuit?');
    const on = await sent(store, 'x3-a');
    expect(on.meta.memoryOff).toBeUndefined();
    expect(on.text).toContain('beagle mix');
    expect(on.text).not.toContain(MEMORY_OFF_NOTE);
  });
});

describe('"Remember this conversation"', () => {
  it('off: turns are stored and searchable but not segmented and never retrieved, here or elsewhere', async () => {
    const { store, engine } = await setup();
    await engine.conversations.create({ id: 'secret', title: 'secret', remember: false });
    await engine.conversations.appendTurn({
      id: 's1',
      conversationId: 'secret',
      role: 'user',
      speaker: 'You',
      content: 'My cat is called Zorblax.',
      occurredAt: T0,
    });
    await engine.idle();
    expect(await cellsOf(store, 'secret')).toBe(0);
    expect(await cellsOf(store, 'pets')).toBe(1);
    expect((await engine.conversations.search('Zorblax')).map((h) => h.message.id)).toEqual(['s1']);
    expect((await engine.conversations.messages('secret')).map((m) => m.id)).toEqual(['s1']);

    await ask(engine, 'pets', 'q1', 'What is my cat Zorblax called?');
    expect((await sent(store, 'q1-a')).text).not.toContain('My cat is called Zorblax.');
    // Nor in its own memory block: only as a recent turn of the chat itself.
    await engine.conversations.appendTurns(
      ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'].map((w, i) => ({
        id: `f${i}`,
        conversationId: 'secret',
        role: 'user' as const,
        speaker: 'You',
        content: `Filler ${w}.`,
        occurredAt: T0 + DAY,
      })),
    );
    await ask(engine, 'secret', 's2', 'What is my cat Zorblax called?');
    expect((await sent(store, 's2-a')).text).not.toContain('My cat is called Zorblax.');

    // Turned on later: the whole conversation becomes memory, earlier turns included.
    await engine.conversations.setMemory('secret', { remember: true });
    await engine.idle();
    // Its episodes cover it from the first turn to the last.
    const [span] = await store.db.query<{ lo: number; hi: number }>(
      'SELECT min(first_seq) AS lo, max(last_seq) AS hi FROM memcells WHERE conversation_id = ?',
      ['secret'],
    );
    expect([Number(span!.lo), Number(span!.hi)]).toEqual([1, (await engine.conversations.messages('secret')).length]);
    await ask(engine, 'pets', 'q2', 'What is my cat Zorblax called?');
    expect((await sent(store, 'q2-a')).text).toContain('My cat is called Zorblax.');
  });

  it('turned off after turns were remembered: episodes stay, its turns stop reaching answers, new turns are not segmented', async () => {
    const { store, engine } = await setup();
    expect(await cellsOf(store, 'pets')).toBe(1);
    await engine.conversations.create({ id: 'other', title: 'other' });
    await ask(engine, 'other', 'o1', 'What breed is my dog Biscuit?');
    expect((await sent(store, 'o1-a')).text).toContain('beagle mix');

    await engine.conversations.setMemory('pets', { remember: false });
    await engine.conversations.appendTurn({
      id: 'p2',
      conversationId: 'pets',
      role: 'user',
      speaker: 'You',
      content: 'Biscuit now weighs twelve kilos.',
      occurredAt: T0 + 5 * DAY,
    });
    await engine.idle();
    const [row] = await store.db.query<{ last_seq: number }>(
      "SELECT max(last_seq) AS last_seq FROM memcells WHERE conversation_id = 'pets'",
    );
    expect(Number(row?.last_seq)).toBe(1); // p2 (seq 2) was not placed
    expect(await cellsOf(store, 'pets')).toBe(1); // what was remembered stays
    await ask(engine, 'other', 'o2', 'What breed is my dog Biscuit and what does he weigh?');
    const text = (await sent(store, 'o2-a')).text;
    expect(text).not.toContain('beagle mix');
    expect(text).not.toContain('twelve kilos');
  });
});

describe('defaults for new conversations', () => {
  it('are both on, can be changed, apply to new conversations only, and refuse non-boolean values', async () => {
    const { engine } = await setup();
    expect(await engine.settings.memoryDefaults()).toEqual({ useMemory: true, remember: true });
    expect(await engine.settings.setMemoryDefaults({ remember: false })).toEqual({ useMemory: true, remember: false });
    expect(await engine.conversations.create({ title: 'new' })).toMatchObject({ useMemory: true, remember: false });
    expect(await engine.conversations.create({ title: 'chosen', remember: true })).toMatchObject({ remember: true });
    expect((await engine.conversations.list()).find((c) => c.id === 'pets')).toMatchObject({ remember: true });
    await expect(engine.settings.setMemoryDefaults({ useMemory: 'no' as unknown as boolean })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(engine.conversations.setMemory('missing', { useMemory: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('work the same on an engine over the in-memory store, with conversations-changed events', async () => {
    const store = new InMemoryStore();
    const engine = new MemoryEngine({ store });
    const events: string[] = [];
    engine.on((e) => events.push(e.type));
    await engine.settings.setMemoryDefaults({ useMemory: false });
    const c = await engine.conversations.create({ title: 'x' });
    expect(c).toMatchObject({ useMemory: false, remember: true });
    expect(await engine.conversations.setMemory(c.id, { useMemory: true, remember: false })).toMatchObject({
      useMemory: true,
      remember: false,
    });
    expect(await store.conversationsNotRemembered()).toEqual([c.id]);
    expect(events.filter((e) => e === 'conversations-changed').length).toBe(2);
  });
});
