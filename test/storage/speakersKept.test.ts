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
import { SPEAKERS_META_KEY } from '../../src/storage/deletedTurns';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';

let store: SqliteMemoryStore;

/** The store's connection, recording every statement; a fresh wrapper is a fresh cache key. */
function recording(sql: Sql): { sql: Sql; scans: () => number; deltas: () => number } {
  const seen: string[] = [];
  const wrap = (inner: Sql): Sql => ({
    exec: (s, p) => {
      seen.push(s);
      return inner.exec(s, p);
    },
    query: (s, p) => {
      seen.push(s);
      return inner.query(s, p);
    },
    transaction: (fn) => inner.transaction((tx) => fn(wrap(tx))),
    changes: () => inner.changes(),
  });
  // A full count groups every turn; counting from the kept counts reads only turns past a key.
  const counts = () => seen.filter((s) => s.includes('GROUP BY speaker'));
  return {
    sql: wrap(sql),
    scans: () => counts().filter((s) => !s.includes('pk >')).length,
    deltas: () => counts().filter((s) => s.includes('pk >')).length,
  };
}

const turn = (id: string, speaker: string, i: number) => ({
  id,
  conversationId: 'c',
  role: 'user' as const,
  speaker,
  content: `turn ${id}`,
  occurredAt: 1_700_000_200_000 + i,
});

beforeEach(async () => {
  store = await openNodeStore();
  await store.createConversation({ id: 'c', title: 'c' });
  await store.appendTurns(
    ['Ann', 'Bob', 'Ann'].map((speaker, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user',
      speaker,
      content: `turn ${i}`,
      occurredAt: 1_700_000_000_000 + i,
    })),
  );
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

  it('after turns were added, the next open counts only those turns on top of the kept counts', async () => {
    await speakers(store.db);
    await store.appendTurns([turn('t8', 'Cleo', 8), turn('t9', 'Cleo', 9), turn('t10', 'Cleo', 10)]);
    forgetSpeakers(store.db);
    const after = recording(store.db); // as after a reload
    expect(await speakers(after.sql)).toEqual(['Cleo', 'Ann', 'Bob']);
    expect([after.scans(), after.deltas()]).toEqual([0, 1]);
    // and what it keeps then is exact for the open after that
    await store.appendTurns([turn('t11', 'Bob', 11), turn('t12', 'Bob', 12), turn('t13', 'Bob', 13)]);
    const later = recording(store.db);
    expect(await speakers(later.sql)).toEqual(['Bob', 'Cleo', 'Ann']);
    expect([later.scans(), later.deltas()]).toEqual([0, 1]);
  });

  it('a list kept by an older version (names only) is counted again in full once turns were added', async () => {
    await store.db.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [
      SPEAKERS_META_KEY,
      JSON.stringify({ newest: 1, names: ['Ann'] }),
    ]);
    const after = recording(store.db);
    expect(await speakers(after.sql)).toEqual(['Ann', 'Bob']);
    expect([after.scans(), after.deltas()]).toEqual([1, 0]);
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
    await expect(
      store.db.transaction(async (tx) => {
        await tx.exec(
          "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('r', 'c', 99, 'user', 'Dora', 'x', 1, 1, 1)",
        );
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    expect(await speakers(counted.sql)).toEqual(['Ann', 'Bob']);
    expect(counted.scans()).toBe(1);
  });

  it('a restored memory file is counted again', async () => {
    const other = await openNodeStore();
    await other.createConversation({ id: 'o', title: 'o' });
    await other.appendTurns([
      { id: 'o1', conversationId: 'o', role: 'user', speaker: 'Eve', content: 'from the file', occurredAt: 1_700_000_300_000 },
    ]);
    const file = await other.exportDatabase();
    await other.db.close();
    // The store's own connection, as the app asks it (the backup API writes pages no trigger sees).
    expect(await store.speakers()).toEqual(['Ann', 'Bob']);
    await store.importDatabase(file);
    expect(await store.speakers()).toEqual(['Eve']);
  });
});
