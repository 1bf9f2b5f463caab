/**
 * Schema v2's turn index (turns_fts): migration from v1 with data, maintenance on append /
 * update / delete, and deletion removing a turn's text from every index in one transaction.
 */
import { describe, expect, it } from 'vitest';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { migrate, schemaVersion } from '../../src/storage/migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/storage/schema';
import type { Sql } from '../../src/core/base/sql';
import { flushTurnIndex } from '../../src/storage/messageRepo';

async function matches(sql: Sql, query: string): Promise<number[]> {
  const rows = await sql.query<{ rowid: number }>('SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rowid', [query]);
  return rows.map((r) => Number(r.rowid));
}

async function pkOf(sql: Sql, id: string): Promise<number> {
  const [row] = await sql.query<{ pk: number }>('SELECT pk FROM messages WHERE id = ?', [id]);
  return Number(row!.pk);
}

describe('turn index (schema v2)', () => {
  it('migrates a v1 database with turns, indexing what was already stored', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 1);
    await db.exec(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c', 'chat', 0, 0)`);
    const insert = `INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count, metadata) VALUES (?, 'c', ?, 'user', ?, ?, ?, 0, 1, ?)`;
    await db.exec(insert, ['a', 1, 'Ann', 'Did you run the marathon?', Date.UTC(2023, 4, 8), '{}']);
    await db.exec(insert, ['b', 2, 'Bob', 'Yes, last Friday!', Date.UTC(2023, 4, 8), '{"caption":"a photo of a medal"}']);
    expect(await schemaVersion(db)).toBe(1);

    await migrate(db, MIGRATIONS, 2);
    expect(await schemaVersion(db)).toBe(2);
    const a = await pkOf(db, 'a');
    const b = await pkOf(db, 'b');
    expect(await matches(db, 'content: marathon')).toEqual([a]);
    expect(await matches(db, 'after: friday')).toEqual([a]);
    expect(await matches(db, 'before: marathon')).toEqual([b]);
    expect(await matches(db, 'caption: medal')).toEqual([b]);
    expect(await matches(db, 'speaker: bob')).toEqual([b]);
    expect(await matches(db, 'timeline: may AND timeline: 2023')).toEqual([a, b]);
    // v1's one-turn index is untouched.
    const v1 = await db.query<{ rowid: number }>("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'marathon'");
    expect(v1.map((r) => Number(r.rowid))).toEqual([a]);
    // Later migrations keep the turn index.
    await migrate(db);
    expect(await schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(await matches(db, 'before: marathon')).toEqual([b]);
  });

  it('keeps neighbour context current on append and never crosses a session gap', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    await store.createConversation({ id: 'd', title: 'other' });
    const t0 = Date.UTC(2023, 4, 8, 12);
    await store.appendTurn({ id: 'a', conversationId: 'c', role: 'user', content: 'Where is the pottery class?', occurredAt: t0 });
    await store.appendTurn({ id: 'x', conversationId: 'd', role: 'user', content: 'pottery elsewhere', occurredAt: t0 });
    expect(await matches(store.db, 'after: pottery')).toEqual([]);
    await store.appendTurn({ id: 'b', conversationId: 'c', role: 'user', content: 'Downtown, near the library.', occurredAt: t0 + 60_000 });
    // A turn a week later belongs to a new session: no shared context.
    await store.appendTurn({
      id: 'c2',
      conversationId: 'c',
      role: 'user',
      content: 'Unrelated greetings',
      occurredAt: t0 + 7 * 86_400_000,
    });
    const [a, b, c2] = [await pkOf(store.db, 'a'), await pkOf(store.db, 'b'), await pkOf(store.db, 'c2')];
    expect(await matches(store.db, 'after: library')).toEqual([a]);
    expect(await matches(store.db, 'before: pottery')).toEqual([b]);
    expect(await matches(store.db, 'before: library OR after: greetings')).toEqual([]);
    expect(await matches(store.db, 'content: greetings')).toEqual([c2]);
  });

  it('indexes a batch appended in one transaction (appendTurns) with full neighbour context', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    const t = Date.UTC(2023, 4, 8);
    await store.appendTurn({ id: 'a', conversationId: 'c', role: 'user', content: 'Did you adopt the puppy?', occurredAt: t });
    await store.appendTurns([
      { id: 'b', conversationId: 'c', role: 'user', content: 'Yes, a beagle named Toast.', occurredAt: t },
      { id: 'c3', conversationId: 'c', role: 'user', content: 'Lovely name!', occurredAt: t },
    ]);
    const [a, b, c3] = [await pkOf(store.db, 'a'), await pkOf(store.db, 'b'), await pkOf(store.db, 'c3')];
    expect(await matches(store.db, 'after: beagle')).toEqual([a]);
    expect(await matches(store.db, 'before: puppy')).toEqual([b, c3]);
    expect(await matches(store.db, 'after: lovely')).toEqual([b]);
    expect(await matches(store.db, 'content: lovely')).toEqual([c3]);
    await expect(store.db.exec("INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 0)")).resolves.toBeUndefined();
  });

  it('indexes each turn of a batch once (schema v6): scores equal a fresh index of the same turns', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    const t = Date.UTC(2023, 4, 8);
    const words = ['garden', 'tomatoes', 'basil', 'rain', 'harvest', 'market', 'soup', 'neighbour'];
    const turns = Array.from({ length: 24 }, (_, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user' as const,
      content: `${words[i % 8]} note${i % 12} ${'today '.repeat(i % 4)}`,
      occurredAt: t + i * 60_000,
    }));
    await store.appendTurns(turns);
    expect(await store.db.query('SELECT pk FROM turn_index_queue')).toEqual([]);
    // FTS5 never lowers its row and token totals when a contentless row is replaced, so a turn
    // indexed twice (v2: once on insert, again when the next turn came) skews bm25 for good.
    await store.db.exec(
      `CREATE VIRTUAL TABLE fresh USING fts5(speaker, content, caption, before, after, timeline, content = '', tokenize = 'porter unicode61 remove_diacritics 2')`,
    );
    await store.db.exec(
      'INSERT INTO fresh(rowid, speaker, content, caption, before, after, timeline) SELECT pk, speaker, content, caption, before, after, timeline FROM turn_index_source',
    );
    const scores = (table: string) =>
      store.db.query<{ rowid: number; s: number }>(
        `SELECT rowid, round(bm25(${table}), 6) AS s FROM ${table} WHERE ${table} MATCH 'note3 OR note7 OR basil' ORDER BY rowid`,
      );
    const fresh = await scores('fresh');
    expect(fresh.length).toBeGreaterThan(8);
    expect(fresh.filter((r) => r.s < -0.01).length).toBeGreaterThan(4); // informative scores, not clamped idf
    expect(await scores('turns_fts')).toEqual(fresh);
  });

  it('indexes turns inserted outside appendTurns once the queue is flushed', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    await store.appendTurn({ id: 'a', conversationId: 'c', role: 'user', content: 'Which trail did you hike?', occurredAt: 0 });
    await store.db.exec(
      `INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('b', 'c', 2, 'user', 'user', 'The ridge loop above the lake.', 0, 0, 8)`,
    );
    expect(await matches(store.db, 'ridge')).toEqual([]);
    await store.db.transaction((tx) => flushTurnIndex(tx));
    const [a, b] = [await pkOf(store.db, 'a'), await pkOf(store.db, 'b')];
    expect(await matches(store.db, 'content: ridge')).toEqual([b]);
    expect(await matches(store.db, 'after: ridge')).toEqual([a]);
    expect(await store.db.query('SELECT pk FROM turn_index_queue')).toEqual([]);
  });

  it('removes a deleted turn from every index, including its neighbours\u2019 context, in the same transaction', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    const t = Date.UTC(2023, 4, 8);
    for (const [id, content] of [
      ['a', 'hello there'],
      ['b', 'my secret diagnosis'],
      ['c', 'thanks for telling me'],
    ] as const) {
      await store.appendTurn({ id, conversationId: 'c', role: 'user', content, occurredAt: t });
    }
    await store.putVectors('message', 'm@1', [{ itemId: 'b', vector: new Float32Array([1, 0]) }]);
    const [a, c] = [await pkOf(store.db, 'a'), await pkOf(store.db, 'c')];
    expect(await matches(store.db, 'diagnosis')).toHaveLength(3);

    expect(await store.deleteMessage('b')).toBe(true);
    expect(await matches(store.db, 'diagnosis')).toEqual([]);
    expect(await store.searchMessages('diagnosis')).toEqual([]);
    expect(await store.countVectors('message', 'm@1')).toBe(0);
    // The survivors are now each other's neighbours.
    expect(await matches(store.db, 'after: thanks')).toEqual([a]);
    expect(await matches(store.db, 'before: hello')).toEqual([c]);
  });

  it('re-indexes a turn whose text or caption is edited', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    await store.appendTurn({ id: 'a', conversationId: 'c', role: 'user', content: 'first words', occurredAt: 0 });
    await store.appendTurn({ id: 'b', conversationId: 'c', role: 'user', content: 'reply', occurredAt: 0 });
    await store.db.exec(`UPDATE messages SET content = 'edited words', metadata = '{"caption":"a cat"}' WHERE id = 'a'`);
    const [a, b] = [await pkOf(store.db, 'a'), await pkOf(store.db, 'b')];
    expect(await matches(store.db, 'first')).toEqual([]);
    expect(await matches(store.db, 'content: edited')).toEqual([a]);
    expect(await matches(store.db, 'caption: cat')).toEqual([a]);
    expect(await matches(store.db, 'before: edited')).toEqual([b]);
  });

  it('deleting a conversation empties the turn index', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    await store.appendTurn({ id: 'a', conversationId: 'c', role: 'user', content: 'alpha beta', occurredAt: 0 });
    await store.appendTurn({ id: 'b', conversationId: 'c', role: 'user', content: 'gamma', occurredAt: 0 });
    await store.deleteConversation('c');
    expect(await matches(store.db, 'alpha OR gamma')).toEqual([]);
  });
});

describe('turn index of a large memory', () => {
  it('leaves appended turns queued above the size limit, finds them by their own words at once, and indexes the queue at the next append under the limit', async () => {
    const { SqliteMemoryStore } = await import('../../src/storage/SqliteMemoryStore');
    const { SqlRetrievalSource } = await import('../../src/storage/retrievalSource');
    const { Retriever } = await import('../../src/core/recall/Retriever');
    const { withConfig } = await import('../../src/core/recall/fusion');
    const db = await openMemoryDatabase();
    const store = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }), turnIndexUpTo: 2 });
    await store.createConversation({ id: 'c', title: 'chat' });
    const at = Date.UTC(2023, 4, 8);
    const turn = (id: string, content: string) => ({
      id,
      conversationId: 'c',
      role: 'user' as const,
      speaker: 'Ann',
      content,
      occurredAt: at,
    });
    await store.appendTurns([turn('a', 'I ran the marathon'), turn('b', 'in three hours')]);
    expect(await matches(db, 'content: marathon')).toEqual([await pkOf(db, 'a')]);
    const source = new SqlRetrievalSource(db);
    expect(await source.turnIndexCurrent()).toBe(true);

    // Two turns held: the third is stored and in its own FTS row, not in the turn index.
    await store.appendTurns([turn('z', 'a zebra at the zoo')]);
    expect(await matches(db, 'content: zebra')).toEqual([]);
    expect(await source.turnIndexCurrent()).toBe(false);
    expect((await store.searchMessages('zebra')).map((h) => h.message.id)).toEqual(['z']);
    // Recall (configured to read the turn index of a memory this small) still finds it by its words.
    const retriever = new Retriever({ source, config: withConfig({ large: { above: 100 } }) });
    expect((await retriever.retrieve('Where was the zebra?')).turns[0]?.message.id).toBe('z');

    // Under a higher limit, the next append indexes everything queued, with its neighbours.
    const roomier = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }), turnIndexUpTo: 100 });
    await roomier.appendTurns([turn('y', 'and a yak')]);
    expect(await source.turnIndexCurrent()).toBe(true);
    expect(await matches(db, 'content: zebra')).toEqual([await pkOf(db, 'z')]);
    expect(await matches(db, 'after: yak')).toEqual([await pkOf(db, 'z')]);
    await db.close();
  });

  it('a restored file larger than the limit keeps its turns, vectors and keyword index, and leaves the turn index queued; a small one is indexed at once', async () => {
    const { SqliteMemoryStore } = await import('../../src/storage/SqliteMemoryStore');
    const source = await openNodeStore();
    await source.createConversation({ id: 'c', title: 'chat' });
    const turns = Array.from({ length: 30 }, (_, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content: i === 7 ? 'the zeppelin museum' : `turn ${i} about bread`,
      occurredAt: Date.UTC(2023, 0, 1) + i * 60_000,
    }));
    await source.appendTurns(turns);
    await source.db.exec("INSERT INTO vectors VALUES ('message', 't7', 'glove', 2, 'f32', x'0000803f00000000', 1)");
    const bytes = await source.exportDatabase();
    const restore = async (turnIndexUpTo: number) => {
      const db = await openMemoryDatabase();
      const store = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }), turnIndexUpTo });
      expect((await store.importDatabase(bytes)).messageCount).toBe(30);
      const count = async (table: string) => Number((await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]?.n);
      return { db, store, count };
    };

    const large = await restore(20);
    expect(await large.count('turns_fts')).toBe(0);
    expect(await large.count('turn_index_queue')).toBe(30);
    expect(await large.count('vectors')).toBe(1);
    expect((await large.store.searchMessages('zeppelin')).map((h) => h.message.id)).toEqual(['t7']);
    expect((await large.store.searchMessages('bread', { limit: 100 })).length).toBe(29);
    // A store allowed the turn index drains the queue (the trailing indexer's step).
    const roomier = new SqliteMemoryStore(large.db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }), turnIndexUpTo: 100 });
    expect(await roomier.indexQueuedTurns(1_000)).toBe(0);
    expect(await matches(large.db, 'content: zeppelin')).toEqual([await pkOf(large.db, 't7')]);
    expect(await matches(large.db, 'before: zeppelin')).toContain(await pkOf(large.db, 't8'));

    const small = await restore(100);
    expect(await small.count('turns_fts')).toBe(30);
    expect(await small.count('turn_index_queue')).toBe(0);
    await large.db.close();
    await small.db.close();
  });
});
