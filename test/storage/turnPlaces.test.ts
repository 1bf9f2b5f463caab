/**
 * Room made among a conversation's turns for turns another device wrote into the same chat while
 * the two were cut off (storage/turnPlaces.ts): the inserted turns sit where the fold puts them,
 * every later turn and episode moves up with its members unchanged, and sync can read which turn
 * each one follows.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 9);
const text = (n: string) => `${n}: ${'The greenhouse humidity log for the night shift, with the vent positions noted. '.repeat(14)}`;

/** A conversation of `turns` (one every `gapMs`), segmented into closed episodes, synthesis off. */
async function segmented(turns: number, gapMs: number) {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['episodes', 'explorer'], llm: null });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  await engine.conversations.create({ id: 'c', title: 'Notes' });
  await engine.conversations.appendTurns(
    Array.from({ length: turns }, (_, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user' as const,
      content: text(`t${i}`),
      occurredAt: T0 + i * gapMs,
    })),
  );
  await engine.closeOpenCells();
  await engine.idle();
  return store;
}

async function episodeMembers(store: Awaited<ReturnType<typeof openNodeStore>>): Promise<string[][]> {
  const cells = await store.db.query<{ first_seq: number; last_seq: number }>(
    "SELECT first_seq, last_seq FROM memcells WHERE conversation_id = 'c' ORDER BY first_seq",
  );
  const out: string[][] = [];
  for (const c of cells) {
    const rows = await store.db.query<{ id: string }>(
      "SELECT id FROM messages WHERE conversation_id = 'c' AND seq BETWEEN ? AND ? ORDER BY seq",
      [c.first_seq, c.last_seq],
    );
    out.push(rows.map((r) => r.id));
  }
  return out;
}

describe('turn places', () => {
  it('turns placed after a turn, and at the start, move the later turns and episodes up without changing their members', async () => {
    const store = await segmented(5, DAY); // the day change closes each episode: one turn each
    expect(await episodeMembers(store)).toEqual([['t0'], ['t1'], ['t2'], ['t3'], ['t4']]);
    const turn = (id: string, day: number) => ({
      id,
      conversationId: 'c',
      role: 'user' as const,
      content: text(id),
      occurredAt: T0 + day * DAY,
    });
    const placed = await store.appendTurns([turn('x1', 2.2), turn('x2', 2.4)], { after: 't2' });
    expect(placed.map((r) => r.message.seq)).toEqual([4, 5]);
    await store.appendTurns([turn('x0', -1)], { after: '' });
    expect((await store.listMessages('c')).map((m) => m.id)).toEqual(['x0', 't0', 't1', 't2', 'x1', 'x2', 't3', 't4']);
    const seqs = (await store.listMessages('c')).map((m) => m.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await episodeMembers(store)).toEqual([['t0'], ['t1'], ['t2'], ['t3'], ['t4']]);
    // Search still finds a placed turn.
    expect((await store.searchMessages('x1')).map((h) => h.message.id)).toContain('x1');
    expect(await store.turnPlaces!(['x0', 'x1', 't3'])).toEqual(
      new Map([
        ['x0', { after: '', version: false }],
        ['x1', { after: 't2', version: false }],
        ['t3', { after: 'x2', version: false }],
      ]),
    );
  });

  it('a turn placed inside an episode becomes one of its members', async () => {
    const store = await segmented(3, 60_000);
    expect(await episodeMembers(store)).toEqual([['t0', 't1', 't2']]);
    await store.appendTurns([{ id: 'x', conversationId: 'c', role: 'user', content: text('x'), occurredAt: T0 + 30_000 }], { after: 't0' });
    expect(await episodeMembers(store)).toEqual([['t0', 'x', 't1', 't2']]);
  });
});
