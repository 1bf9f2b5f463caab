/**
 * After open, the first search goes before the reads that grow with the memory: the vector index
 * is not loaded (nor the first embedding pass run) until that search has answered, someone waits
 * for idle(), or the hold's timer fires. The timer here is a manual one, fired only by the test, so
 * nothing depends on how long anything takes.
 */
import { describe, expect, it, vi } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { START_HOLD_MS } from '../../src/core/engine/MemoryEngine';
import type { Timer } from '../../src/core/base/jobs';
import { jsVectorIndex, type VectorIndexFactory } from '../../src/core/capture/vectorIndex';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { topicEmbedder } from '../support/topicEmbedder';

const TOPICS = ['dog', 'flight', 'rent'];
const embedders = { defaultModelId: 'topic', embedder: () => topicEmbedder(TOPICS) };

/** Yesterday's session: two turns stored and embedded. */
async function storedMemory(): Promise<SqliteMemoryStore> {
  const store = await openNodeStore();
  const before = createEngine(store, { only: ['recall'], embedders });
  await before.start();
  await before.conversations.create({ id: 'c', title: 'Pets' });
  await before.conversations.appendTurns([
    { id: 'u1', conversationId: 'c', role: 'user', content: 'My dog Biscuit is a beagle mix.', occurredAt: Date.UTC(2026, 0, 3) },
    { id: 'u2', conversationId: 'c', role: 'user', content: 'The flight to Lisbon leaves at noon.', occurredAt: Date.UTC(2026, 0, 3, 1) },
  ]);
  await before.idle();
  before.stop();
  return store;
}

/** The JS vector index, counting how often an index was built (one build = one load of every vector). */
function countingIndex(): { factory: VectorIndexFactory; builds: () => number } {
  let builds = 0;
  return {
    factory: {
      kind: jsVectorIndex.kind,
      create: (dim, n) => {
        builds++;
        return jsVectorIndex.create(dim, n);
      },
    },
    builds: () => builds,
  };
}

/** A timer the test fires by hand. */
function manualTimer(): { timer: Timer; fire: () => void; delays: number[] } {
  const pending: (() => void)[] = [];
  const delays: number[] = [];
  return {
    timer: (fn, ms) => {
      delays.push(ms);
      pending.push(fn);
      return { cancel: () => pending.splice(pending.indexOf(fn) >>> 0, 1) };
    },
    fire: () => {
      for (const fn of pending.splice(0)) fn();
    },
    delays,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('opening a memory', () => {
  it('answers the first search before loading the vector index, then loads it', async () => {
    const store = await storedMemory();
    const index = countingIndex();
    const clock = manualTimer();
    const engine = createEngine(store, { only: ['recall'], embedders, vectorIndex: index.factory, timer: clock.timer });
    await engine.start();
    await settle();
    expect(index.builds()).toBe(0); // held: nothing read every vector yet
    expect(clock.delays).toContain(START_HOLD_MS);

    const first = await engine.answers.recall('my dog Biscuit');
    expect(first.turns[0]?.message.id).toBe('u1');
    expect(first.turns.flatMap((t) => t.reasons)).not.toContain('vector');

    await engine.idle();
    expect(index.builds()).toBe(1); // released by the search
    const later = await engine.answers.recall('my dog');
    expect(later.turns.find((t) => t.message.id === 'u1')?.reasons).toContain('vector');
    engine.stop();
  });

  it('loads the vector index after the hold times out when no search comes', async () => {
    const store = await storedMemory();
    const index = countingIndex();
    const clock = manualTimer();
    const engine = createEngine(store, { only: ['recall'], embedders, vectorIndex: index.factory, timer: clock.timer });
    await engine.start();
    await settle();
    expect(index.builds()).toBe(0);
    clock.fire();
    for (let i = 0; i < 50 && index.builds() === 0; i++) await settle();
    expect(index.builds()).toBe(1);
    engine.stop();
  });

  it('embeds turns appended while held once the hold ends', async () => {
    const store = await storedMemory();
    const clock = manualTimer();
    const engine = createEngine(store, { only: ['recall'], embedders, timer: clock.timer });
    await engine.start();
    await engine.conversations.appendTurns([
      { id: 'u3', conversationId: 'c', role: 'user', content: 'Rent is due on the first.', occurredAt: Date.UTC(2026, 0, 4) },
    ]);
    await settle();
    expect(await store.countVectors('message', topicEmbedder(TOPICS).id)).toBe(2); // held
    await engine.idle(); // ends the hold
    expect(await store.countVectors('message', topicEmbedder(TOPICS).id)).toBe(3);
    engine.stop();
  });

  it('asks the model worker for the reranker only once the vectors have joined', async () => {
    const store = await storedMemory();
    const clock = manualTimer();
    const activeReranker = vi.fn(async () => null);
    const engine = createEngine(store, { only: ['recall'], embedders: { ...embedders, activeReranker }, timer: clock.timer });
    await engine.start();
    await engine.answers.recall('my dog Biscuit');
    expect(activeReranker).not.toHaveBeenCalled(); // a busy model worker cannot hold up the first result
    await engine.idle();
    await engine.answers.recall('my dog');
    expect(activeReranker).toHaveBeenCalledTimes(1);
    engine.stop();
  });

  /** A started engine whose store counts how often the turn-index queue counted every turn. */
  async function startedWithQueueLooks() {
    const store = await storedMemory();
    const clock = manualTimer();
    const counts = vi.spyOn(store, 'countItems');
    const engine = createEngine(store, { only: ['recall'], embedders, timer: clock.timer });
    await engine.start();
    await settle();
    const looks = () => counts.mock.calls.filter(([kind]) => kind === 'message').length;
    return { engine, clock, looks };
  }

  it('looks at the turn-index queue (counting every turn) only after the first search', async () => {
    const { engine, looks } = await startedWithQueueLooks();
    expect(looks()).toBe(0);
    await engine.answers.recall('my dog Biscuit');
    await engine.idle();
    expect(looks()).toBeGreaterThan(0);
    engine.stop();
  });

  it('looks at the turn-index queue after the hold times out when no search comes', async () => {
    const { engine, clock, looks } = await startedWithQueueLooks();
    expect(looks()).toBe(0);
    clock.fire();
    for (let i = 0; i < 50 && looks() === 0; i++) await settle();
    expect(looks()).toBeGreaterThan(0);
    engine.stop();
  });
});
