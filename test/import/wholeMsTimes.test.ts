import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importHistoryFile, parseArgs } from '../../scripts/import-history';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { readHistory } from '../../src/import/readHistory';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/storage/schema';
import { migrate } from '../../src/storage/migrate';
import { T_MICRO, chatGptMicroseconds } from './historyFixtures';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Every non-whole value in the time columns of the database (should be none). */
async function fractionalTimes(store: SqliteMemoryStore): Promise<unknown[]> {
  return store.db
    .query(`SELECT 'messages' AS t, occurred_at AS v FROM messages WHERE typeof(occurred_at) <> 'integer' OR typeof(ingested_at) <> 'integer'
    UNION ALL SELECT 'conversations', created_at FROM conversations WHERE typeof(created_at) <> 'integer' OR typeof(updated_at) <> 'integer'`);
}

describe('times are whole ms everywhere', () => {
  it('a ChatGPT export with microsecond times goes through npm run import into a file the app imports again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-micro-'));
    dirs.push(dir);
    const input = join(dir, 'conversations.json');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, JSON.stringify(chatGptMicroseconds));
    expect((await importHistoryFile(parseArgs([input, '--out', out]))).summary).toMatch(/^1 conversation, 2 turns imported/);
    const app = await openNodeStore();
    try {
      expect(await app.importDatabase(new Uint8Array(await readFile(out)))).toMatchObject({ messageCount: 2, conversationCount: 1 });
      const messages = await app.listMessages('chatgpt:conv-micro');
      expect(messages.map((m) => m.occurredAt)).toEqual([
        Math.round((T_MICRO + 1.000_777) * 1000),
        Math.round((T_MICRO + 3.456_789) * 1000),
      ]);
      expect(await fractionalTimes(app)).toEqual([]);
    } finally {
      await app.db.close();
    }
  });

  it("the app's own export after a ChatGPT import imports again", async () => {
    const store = await openNodeStore({ clock: { now: () => 1_732_000_000_000.25 } });
    const engine = new MemoryEngine({ store, episodes: store.episodes, jobs: store.jobs, historyReader: readHistory });
    const target = await openNodeStore();
    try {
      await engine.data.importHistory(new File([JSON.stringify(chatGptMicroseconds)], 'conversations.json'), {
        format: 'auto',
        importId: 'm',
      });
      expect(await fractionalTimes(store)).toEqual([]);
      expect(await target.importDatabase(await engine.data.exportDatabase())).toMatchObject({ messageCount: 2 });
    } finally {
      await store.db.close();
      await target.db.close();
    }
  });

  it('repairs fractional times already stored: an old backup (schema 7) restores, and an existing memory is rounded when opened', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 7);
    const t = (T_MICRO + 1.000_777) * 1000;
    await db.exec('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)', [
      'chatgpt:conv-micro',
      'Microsecond times',
      T_MICRO * 1000,
      t,
    ]);
    await db.exec(
      "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('chatgpt:m1', 'chatgpt:conv-micro', 1, 'user', 'User', 'Tordesillas treaty', ?, ?, 4)",
      [t, t],
    );
    await db.exec("INSERT INTO jobs (kind, payload, run_after, created_at, updated_at) VALUES ('embed', '{}', ?, ?, ?)", [t, t, t]);
    await db.exec("INSERT INTO llm_calls (stage, model, latency_ms, outcome, created_at) VALUES ('answer', 'm', 12.5, 'ok', ?)", [t]);
    const old = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
    const backup = await old.exportDatabase();

    const target = await openNodeStore();
    try {
      expect(await target.importDatabase(backup)).toMatchObject({
        fromSchemaVersion: 7,
        schemaVersion: LATEST_SCHEMA_VERSION,
        messageCount: 1,
      });
      expect((await target.listMessages('chatgpt:conv-micro'))[0]!.occurredAt).toBe(Math.round(t));
      expect(await fractionalTimes(target)).toEqual([]);
      const [job] = await target.db.query<{ run_after: number }>('SELECT run_after FROM jobs');
      expect(job!.run_after).toBe(Math.round(t));
      const [call] = await target.db.query<{ latency_ms: number }>('SELECT latency_ms FROM llm_calls');
      expect(call!.latency_ms).toBe(13);
      // The search index follows the repaired turn.
      expect((await target.searchMessages('Tordesillas')).map((h) => h.message.id)).toEqual(['chatgpt:m1']);
      // And the re-export is accepted in turn.
      expect(await (await openNodeStore()).importDatabase(await target.exportDatabase())).toMatchObject({ messageCount: 1 });

      // The same memory opened in place (an existing user's OPFS database) is repaired by the migration.
      await migrate(db);
      expect(await fractionalTimes(old)).toEqual([]);
      // The turn index's update trigger, set aside during the repair, is back exactly as a new database has it.
      const triggerSql = 'SELECT sql FROM sqlite_schema WHERE name = ?';
      expect(await db.query(triggerSql, ['turns_fts_update'])).toEqual(await target.db.query(triggerSql, ['turns_fts_update']));
      expect((await db.query(triggerSql, ['turns_fts_update'])).length).toBe(1);
    } finally {
      await target.db.close();
      await db.close();
    }
  });

  it('still refuses a fractional value in a current-schema file, and in a column that is not a time', async () => {
    const source = await openNodeStore();
    await source.createConversation({ id: 'c', title: 'C', createdAt: 5 });
    await source.db.exec(
      "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('x', 'c', 1, 'user', 'User', 'hello', 1.5, 1, 2)",
    );
    const target = await openNodeStore();
    await expect(target.importDatabase(await source.exportDatabase())).rejects.toMatchObject({ code: 'IMPORT_INVALID_DATA' });
  });
});
