/**
 * WaSqliteDatabase keeps single-statement SQL prepared. These pin the cache's invariants: reuse,
 * no state carried between calls (bindings, errors, open read locks), scripts still run statement
 * by statement, overlapping calls never share a statement, and close() finalizes everything.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import type { WaSqliteDatabase } from '../../src/storage/WaSqliteDatabase';

let db: WaSqliteDatabase;

beforeEach(async () => {
  db = await openMemoryDatabase({ migrateSchema: false });
  await db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
});

afterEach(async () => {
  vi.restoreAllMocks();
  await db.close();
});

describe('prepared-statement cache', () => {
  it('prepares a repeated statement once', async () => {
    const prepare = vi.spyOn(db.sqlite3, 'statements');
    for (let i = 0; i < 20; i++) await db.exec('INSERT INTO t (id, v) VALUES (?, ?)', [i, `v${i}`]);
    for (let i = 0; i < 20; i++) expect(await db.query('SELECT v FROM t WHERE id = ?', [i])).toEqual([{ v: `v${i}` }]);
    expect(prepare).toHaveBeenCalledTimes(2);
    const before = db.cachedStatementCount;
    await db.query('SELECT count(*) AS n FROM t;  ');
    await db.query('SELECT count(*) AS n FROM t');
    expect(db.cachedStatementCount).toBe(before + 1);
  });

  it('never carries parameters over to the next call', async () => {
    const sql = 'SELECT ? AS a, ? AS b';
    expect(await db.query(sql, [1, 'two'])).toEqual([{ a: 1, b: 'two' }]);
    expect(await db.query(sql, [3])).toEqual([{ a: 3, b: null }]);
    expect(await db.query(sql)).toEqual([{ a: null, b: null }]);
  });

  it('keeps working after a statement fails, and leaves no transaction open', async () => {
    const insert = 'INSERT INTO t (id, v) VALUES (?, ?)';
    await db.exec(insert, [1, 'a']);
    await expect(db.exec(insert, [1, 'again'])).rejects.toMatchObject({ code: 'SQL_ERROR', message: expect.stringContaining('UNIQUE') });
    await db.exec(insert, [2, 'b']);
    // A runtime error while stepping a SELECT (not while preparing it).
    const parse = "SELECT json_extract(?, '$.x') AS x";
    await expect(db.query(parse, ['{not json'])).rejects.toMatchObject({ code: 'SQL_ERROR' });
    expect(await db.query(parse, ['{"x": 5}'])).toEqual([{ x: 5 }]);
    expect(db.sqlite3.get_autocommit(db.db)).toBe(1);
    // A failure inside a transaction rolls back; the statements it used stay usable.
    await expect(
      db.transaction(async (tx) => {
        await tx.exec(insert, [3, 'c']);
        await tx.exec(insert, [1, 'dup']);
      }),
    ).rejects.toMatchObject({ code: 'SQL_ERROR' });
    await db.transaction((tx) => tx.exec(insert, [3, 'c']));
    expect(await db.query('SELECT id, v FROM t ORDER BY id')).toEqual([
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
      { id: 3, v: 'c' },
    ]);
  });

  it('does not cache SQL that fails to prepare', async () => {
    await expect(db.query('SELECT nope FROM t')).rejects.toMatchObject({
      code: 'SQL_ERROR',
      message: expect.stringContaining('no such column'),
    });
    const before = db.cachedStatementCount;
    await expect(db.query('SELECT nope FROM t')).rejects.toMatchObject({ code: 'SQL_ERROR' });
    expect(db.cachedStatementCount).toBe(before);
  });

  it('runs multi-statement SQL statement by statement', async () => {
    await db.exec("CREATE TABLE s (x); INSERT INTO s VALUES (1); INSERT INTO s VALUES ('semi;colon');");
    expect(await db.query('SELECT x FROM s ORDER BY rowid; SELECT count(*) AS n FROM s')).toEqual([
      { x: 1 },
      { x: 'semi;colon' },
      { n: 2 },
    ]);
    await expect(db.exec('INSERT INTO s VALUES (?); INSERT INTO s VALUES (?)', [1, 2])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    // A single statement with a `;` inside a literal is fine (it is just not cached).
    expect(await db.query("SELECT 'a;b' AS v")).toEqual([{ v: 'a;b' }]);
    expect(await db.query('  ')).toEqual([]);
  });

  it('gives overlapping calls inside a transaction their own statement', async () => {
    for (let i = 0; i < 50; i++) await db.exec('INSERT INTO t (id, v) VALUES (?, ?)', [i, `v${i}`]);
    const prepare = vi.spyOn(db.sqlite3, 'statements');
    const finalize = vi.spyOn(db.sqlite3, 'finalize');
    const results = await db.transaction((tx) =>
      Promise.all([0, 1, 2, 3].map((k) => tx.query<{ id: number }>('SELECT id FROM t WHERE id % 4 = ? ORDER BY id', [k]))),
    );
    // The calls really overlapped: one cached statement, three one-off ones finalized after use.
    expect(prepare.mock.calls.filter(([, sql]) => sql.startsWith('SELECT id FROM t'))).toHaveLength(4);
    expect(finalize).toHaveBeenCalledTimes(3);
    results.forEach((rows, k) => {
      expect(rows).toHaveLength(k < 2 ? 13 : 12);
      expect(rows.every((r) => r.id % 4 === k)).toBe(true);
    });
    expect(await db.query('SELECT count(*) AS n FROM t WHERE id % 4 = ?', [0])).toEqual([{ n: 13 }]);
  });

  it('evicts the least recently used statements beyond its size', async () => {
    for (let i = 0; i < 300; i++) expect(await db.query(`SELECT ${i} AS n`)).toEqual([{ n: i }]);
    expect(db.cachedStatementCount).toBeLessThanOrEqual(128);
    expect(await db.query('SELECT 0 AS n')).toEqual([{ n: 0 }]);
  });

  it('finalizes every cached statement on close', async () => {
    const other = await openMemoryDatabase({ migrateSchema: false });
    const finalize = vi.spyOn(other.sqlite3, 'finalize');
    await other.query('SELECT 1 AS a');
    await other.query('SELECT 2 AS b');
    const cached = other.cachedStatementCount;
    expect(cached).toBeGreaterThanOrEqual(2);
    await other.close(); // sqlite3_close rejects with SQLITE_BUSY if any statement were left
    expect(finalize).toHaveBeenCalledTimes(cached);
    expect(other.cachedStatementCount).toBe(0);
    await expect(other.query('SELECT 1 AS a')).rejects.toMatchObject({ code: 'SQL_ERROR' });
  });

  it('survives schema changes and whole-database replacement', async () => {
    await db.exec('INSERT INTO t (id, v) VALUES (1, ?)', ['a']);
    expect(await db.query('SELECT * FROM t')).toEqual([{ id: 1, v: 'a' }]);
    await db.exec('ALTER TABLE t ADD COLUMN w TEXT');
    expect(await db.query('SELECT * FROM t')).toEqual([{ id: 1, v: 'a', w: null }]);
    const bytes = await db.serialize();
    await db.exec('DELETE FROM t');
    await db.deserialize(bytes);
    expect(await db.query('SELECT * FROM t')).toEqual([{ id: 1, v: 'a', w: null }]);
  });
});

describe('appending turns', () => {
  it('stores a repeated id once, also within one batch, and keeps conversations apart', async () => {
    const store = await openNodeStore();
    try {
      await store.createConversation({ id: 'c1', title: 'One' });
      await store.createConversation({ id: 'c2', title: 'Two' });
      const turn = { id: 'm1', conversationId: 'c1', role: 'user' as const, content: 'hello there' };
      const results = await store.appendTurns([turn, { ...turn, content: 'changed' }, { ...turn, id: 'm2', content: 'second' }]);
      expect(results.map((r) => [r.created, r.message.seq, r.message.content])).toEqual([
        [true, 1, 'hello there'],
        [false, 1, 'hello there'],
        [true, 2, 'second'],
      ]);
      // A re-send is answered from storage even if its content would no longer validate.
      expect((await store.appendTurn({ ...turn, content: '  ' })).created).toBe(false);
      await expect(store.appendTurn({ ...turn, conversationId: 'c2' })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('another conversation'),
      });
      const stored = await store.getMessage('m2');
      expect(stored).toMatchObject({
        id: 'm2',
        conversationId: 'c1',
        seq: 2,
        role: 'user',
        speaker: 'User',
        content: 'second',
        metadata: {},
      });
      expect(results[2]!.message).toEqual(stored);
      expect((await store.stats()).messageCount).toBe(2);
    } finally {
      await store.db.close();
    }
  });
});
