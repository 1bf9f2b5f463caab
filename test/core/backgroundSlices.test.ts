/**
 * Background work hands the engine's thread back between small slices, so a request from the page
 * is answered after at most one slice of it, not after the whole backlog. In the worker a request
 * arrives as a message, a macrotask; here it is posted the same way (setImmediate). SQLite in
 * Node is synchronous like the worker's OPFS VFS, so without the slices every await of the
 * background loop settles as a microtask and the request waits for the loop's end. The waits are
 * counted in slices (turns placed, batches embedded), never in time.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import type { Timer } from '../../src/core/base/jobs';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { topicEmbedder, topicProvider } from '../support/topicEmbedder';

const TOPICS = ['dog', 'flight', 'rent'];
const TURNS = 160;
const T0 = Date.UTC(2026, 0, 3, 9);

/** A timer that never fires: the open's hold ends only through idle() or a search. */
const neverTimer: Timer = () => ({ cancel: () => undefined });

/** A memory of TURNS turns, embedded but not yet placed into episodes (as right after an import's indexing). */
async function unplacedMemory(): Promise<SqliteMemoryStore> {
  const store = await openNodeStore();
  const writer = createEngine(store, { only: ['recall'], embedders: topicProvider(TOPICS), timer: neverTimer });
  await writer.start();
  await writer.conversations.create({ id: 'c', title: 'Imported' });
  await writer.conversations.appendTurns(
    Array.from({ length: TURNS }, (_, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content: `Turn ${i} about the ${TOPICS[i % TOPICS.length]} and the marker zq${i}.`,
      occurredAt: T0 + i * 60_000,
    })),
  );
  await writer.idle();
  writer.stop();
  return store;
}

/** Posts `request` as the next macrotask and records how much work was done when it was answered. */
function requestDuring(done: () => number, request: () => Promise<unknown>): Promise<{ atRequest: number; atAnswer: number }> {
  return new Promise((resolve, reject) => {
    setImmediate(() => {
      const atRequest = done();
      request().then(() => resolve({ atRequest, atAnswer: done() }), reject);
    });
  });
}

describe('background work yields between slices', () => {
  it('a search posted while episodes are built is answered after at most one more placed turn', async () => {
    const store = await unplacedMemory();
    let placed = 0;
    let answered: Promise<{ atRequest: number; atAnswer: number }> | null = null;
    const place = store.episodes.placeTurn.bind(store.episodes);
    store.episodes.placeTurn = async (p, now) => {
      await place(p, now);
      placed++;
      // The first turn is placed: the page asks for a search now.
      if (placed === 1)
        answered = requestDuring(
          () => placed,
          () => engine.conversations.search('zq7'),
        );
    };
    const engine = createEngine(store, { only: ['episodes'], embedders: topicProvider(TOPICS), timer: neverTimer });
    await engine.start();
    await engine.idle(); // ends the hold: the lifecycle places every turn
    expect(placed).toBe(TURNS);
    expect(answered).not.toBeNull();
    const { atRequest, atAnswer } = await answered!;
    expect(atRequest).toBeLessThanOrEqual(2);
    expect(atAnswer - atRequest).toBeLessThanOrEqual(1);
    expect((await engine.conversations.search('zq7')).map((h) => h.message.id)).toEqual(['t7']);
    engine.stop();
  });

  it('a search posted during an embedding pass is answered after at most one more batch', async () => {
    const store = await unplacedMemory();
    // A second model in this thread: its answers settle as microtasks, like the worker's database.
    const base = topicEmbedder(TOPICS, 'other@1');
    let batches = 0;
    let answered: Promise<{ atRequest: number; atAnswer: number }> | null = null;
    const other = {
      id: base.id,
      dim: base.dim,
      embed: async (texts: readonly string[], role: 'query' | 'document') => {
        const vectors = await base.embed(texts, role);
        if (role === 'document') batches++;
        if (batches === 1 && role === 'document' && !answered)
          answered = requestDuring(
            () => batches,
            () => engine.conversations.search('zq7'),
          );
        return vectors;
      },
    };
    const topic = topicEmbedder(TOPICS);
    const embedders = { defaultModelId: 'topic', embedder: (id: string) => (id === 'other' ? other : topic) };
    const engine = createEngine(store, { only: ['recall'], embedders, timer: neverTimer });
    await engine.start();
    await engine.idle();
    await engine.indexing.setEmbedder('other');
    await engine.idle();
    const slices = Math.ceil(TURNS / 32);
    expect(batches).toBeGreaterThanOrEqual(slices);
    expect(answered).not.toBeNull();
    const { atRequest, atAnswer } = await answered!;
    expect(atRequest).toBeLessThanOrEqual(2);
    expect(atAnswer - atRequest).toBeLessThanOrEqual(1);
    engine.stop();
  });
});
