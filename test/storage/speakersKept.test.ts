/**
 * The speaker list is kept in `meta` for the next open, so a cold open's first search does not scan
 * every turn to find the names a question may mention: a new connection (here: a fresh Sql wrapper,
 * as after a reload) answers from the kept list while no turn was added, and counts again after a
 * turn is added or deleted. Once counted, the connection's triggers keep the counts: sends,
 * deletions and imports change the list without another scan; a restored memory file is counted
 * again. Statements are observed through a recording Sql wrapper.
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
  const wrap = (inner: Sql): Sql => ({
    exec: (s, p) => { seen.push(s); return inner.exec(s, p); },
    query: (s, p) => { seen.push(s); return inner.query(s, p); },
    transaction: (fn) => inner.transaction((tx) => fn(wrap(tx))),
    changes: () => inner.changes(),
  });
  return { sql: wrap(sql), scans: () => seen.filter((s) => s.includes('GROUP BY speaker')).length };
}

const turn = (id: string, speaker: string, i: number) =>
  ({ id, conversationId: 'c', role: 'user' as const, speaker, content: `turn ${id}`, occurredAt: 1_700_000_200_000 + i });

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

  it('once counted, sends and deletions keep the list exact without counting again', async () => {
    const counted = recording(store.db);
    expect(await speakers(counted.sql)).toEqual(['Ann', 'Bob']);
    await store.appendTurns([turn('c1', 'Cleo', 1), turn('c2', 'Cleo', 2), turn('c3', 'Cleo', 3)]);
    expect(await speakers(counted.sql)).toEqual(['Cleo', 'Ann', 'Bob']);
    await store.deleteMessage('t1'); // Bob's only turn
    await store.deleteMessage('c1');
    await store.deleteMessage('c2');
    expect(await speakers(counted.sql)).toEqual(['Ann', 'Cleo']);
    await store.deleteConversation('c'); // a cascade deletes the rest
    expect(await speakers(counted.sql)).toEqual([]);
    expect(counted.scans()).toBe(1);
  });

  it('a rolled back write leaves the counts as they were', async () => {
    const counted = recording(store.db);
    await speakers(counted.sql);
    await expect(store.db.transaction(async (tx) => {
      await tx.exec("INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('r', 'c', 99, 'user', 'Dora', 'x', 1, 1, 1)");
      throw new Error('abandoned');
    })).rejects.toThrow('abandoned');
    expect(await speakers(counted.sql)).toEqual(['Ann', 'Bob']);
    expect(counted.scans()).toBe(1);
  });

  it('a restored memory file is counted again', async () => {
    const other = await openNodeStore();
    await other.createConversation({ id: 'o', title: 'o' });
    await other.appendTurns([{ id: 'o1', conversationId: 'o', role: 'user', speaker: 'Eve', content: 'from the file', occurredAt: 1_700_000_300_000 }]);
    const file = await other.exportDatabase();
    await other.db.close();
    // The store's own connection, as the app asks it (the backup API writes pages no trigger sees).
    expect(await store.speakers()).toEqual(['Ann', 'Bob']);
    await store.importDatabase(file);
    expect(await store.speakers()).toEqual(['Eve']);
  });
});
