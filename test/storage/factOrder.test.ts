/**
 * Saved memories → Facts lists facts newest first by the date it shows beside each (when it
 * happened), not by when synthesis wrote it: an imported 2023 conversation summarised today must
 * not sit above last week's facts. Pages continue by that order to the end, each fact once.
 */
import { describe, expect, it } from 'vitest';
import { openMemoryDatabase } from '../../src/storage/openNodeDatabase';
import { SqlExplorerStore } from '../../src/storage/explorerRepo';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27);

describe('the facts list', () => {
  it('is ordered by the shown date, newest first, and pages through every fact once', async () => {
    const db = await openMemoryDatabase();
    await db.exec("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c', 'c', 0, 0)");
    await db.exec(
      "INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, created_at, updated_at) VALUES ('m', 'c', 0, 0, 0, 0, 0, 0)",
    );
    // Written in the order 0..24, happened in a shuffled order; 3 have no date (shown by when written).
    for (let i = 0; i < 25; i++) {
      const happened = i % 8 === 7 ? null : NOW - ((i * 7) % 25) * DAY - 400 * DAY * (i % 2);
      await db.exec(
        'INSERT INTO facts (id, memcell_id, speaker, content, occurred_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [`f${i}`, 'm', 'Sam', `fact ${i}`, happened, NOW + i * 1_000, NOW + i * 1_000],
      );
    }
    const store = new SqlExplorerStore(db);
    const seen: { id: string; at: number }[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listFacts({ limit: 4, cursor });
      expect(page.total).toBe(25);
      seen.push(...page.items.map((f) => ({ id: f.id, at: f.occurredAt ?? NOW + Number(f.id.slice(1)) * 1_000 })));
      cursor = page.nextCursor;
    } while (cursor);
    expect(new Set(seen.map((f) => f.id)).size).toBe(25);
    const dates = seen.map((f) => f.at);
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
  });
});
