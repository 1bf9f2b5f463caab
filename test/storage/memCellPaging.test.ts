/**
 * The Episodes list and the timeline read episodes in pages that reach the true end: keyset
 * cursors over (start time, id), beyond the 500 rows one request may return, stable when an
 * episode is deleted between pages, and narrowed to a time window.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import type { MemCellQuery } from '../../src/core/explorer/explorer';

const DAY = 86_400_000;
const T0 = Date.UTC(2023, 0, 1, 12);
const CELLS = 1_201;

async function engineWithCells() {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['episodes', 'explorer'], llm: null });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  await engine.conversations.create({ id: 'c', title: 'Daily notes' });
  // One turn a day: the day change closes each episode.
  await engine.conversations.appendTurns(
    Array.from({ length: CELLS }, (_, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user' as const,
      content: `Note of day ${i}.`,
      occurredAt: T0 + i * DAY,
    })),
  );
  await engine.closeOpenCells();
  await engine.idle();
  return engine;
}

async function readAll(
  engine: Awaited<ReturnType<typeof engineWithCells>>,
  query: Omit<MemCellQuery, 'cursor'>,
  between?: () => Promise<void>,
) {
  const seen: { id: string; startAt: number }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await engine.memory.listMemCells({ ...query, cursor });
    seen.push(...page.items);
    cursor = page.nextCursor;
    pages++;
    if (pages === 1) await between?.();
  } while (cursor && pages < 100);
  return { seen, pages };
}

describe('episode pages', () => {
  it('page by cursor to the true end, newest or oldest first, past the 500-row cap', async () => {
    const engine = await engineWithCells();
    const first = await engine.memory.listMemCells({ limit: 10_000 });
    expect(first.total).toBe(CELLS);
    expect(first.items).toHaveLength(500); // one request returns at most 500
    const desc = await readAll(engine, { limit: 500 });
    expect(desc.pages).toBe(3);
    expect(desc.seen).toHaveLength(CELLS);
    expect(new Set(desc.seen.map((c) => c.id)).size).toBe(CELLS);
    expect(desc.seen[0]!.startAt).toBe(T0 + (CELLS - 1) * DAY);
    expect(desc.seen.at(-1)!.startAt).toBe(T0);
    const asc = await readAll(engine, { limit: 200, order: 'asc' });
    expect(asc.seen.map((c) => c.id)).toEqual([...desc.seen].reverse().map((c) => c.id));
  });

  it('does not skip an episode when one before the cursor is deleted, and filters a time window', async () => {
    const engine = await engineWithCells();
    const newest = (await engine.memory.listMemCells({ limit: 1 })).items[0]!;
    const all = await readAll(engine, { limit: 100 }, async () => void (await engine.memory.deleteMemCell(newest.id, { turns: false })));
    expect(all.seen).toHaveLength(CELLS);
    const window = await readAll(engine, { limit: 7, from: T0 + 10 * DAY, to: T0 + 39 * DAY, order: 'asc' });
    expect(window.seen.map((c) => c.startAt)).toEqual(Array.from({ length: 30 }, (_, i) => T0 + (10 + i) * DAY));
  });
});
