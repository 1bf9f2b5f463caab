import { describe, expect, it } from 'vitest';
import { openMemoryDatabase } from '../../src/storage/openNodeDatabase';
import { applicationId, migrate, schemaVersion } from '../../src/storage/migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, RECOLLECT_APPLICATION_ID } from '../../src/storage/schema';

const TABLES = [
  'conversations',
  'messages',
  'messages_fts',
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
  'facts_fts',
  'memcells_fts',
];

describe('migrations', () => {
  it('creates the whole schema from an empty database', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    expect(await schemaVersion(db)).toBe(0);
    const result = await migrate(db);
    expect(result).toEqual({ from: 0, to: LATEST_SCHEMA_VERSION });
    expect(await schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(await applicationId(db)).toBe(RECOLLECT_APPLICATION_ID);
    const rows = await db.query<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table'");
    const names = rows.map((r) => r.name);
    for (const t of TABLES) expect(names).toContain(t);
    const [fk] = await db.query<{ foreign_keys: number }>('PRAGMA foreign_keys');
    expect(fk?.foreign_keys).toBe(1);
  });

  it('is a no-op on an up-to-date database', async () => {
    const db = await openMemoryDatabase();
    expect(await migrate(db)).toEqual({ from: LATEST_SCHEMA_VERSION, to: LATEST_SCHEMA_VERSION });
  });

  it('migrates from every earlier version to the latest', async () => {
    // Every released version (numbers can skip: versions are assigned per change before merging).
    for (const start of [0, ...MIGRATIONS.map((m) => m.version).filter((v) => v < LATEST_SCHEMA_VERSION)]) {
      const db = await openMemoryDatabase({ migrateSchema: false });
      if (start > 0) await migrate(db, MIGRATIONS, start);
      expect(await schemaVersion(db)).toBe(start);
      await migrate(db);
      expect(await schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    }
  });

  it.each([15, 17])('v18: a v%i database keeps its turns and gains turn_versions, empty', async (start) => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, start);
    await db.exec("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c', 'Trip', 1, 1)");
    await db.exec(
      `INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count)
       VALUES ('u1', 'c', 1, 'user', 'You', 'Where is the ferry?', 1, 1, 5), ('a1', 'c', 2, 'assistant', 'Assistant', 'At pier four.', 2, 2, 4)`,
    );
    await migrate(db);
    expect(await schemaVersion(db)).toBe(18);
    expect(await db.query('SELECT id, seq, content FROM messages ORDER BY seq')).toEqual([
      { id: 'u1', seq: 1, content: 'Where is the ferry?' },
      { id: 'a1', seq: 2, content: 'At pier four.' },
    ]);
    expect(await db.query('SELECT count(*) AS n FROM turn_versions')).toEqual([{ n: 0 }]);
    expect(await db.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'ferry'")).toHaveLength(1);
  });

  it("v7: conversations get both memory switches on; a theme's forgotten-summary bit becomes its own column", async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 6);
    await db.exec("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c', 'Old', 1, 1)");
    await db.exec(
      `INSERT INTO memscenes (id, edited_by_user, created_at, updated_at) VALUES ('plain', 0, 1, 1), ('named', 1, 1, 1), ('forgotten', 2, 1, 1), ('both', 3, 1, 1)`,
    );
    await migrate(db);
    expect(await db.query('SELECT use_memory, remember FROM conversations')).toEqual([{ use_memory: 1, remember: 1 }]);
    expect(await db.query('SELECT id, edited_by_user, summary_forgotten FROM memscenes ORDER BY id')).toEqual([
      { id: 'both', edited_by_user: 1, summary_forgotten: 1 },
      { id: 'forgotten', edited_by_user: 0, summary_forgotten: 1 },
      { id: 'named', edited_by_user: 1, summary_forgotten: 0 },
      { id: 'plain', edited_by_user: 0, summary_forgotten: 0 },
    ]);
    await expect(db.exec('UPDATE conversations SET remember = 2')).rejects.toMatchObject({ code: 'SQL_ERROR' });
  });

  it('v7: jobs set aside as failed + "CANCELLED:" become status cancelled; the cost ledger keeps its links to jobs', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 6);
    await db.exec(`INSERT INTO jobs (id, kind, dedupe_key, status, last_error, priority, created_at, updated_at) VALUES
      (1, 'synthesise-memcell', 'memcell:a', 'failed', 'CANCELLED: consolidation is off', 2, 1, 1),
      (2, 'synthesise-memcell', 'memcell:b', 'failed', 'LLM_UNAVAILABLE: down', 0, 1, 1),
      (3, 'synthesise-memcell', 'memcell:c', 'done', NULL, 0, 1, 1)`);
    await db.exec(
      "INSERT INTO llm_calls (id, stage, model, outcome, job_id, created_at) VALUES (10, 'synthesis', 'm', 'ok', 3, 1), (11, 'answer', 'm', 'ok', NULL, 1)",
    );
    await migrate(db);
    expect(await db.query('SELECT id, status, last_error, priority, dedupe_key FROM jobs ORDER BY id')).toEqual([
      { id: 1, status: 'cancelled', last_error: 'consolidation is off', priority: 2, dedupe_key: 'memcell:a' },
      { id: 2, status: 'failed', last_error: 'LLM_UNAVAILABLE: down', priority: 0, dedupe_key: 'memcell:b' },
      { id: 3, status: 'done', last_error: null, priority: 0, dedupe_key: 'memcell:c' },
    ]);
    expect(await db.query('SELECT id, job_id FROM llm_calls ORDER BY id')).toEqual([
      { id: 10, job_id: 3 },
      { id: 11, job_id: null },
    ]);
    expect(await db.query('PRAGMA foreign_key_check')).toEqual([]);
    expect(
      (
        await db.query<{ name: string }>(
          "SELECT name FROM sqlite_schema WHERE tbl_name = 'jobs' AND type = 'index' AND sql IS NOT NULL ORDER BY name",
        )
      ).map((r) => r.name),
    ).toEqual(['jobs_by_priority', 'jobs_by_status']);
    await expect(
      db.exec("INSERT INTO jobs (kind, dedupe_key, created_at, updated_at) VALUES ('k', 'memcell:a', 1, 1)"),
    ).rejects.toMatchObject({ code: 'SQL_ERROR' });
  });

  it('rolls back a failing migration entirely, leaving the previous version', async () => {
    const db = await openMemoryDatabase();
    const broken = [
      ...MIGRATIONS,
      { version: LATEST_SCHEMA_VERSION + 1, name: 'broken', sql: 'CREATE TABLE half_done (x); SELECT * FROM no_such_table;' },
    ];
    await expect(migrate(db, broken, LATEST_SCHEMA_VERSION + 1)).rejects.toMatchObject({ code: 'SQL_ERROR' });
    expect(await schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    const rows = await db.query("SELECT name FROM sqlite_schema WHERE name = 'half_done'");
    expect(rows).toHaveLength(0);
  });

  it('refuses a database from a newer Recollect', async () => {
    const db = await openMemoryDatabase();
    await db.exec(`PRAGMA user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    await expect(migrate(db)).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW' });
  });

  it('refuses to migrate a foreign SQLite database', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await db.exec('CREATE TABLE contacts (name TEXT)');
    await expect(migrate(db)).rejects.toMatchObject({ code: 'IMPORT_NOT_RECOLLECT' });
  });
});
