import { describe, expect, it } from 'vitest';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { migrate } from '../../src/storage/migrate';
import { LATEST_SCHEMA_VERSION } from '../../src/storage/schema';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import type { WaSqliteDatabase } from '../../src/storage/WaSqliteDatabase';
import { markedMemoryV10 } from '../support/oldMemories';

const MARKUP = /[\ue200-\ue2ff]|【[^】]*†[^】]*】/;

async function indexedTerms(db: WaSqliteDatabase, table: 'messages_fts' | 'turns_fts'): Promise<string[]> {
  await db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_vocab USING fts5vocab(main, ${table}, row)`);
  return (await db.query<{ term: string }>(`SELECT term FROM temp.${table}_vocab`)).map((r) => r.term);
}

describe('v11: ChatGPT markup stored by earlier versions', () => {
  it('strips it from ChatGPT-imported turns (an entity keeps its name), keeps typed text, and both full-text indexes follow', async () => {
    const db = await markedMemoryV10();
    const store = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
    try {
      expect((await indexedTerms(db, 'messages_fts')).some((t) => /[\ue200-\ue2ff]/.test(t))).toBe(true);
      await migrate(db);
      const turns = await store.listMessages('chatgpt:c1');
      expect(turns.map((m) => m.content)).toEqual([
        'Which trains run from Porto to Lisbon on Sundays?',
        'The Alfa Pendular runs hourly on Sundays. The Intercidades is slower but cheaper.',
        'Your packing list mentions the rail pass, and the station is Porto Campanhã.',
        'The older answers cited the guide like this and this.',
      ]);
      expect(turns[1]!.tokenCount).toBe(Math.ceil(turns[1]!.content.length / 4));
      expect((await store.listMessages('typed'))[0]!.content).toBe('I wrote 【note†mine】 on purpose');
      for (const table of ['messages_fts', 'turns_fts'] as const) {
        const terms = await indexedTerms(db, table);
        expect(terms.filter((t) => /[\ue200-\ue2ff]/.test(t) || /turn0search|image_group|filecite/.test(t))).toEqual([]);
        expect(terms).toContain('pendular');
      }
      expect((await store.searchMessages('Campanhã')).map((h) => h.message.id)).toEqual(['chatgpt:c1:m3']);
      expect((await store.searchMessages('Intercidades')).map((h) => h.message.id)).toEqual(['chatgpt:c1:m2']);
      // A second run (the migration is done) changes nothing.
      expect(await migrate(db)).toEqual({ from: LATEST_SCHEMA_VERSION, to: LATEST_SCHEMA_VERSION });
    } finally {
      await db.close();
    }
  });

  it('an old backup (schema 10) imports without the markup, and reports the turns it had', async () => {
    const db = await markedMemoryV10();
    const old = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
    const target = await openNodeStore();
    try {
      expect(await target.importDatabase(await old.exportDatabase())).toMatchObject({
        fromSchemaVersion: 10,
        schemaVersion: LATEST_SCHEMA_VERSION,
        messageCount: 5,
      });
      const contents = (await target.listMessages('chatgpt:c1')).map((m) => m.content);
      expect(contents.filter((c) => MARKUP.test(c))).toEqual([]);
      expect((await target.searchMessages('Pendular')).map((h) => h.message.id)).toEqual(['chatgpt:c1:m2']);
    } finally {
      await target.db.close();
      await db.close();
    }
  });
});
