/**
 * Words of scripts without spaces are found inside sentences by every index and query path, and
 * schema v9 re-indexes an existing memory written under the old tokenizer.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { SqlRetrievalSource } from '../../src/storage/retrievalSource';
import { SqlExplorerStore } from '../../src/storage/explorerRepo';
import { migrate } from '../../src/storage/migrate';
import { MIGRATIONS, LATEST_SCHEMA_VERSION, TURNS_FTS_COLUMNS } from '../../src/storage/schema';
import { terms } from '../../src/core/base/text';
import { HIGHLIGHT_START } from '../../src/core/base/types';

const TURNS = [
  { id: 'zh', content: '我下个月要去北京出差，顺便给妈妈买一些花生糖。' },
  { id: 'ja', content: '来週、東京で友達とピーナッツバターのお店に行きます。' },
  { id: 'ko', content: '다음 주에 부산에서 친구들과 바다를 보러 갈 거예요.' },
  { id: 'th', content: 'พรุ่งนี้ฉันจะไปกินข้าวที่ร้านอาหารใกล้บ้าน' },
  { id: 'de', content: 'Nächsten Freitag fahren wir mit dem Zug nach München.' },
  { id: 'ru', content: 'В субботу мы поедем на дачу собирать яблоки.' },
  { id: 'en', content: 'We adopted two puppies from the shelter last spring.' },
];

const QUERIES: [string, string][] = [
  ['北京', 'zh'],
  ['花生', 'zh'],
  ['妈妈', 'zh'],
  ['糖', 'zh'],
  ['東京', 'ja'],
  ['ピーナッツ', 'ja'],
  ['友達', 'ja'],
  ['부산', 'ko'],
  ['바다', 'ko'],
  ['친구', 'ko'],
  ['ร้านอาหาร', 'th'],
  ['บ้าน', 'th'],
  ['München', 'de'],
  ['Zug', 'de'],
  ['яблоки', 'ru'],
  ['puppy', 'en'],
  ['shelter', 'en'],
];

let store: SqliteMemoryStore;
let t = 1_700_000_000_000;

async function seed(s: SqliteMemoryStore) {
  await s.createConversation({ id: 'c', title: 'Languages' });
  for (const turn of TURNS) await s.appendTurn({ id: turn.id, conversationId: 'c', role: 'user', speaker: 'You', content: turn.content });
}

beforeEach(async () => {
  store = await openNodeStore({ clock: { now: () => (t += 60_000) } });
});

describe('search in scripts without spaces', () => {
  it('finds each word inside its sentence through message search, in every language', async () => {
    await seed(store);
    for (const [query, id] of QUERIES) {
      const hits = await store.searchMessages(query);
      expect(
        hits.map((h) => h.message.id),
        query,
      ).toContain(id);
      expect(hits[0]!.message.id, query).toBe(id);
    }
  });

  it('highlights the matched words of a Chinese turn in its snippet', async () => {
    await seed(store);
    const [hit] = await store.searchMessages('北京');
    expect(hit!.snippet).toContain(`${HIGHLIGHT_START}北京`);
  });

  it("finds them through the turn index (the Retriever's lexical source)", async () => {
    await seed(store);
    const source = new SqlRetrievalSource(store.db);
    const fields = Object.fromEntries(TURNS_FTS_COLUMNS.map((c) => [c, c === 'content' ? 1 : 0]));
    for (const [query, id] of QUERIES) {
      const ids = await source.lexical(terms(query), { limit: 3, fields } as never);
      expect(ids[0], query).toBe(id);
    }
  });

  it('finds them in facts, episodes and Forget candidates', async () => {
    await seed(store);
    await store.db
      .exec(`INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, created_at, updated_at)
      VALUES ('e1', 'c', 1, 2, 1, 2, '北京出差', '用户下个月去北京出差。', 1, 1)`);
    await store.db.exec(
      `INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('f1', 'e1', 'You', '用户喜欢花生糖。', 1, 1)`,
    );
    const explorer = new SqlExplorerStore(store.db);
    expect((await explorer.searchKind('fact', '花生', {}, 5)).map((c) => c.id)).toEqual(['f1']);
    expect((await explorer.searchKind('episode', '出差', {}, 5)).map((c) => c.id)).toEqual(['e1']);
    expect((await explorer.searchKind('turn', '東京', {}, 5)).map((c) => c.id)).toEqual(['ja']);
    const forget = await explorer.forgetCandidates('花生', 10);
    expect(forget.map((c) => `${c.kind}:${c.id}`).sort()).toEqual(['fact:f1', 'turn:zh']);
  });

  it('Forget finds a word in titles and plans in every script, in any case, and renames the title', async () => {
    await seed(store);
    await store.createConversation({ id: 'trip', title: '北京出差的计划' });
    await store.createConversation({ id: 'de', title: 'ÄRGER mit dem Vermieter' });
    await store.createConversation({ id: 'near', title: 'Ärgerlich: der Zug' });
    await store.db.exec(`INSERT INTO foresights (id, content, start_at, end_at, source, status, created_at, updated_at) VALUES
      ('p1', '下个月去北京', 1, NULL, 'user', 'active', 1, 1), ('p2', 'Viel Ärger am Freitag', 1, NULL, 'user', 'active', 1, 1)`);
    const explorer = new SqlExplorerStore(store.db);
    const keys = async (q: string) => (await explorer.forgetCandidates(q, 10)).map((c) => `${c.kind}:${c.id}`).sort();
    expect(await keys('北京')).toEqual(['foresight:p1', 'title:trip', 'turn:zh']);
    expect(await keys('ärger')).toEqual(['foresight:p2', 'title:de']);
    const result = await explorer.forget(
      [
        { kind: 'title', id: 'trip' },
        { kind: 'title', id: 'de' },
      ],
      2,
      '北京 Ärger',
    );
    expect(result.deleted.title).toBe(2);
    expect((await store.getConversation('trip'))!.title).toBe('…出差的计划');
    expect((await store.getConversation('de'))!.title).toBe('… mit dem Vermieter');
    expect((await store.getConversation('near'))!.title).toBe('Ärgerlich: der Zug');
  });

  it("removes a deleted turn's words from every index (the delete passes the indexed form)", async () => {
    await seed(store);
    await store.db.exec("DELETE FROM messages WHERE id = 'zh'");
    expect(await store.searchMessages('北京')).toEqual([]);
    for (const table of ['messages_fts', 'turns_fts']) {
      await expect(store.db.exec(`INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)`)).resolves.toBeUndefined();
    }
  });
});

describe('schema v9', () => {
  it('re-indexes a memory written under the old tokenizer, reporting progress', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 7);
    const old = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
    // Today's store reads conversations' project (schema v13), pin, archive and model (v15): lend
    // the v7 table those columns while seeding through it, and take them back so the migrations add them as they would.
    const lent = ['project_id TEXT', 'pinned_at INTEGER', 'archived_at INTEGER', 'answer_model TEXT'];
    for (const column of lent) await db.exec(`ALTER TABLE conversations ADD COLUMN ${column}`);
    await seed(old);
    for (const column of lent) await db.exec(`ALTER TABLE conversations DROP COLUMN ${column.split(' ')[0]}`);
    expect(await old.db.query('SELECT rowid FROM messages_fts WHERE messages_fts MATCH \'"北京"\'')).toEqual([]);
    const progress: [number, number][] = [];
    await migrate(db, MIGRATIONS, LATEST_SCHEMA_VERSION, { onProgress: (_m, done, total) => progress.push([done, total]) });
    expect(progress[0]).toEqual([0, TURNS.length * 2]);
    expect(progress.at(-1)).toEqual([TURNS.length * 2, TURNS.length * 2]);
    for (const [query, id] of QUERIES) expect((await old.searchMessages(query))[0]?.message.id, query).toBe(id);
    await expect(db.exec("INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 1)")).resolves.toBeUndefined();
  });

  it('an imported database rebuilds its indexes with the same rule', async () => {
    await seed(store);
    const target = await openNodeStore();
    await target.importDatabase(await store.exportDatabase());
    expect((await target.searchMessages('ピーナッツ'))[0]?.message.id).toBe('ja');
  });
});
