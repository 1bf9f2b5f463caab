/**
 * Foresight is read in pages that reach the true end (the list used to stop at 5,000 rows): keyset
 * cursors over (its time, id) in time order, beyond the 500 rows one request may return, with the
 * filters the app asks for — dismissed items only when asked, plans still ahead at a time, and
 * plans overlapping a timeline window.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import type { ForesightQuery } from '../../src/core/explorer/explorer';

const DAY = 86_400_000;
const T0 = Date.UTC(2023, 0, 1, 12);
const ITEMS = 5_203;

async function engineWithForesight() {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['explorer'], llm: null });
  await engine.start();
  // Two items a day, some undated (their time is when they were written), every 10th dismissed
  // and every 7th expired.
  await store.db.transaction(async (tx) => {
    for (let i = 0; i < ITEMS; i++) {
      const at = T0 + Math.floor(i / 2) * DAY;
      const status = i % 10 === 3 ? 'dismissed' : i % 7 === 0 ? 'expired' : 'active';
      const dated = i % 5 !== 4;
      await tx.exec(
        'INSERT INTO foresights (id, content, start_at, end_at, status, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [`f${String(i).padStart(5, '0')}`, `Plan ${i}`, dated ? at : null, dated ? at + 3 * DAY : null, status, 'llm', at, at],
      );
    }
  });
  return engine;
}

async function readAll(engine: Awaited<ReturnType<typeof engineWithForesight>>, query: Omit<ForesightQuery, 'cursor'>) {
  const seen: { id: string; startAt: number | null; status: string; endAt: number | null }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let total = -1;
  do {
    const page = await engine.plans.page({ ...query, cursor });
    seen.push(...page.items);
    total = page.total;
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  return { seen, pages, total };
}

describe('foresight pages', () => {
  it('page by cursor to the true end past the old 5,000 cap, in time order, dismissed only when asked', async () => {
    const engine = await engineWithForesight();
    const first = await engine.plans.page({ limit: 10_000, dismissed: true });
    expect(first.total).toBe(ITEMS);
    expect(first.items).toHaveLength(500); // one request returns at most 500
    const all = await readAll(engine, { limit: 500, dismissed: true });
    expect(all.seen).toHaveLength(ITEMS);
    expect(new Set(all.seen.map((f) => f.id)).size).toBe(ITEMS);
    expect(all.pages).toBe(11);
    const times = all.seen.map((f) => f.startAt ?? f.endAt ?? 0).filter((t) => t > 0);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(await engine.plans.list()).toHaveLength(ITEMS); // the whole list, read page by page

    const shown = await readAll(engine, { limit: 300 });
    const dismissed = all.seen.filter((f) => f.status === 'dismissed').length;
    // Every 10th item (i % 10 === 3) was written dismissed.
    expect(dismissed).toBe(Array.from({ length: ITEMS }, (_, i) => i).filter((i) => i % 10 === 3).length);
    expect(shown.total).toBe(ITEMS - dismissed);
    expect(shown.seen).toHaveLength(ITEMS - dismissed);
    expect(shown.seen.some((f) => f.status === 'dismissed')).toBe(false);
  });

  it('filters plans ahead at a time and plans overlapping a window', async () => {
    const engine = await engineWithForesight();
    const all = (await readAll(engine, { limit: 500, dismissed: true })).seen;
    const at = T0 + 2_000 * DAY;
    const ahead = await readAll(engine, { limit: 250, activeAt: at });
    const expected = all.filter((f) => f.status === 'active' && (f.endAt ?? f.startAt ?? at) >= at);
    expect(ahead.total).toBe(expected.length);
    expect(ahead.seen.map((f) => f.id).sort()).toEqual(expected.map((f) => f.id).sort());

    const from = T0 + 100 * DAY;
    const to = T0 + 130 * DAY;
    const inWindow = await readAll(engine, { limit: 7, activeWithin: { from, to } });
    const want = all.filter((f) => f.status === 'active' && f.startAt !== null && f.endAt! >= from && f.startAt <= to);
    expect(want.length).toBeGreaterThan(7);
    expect(inWindow.seen.map((f) => f.id)).toEqual(want.map((f) => f.id));
  });
});
