/**
 * The import trust boundary under hostile and broken files. Every case is either
 * refused with its code, a sentence without raw SQLite text, and the live memory unchanged; or
 * accepted, and then the app's next writes behave exactly as on a fresh database.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { FUZZ_CASES } from './importFuzzCases';

const RAW_SQLITE = /Database error|no such|sqlite3_|SQLITE_|syntax error|constraint failed|malformed|rc=/i;
const KNOWN_META = new Set([
  'embedder.active',
  'embedder.target',
  'consolidation.policy',
  'segmentation.llm_check',
  'answer.sufficiency_check',
  'answer.budget_tokens',
]);

async function liveMemory(): Promise<SqliteMemoryStore> {
  const store = await openNodeStore();
  await store.createConversation({ id: 'mine', title: 'My own memory' });
  await store.appendTurns(
    ['I keep bees on the roof.', 'The hive is blue.', 'Honey in June.'].map((content, i) => ({
      id: `own${i}`,
      conversationId: 'mine',
      role: 'user' as const,
      content,
      occurredAt: 1_600_000_000_000 + i,
    })),
  );
  return store;
}

async function snapshot(store: SqliteMemoryStore): Promise<unknown> {
  const tables = (
    await store.db.query<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '%fts%' ORDER BY name")
  ).map((r) => r.name);
  const out: Record<string, unknown> = { schema: await store.db.query('SELECT type, name, sql FROM sqlite_schema ORDER BY name') };
  for (const t of tables) out[t] = await store.db.query(`SELECT * FROM "${t}" ORDER BY 1`);
  return out;
}

async function schemaOf(store: SqliteMemoryStore): Promise<unknown> {
  return store.db.query('SELECT type, name, sql FROM sqlite_schema ORDER BY type, name');
}

const count = async (store: SqliteMemoryStore, table: string) =>
  Number((await store.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

/** After an accepted import: no foreign objects, the expected rows, and writes that behave as on a fresh database. */
async function expectBehavesFresh(store: SqliteMemoryStore, holds: { conversations: number; messages: number }): Promise<void> {
  const fresh = await openNodeStore();
  expect(await schemaOf(store)).toEqual(await schemaOf(fresh));
  expect(await store.db.query('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  expect(await count(store, 'conversations')).toBe(holds.conversations);
  expect(await count(store, 'messages')).toBe(holds.messages);
  for (const row of await store.db.query<{ key: string; value: string }>('SELECT key, value FROM meta')) {
    expect(KNOWN_META.has(row.key)).toBe(true);
    if (row.key === 'answer.budget_tokens') expect(Number(row.value)).toBeLessThanOrEqual(100_000);
    if (row.key.startsWith('embedder.')) expect(row.value).toBe('topic');
  }
  const imported = await store.db.query<{ content: string }>('SELECT content FROM messages');
  for (const m of imported) expect(m.content).toMatch(/^(Turn|Old turn|Peppers) /);
  // create a conversation, append, search, delete, export — as on a fresh database
  await store.createConversation({ id: 'after', title: 'After import' });
  expect(await count(store, 'messages')).toBe(holds.messages);
  const [r] = await store.appendTurns([{ id: 'z1', conversationId: 'after', role: 'user', content: 'Zucchini grows fast in July' }]);
  expect(r!.created).toBe(true);
  expect(await count(store, 'conversations')).toBe(holds.conversations + 1);
  expect(await count(store, 'messages')).toBe(holds.messages + 1);
  expect((await store.listMessages('after')).map((m) => m.content)).toEqual(['Zucchini grows fast in July']);
  expect((await store.searchMessages('zucchini')).map((h) => h.message.id)).toEqual(['z1']);
  const anyOld = (await store.db.query<{ id: string }>("SELECT id FROM messages WHERE id <> 'z1' LIMIT 1"))[0];
  if (anyOld) {
    // The imported turns are searchable: a word finds exactly the turns that hold it.
    const word = /^[op]/.test(anyOld.id) ? 'peppers' : 'tomatoes';
    const holding = (await store.db.query<{ id: string }>('SELECT id FROM messages WHERE content LIKE ?', [`%${word}%`])).map((r) => r.id);
    const found = (await store.searchMessages(word, { limit: holding.length + 1 })).map((h) => h.message.id);
    expect(found.sort()).toEqual(holding.sort());
    expect(found).toContain(anyOld.id);
  }
  expect(await store.deleteMessage('z1')).toBe(true);
  expect(await count(store, 'messages')).toBe(holds.messages);
  expect(await store.searchMessages('zucchini')).toEqual([]);
  const again = await openNodeStore();
  expect((await again.importDatabase(await store.exportDatabase())).messageCount).toBe(holds.messages);
}

describe('import fuzz: hostile and broken files', () => {
  it('has at least 40 cases covering every class', () => {
    expect(FUZZ_CASES.length).toBeGreaterThanOrEqual(40);
    const kinds = new Set(FUZZ_CASES.map((c) => c.kind));
    for (const k of [
      'empty',
      'random',
      'truncated',
      'foreign SQLite',
      'version',
      'damaged',
      'page size',
      'huge',
      'zero-padded',
      'WAL header',
      'FTS garbage',
      'FK violation',
      'CHECK violation',
      'UTF-16',
      'trigger',
      'view',
      'writable_schema',
      'meta injection',
      'oversize row',
      'binary row',
    ]) {
      expect(kinds.has(k), k).toBe(true);
    }
  });

  for (const c of FUZZ_CASES) {
    it(`${c.kind}: ${c.name} → ${c.verdict}`, async () => {
      const live = await liveMemory();
      const before = await snapshot(live);
      const bytes = await c.build();
      const outcome = await live
        .stageImport(bytes, { knownEmbedder: (id) => id === 'topic', ...(c.maxBytes ? { maxBytes: c.maxBytes } : {}) })
        .then(
          (s) => ({ ok: true as const, summary: s.summary }),
          (err: unknown) => ({ ok: false as const, err: err as { code: string; message: string } }),
        );
      if (c.verdict === 'accepted') {
        if (!outcome.ok) throw new Error(`refused: ${outcome.err.code} ${outcome.err.message}`);
        expect(outcome.summary.messageCount).toBe(c.holds!.messages);
        await expectBehavesFresh(live, c.holds!);
      } else {
        if (outcome.ok) throw new Error('accepted');
        expect(outcome.err.code).toBe(c.verdict);
        expect(outcome.err.message).not.toMatch(RAW_SQLITE);
        expect(outcome.err.message.length).toBeGreaterThan(40);
        expect(await snapshot(live)).toEqual(before);
        // and the live memory still takes turns
        await live.appendTurn({ id: 'own9', conversationId: 'mine', role: 'user', content: 'Still here' });
        expect((await live.searchMessages('bees')).map((h) => h.message.id)).toEqual(['own0']);
      }
    });
  }
});
