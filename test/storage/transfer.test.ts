import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDatabaseFile, openMemoryDatabase, openNodeStore, saveDatabaseFile } from '../../src/storage/openNodeDatabase';
import { exportFileName } from '../../src/core/base/exportFileName';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/storage/schema';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { migrate } from '../../src/storage/migrate';

const TABLES = [
  'conversations',
  'messages',
  'vectors',
  'memcells',
  'facts',
  'foresights',
  'memscenes',
  'profile_items',
  'profile_item_history',
  'jobs',
  'llm_calls',
  'meta',
];

async function dump(store: SqliteMemoryStore): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = await store.db.query(`SELECT * FROM ${t} ORDER BY 1`);
  return out;
}

async function populated(): Promise<SqliteMemoryStore> {
  const store = await openNodeStore();
  await store.createConversation({ id: 'c1', title: 'Garden' });
  for (let i = 0; i < 50; i++) {
    await store.appendTurn({
      id: `m${i}`,
      conversationId: 'c1',
      role: i % 2 ? 'assistant' : 'user',
      content: `Turn ${i} about tomatoes and basil ${'🌱'.repeat(i % 3)}`,
      occurredAt: 1_700_000_000_000 + i * 60_000,
      metadata: { i },
    });
  }
  const now = 1_700_000_000_000;
  await store.db.exec("INSERT INTO vectors VALUES ('message', 'm1', 'glove', 2, 'f32', x'0000803f00000000', 1)");
  await store.db.exec(`INSERT INTO memscenes (id, title, created_at, updated_at) VALUES ('s1', 'Gardening', ${now}, ${now})`);
  await store.db.exec(
    `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, narrative, scene_id, created_at, updated_at) VALUES ('mc1', 'c1', 1, 10, ${now}, ${now}, 'Ana planted tomatoes.', 's1', ${now}, ${now})`,
  );
  await store.db.exec(
    `INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('f1', 'mc1', 'Ana', 'Ana grows basil.', ${now}, ${now})`,
  );
  await store.db.exec(
    `INSERT INTO foresights (id, memcell_id, content, start_at, end_at, created_at, updated_at) VALUES ('fs1', 'mc1', 'Harvest in August', ${now}, ${now + 1e9}, ${now}, ${now})`,
  );
  await store.db.exec(
    `INSERT INTO profile_items (id, kind, key, value, created_at, updated_at) VALUES ('p1', 'explicit', 'hobby', 'gardening', ${now}, ${now})`,
  );
  await store.db.exec(
    `INSERT INTO profile_item_history (profile_item_id, op, value, changed_at) VALUES ('p1', 'add', 'gardening', ${now})`,
  );
  await store.db.exec(
    `INSERT INTO jobs (kind, payload, created_at, updated_at) VALUES ('synthesise', '{"memcell":"mc1"}', ${now}, ${now})`,
  );
  await store.db.exec(
    `INSERT INTO llm_calls (stage, model, prompt_tokens, completion_tokens, outcome, created_at) VALUES ('synthesis', 'm', 10, 5, 'ok', ${now})`,
  );
  await store.db.exec("INSERT INTO meta VALUES ('embedder.active', 'glove')");
  return store;
}

describe('export and import', () => {
  it('round-trips every row of every table', async () => {
    const source = await populated();
    const bytes = await source.exportDatabase();
    expect(new TextDecoder().decode(bytes.subarray(0, 15))).toBe('SQLite format 3');

    const target = await openNodeStore();
    await target.createConversation({ id: 'old', title: 'To be replaced' });
    const summary = await target.importDatabase(bytes);
    expect(summary).toEqual({
      fromSchemaVersion: LATEST_SCHEMA_VERSION,
      schemaVersion: LATEST_SCHEMA_VERSION,
      messageCount: 50,
      conversationCount: 1,
      notices: [],
    });
    expect(await dump(target)).toEqual(await dump(source));
    // indexes work after the swap
    // every one of the 50 turns is found again through the full-text index
    const found = (await target.searchMessages('tomatoes', { limit: 100 })).map((h) => h.message.id);
    expect(found.sort()).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`).sort());
    expect(
      await target.db.query("SELECT id FROM facts_fts JOIN facts ON facts.rowid = facts_fts.rowid WHERE facts_fts MATCH 'basil'"),
    ).toEqual([{ id: 'f1' }]);
    // and the imported memory accepts new turns
    await target.appendTurn({ id: 'new', conversationId: 'c1', role: 'user', content: 'Peppers next year' });
    expect((await target.stats()).messageCount).toBe(51);
  });

  it('saves and loads a .sqlite file on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-'));
    try {
      const source = await populated();
      const path = join(dir, 'memory.sqlite');
      await saveDatabaseFile(source.db, path);
      const loaded = await loadDatabaseFile(path);
      const [row] = await loaded.query<{ n: number }>('SELECT count(*) AS n FROM messages');
      expect(row?.n).toBe(50);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  async function expectRejected(bytes: Uint8Array, code: string, text: RegExp) {
    const target = await populated();
    const before = await dump(target);
    const err = await target.importDatabase(bytes).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code });
    expect((err as Error).message).toMatch(text);
    expect(await dump(target)).toEqual(before);
  }

  it("imports a file marked as write-ahead-logged (the app's own OPFS mode) and exports a standalone one", async () => {
    const source = await populated();
    const bytes = (await source.exportDatabase()).slice();
    expect([bytes[18], bytes[19]]).toEqual([1, 1]);
    bytes[18] = 2; // as a copy of a WAL-mode file looks
    bytes[19] = 2;
    const target = await openNodeStore();
    expect((await target.importDatabase(bytes)).messageCount).toBe(50);
    expect(await dump(target)).toEqual(await dump(source));
    const again = await target.exportDatabase();
    expect([again[18], again[19]]).toEqual([1, 1]);
  });

  it('imports a schema v6 file (before memory switches) at the latest schema with both switches on', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 6);
    await db.exec("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Old chat', 1, 1)");
    await db.exec(
      "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('m1', 'c1', 1, 'user', 'You', 'Peppers next year', 1, 1, 4)",
    );
    const old = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
    const target = await openNodeStore();
    const summary = await target.importDatabase(await old.exportDatabase());
    expect(summary).toMatchObject({ fromSchemaVersion: 6, schemaVersion: LATEST_SCHEMA_VERSION, messageCount: 1 });
    expect(await target.getConversation('c1')).toMatchObject({ title: 'Old chat', useMemory: true, remember: true });
    expect((await target.searchMessages('peppers')).map((h) => h.message.id)).toEqual(['m1']);
  });

  it('keeps the memory switches and their defaults through export and import, and refuses a switch that is neither on nor off', async () => {
    const source = await openNodeStore();
    await source.createConversation({ id: 'quiet', title: 'Quiet', useMemory: false, remember: false });
    await source.setMeta('conversation.remember_default', '0');
    const target = await openNodeStore();
    await target.importDatabase(await source.exportDatabase());
    expect(await target.getConversation('quiet')).toMatchObject({ useMemory: false, remember: false });
    expect(await target.getMeta('conversation.remember_default')).toBe('0');

    await source.db.exec(
      'PRAGMA ignore_check_constraints = ON; UPDATE conversations SET remember = 7; PRAGMA ignore_check_constraints = OFF',
    );
    // SQLite's integrity check sees the broken CHECK constraint first: the file is refused as damaged.
    await expect(target.importDatabase(await source.exportDatabase())).rejects.toMatchObject({
      code: expect.stringMatching(/^IMPORT_(CORRUPT|INVALID_DATA)$/),
    });
    expect(await target.getConversation('quiet')).toMatchObject({ remember: false });
  });

  it('accepts a file written with another page size: its rows are rebuilt at ours', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await db.exec('PRAGMA page_size = 1024');
    await migrate(db);
    const other = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
    await other.createConversation({ id: 'c1', title: 'Small pages' });
    await other.appendTurn({ id: 'm1', conversationId: 'c1', role: 'user', content: 'Peppers next year' });
    const bytes = await other.exportDatabase();
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint16(16)).toBe(1024);
    const target = await openNodeStore();
    expect((await target.importDatabase(bytes)).messageCount).toBe(1);
    expect((await target.searchMessages('peppers')).map((h) => h.message.id)).toEqual(['m1']);
    expect(await target.db.query('PRAGMA page_size')).toEqual([{ page_size: 4096 }]);
  });

  it('rejects a truncated file and keeps the current memory', async () => {
    const bytes = await (await populated()).exportDatabase();
    await expectRejected(bytes.slice(0, Math.floor(bytes.byteLength / 2)), 'IMPORT_CORRUPT', /incomplete|damaged/);
    await expectRejected(bytes.slice(0, 4096 * 2 + 100), 'IMPORT_CORRUPT', /incomplete|damaged/);
  });

  it('rejects a file that is not SQLite', async () => {
    await expectRejected(
      new TextEncoder().encode('{"hello": "this is json, not a database"}'),
      'IMPORT_NOT_SQLITE',
      /not a Recollect memory. To add its conversations, use Import chats…/,
    );
    await expectRejected(new Uint8Array(0), 'IMPORT_NOT_SQLITE', /not a SQLite database/);
  });

  it('rejects a file with damaged pages', async () => {
    const bytes = await (await populated()).exportDatabase();
    const damaged = bytes.slice();
    for (let i = 4096 * 2; i < 4096 * 3; i++) damaged[i] = (i * 7919) & 0xff;
    await expectRejected(damaged, 'IMPORT_CORRUPT', /damaged/);
  });

  it('rejects a database from a newer schema', async () => {
    const newer = await openNodeStore();
    await newer.db.exec(`PRAGMA user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    await expectRejected(await newer.exportDatabase(), 'SCHEMA_TOO_NEW', /newer version of Recollect/);
  });

  it('rejects a SQLite file that is not a Recollect database', async () => {
    const other = await openMemoryDatabase({ migrateSchema: false });
    await other.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Bo')");
    await expectRejected(await other.serialize(), 'IMPORT_NOT_RECOLLECT', /not a Recollect database/);
    const empty = await openMemoryDatabase({ migrateSchema: false });
    await empty.exec('PRAGMA user_version = 0; CREATE TABLE t(x); DROP TABLE t;');
    await expectRejected(await empty.serialize(), 'IMPORT_NOT_RECOLLECT', /not a Recollect database/);
  });

  it('names exports recollect-YYYY-MM-DD.sqlite', () => {
    expect(exportFileName(new Date(2026, 10, 3, 12))).toBe('recollect-2026-11-03.sqlite');
  });
});
