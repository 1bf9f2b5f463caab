/**
 * The speaker list is kept in `meta` for the next open, so a cold open's first search does not scan
 * every turn to find the names a question may mention: a new connection (here: the in-memory cache
 * dropped, as after a reload) answers from the kept list while no turn was added, and counts again
 * after a turn is added or deleted. Statements are observed through a recording Sql wrapper.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sql } from '../../src/core/base/sql';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { forgetSpeakers, speakers } from '../../src/storage/messageRepo';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';

let store: SqliteMemoryStore;

/** The store's connection, recording every statement; a fresh wrapper is a fresh cache key. */
function recording(sql: Sql): { sql: Sql; scans: () => number } {
  const seen: string[] = [];
  const wrapped: Sql = {
    exec: (s, p) => { seen.push(s); return sql.exec(s, p); },
    query: (s, p) => { seen.push(s); return sql.query(s, p); },
    transaction: (fn) => sql.transaction(fn),
    changes: () => sql.changes(),
  };
  return { sql: wrapped, scans: () => seen.filter((s) => s.includes('GROUP BY speaker')).length };
}

beforeEach(async () => {
  store = await openNodeStore();
  await store.createConversation({ id: 'c', title: 'c' });
  await store.appendTurns(['Ann', 'Bob', 'Ann'].map((speaker, i) => ({ id: `t${i}`, conversationId: 'c', role: 'user', speaker, content: `turn ${i}`, occurredAt: 1_700_000_000_000 + i })));
});

describe('the kept speaker list', () => {
  it('answers the next open without counting again while no turn was added', async () => {
    const first = recording(store.db);
    expect(await speakers(first.sql)).toEqual(['Ann', 'Bob']);
    expect(first.scans()).toBe(1);

    const reopened = recording(store.db); // as after a reload: no cache in memory
    expect(await speakers(reopened.sql)).toEqual(['Ann', 'Bob']);
    expect(reopened.scans()).toBe(0);
  });

  it('counts again after a turn was added', async () => {
    await speakers(store.db);
    await store.appendTurns([{ id: 't9', conversationId: 'c', role: 'user', speaker: 'Cleo', content: 'hello', occurredAt: 1_700_000_100_000 }]);
    forgetSpeakers(store.db);
    const after = recording(store.db);
    expect(await speakers(after.sql)).toContain('Cleo');
    expect(after.scans()).toBe(1);
  });

  it('counts again after a turn was deleted (the kept list may name someone who is gone)', async () => {
    await speakers(store.db);
    await store.deleteMessage('t1'); // Bob's only turn
    const after = recording(store.db);
    expect(await speakers(after.sql)).toEqual(['Ann']);
    expect(after.scans()).toBe(1);
  });
});
