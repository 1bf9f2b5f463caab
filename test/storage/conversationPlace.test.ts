/**
 * Schema v15: pinned, archived and a model of its own per conversation. Conversations made before
 * it are in the list, unpinned, answering with the default; the columns refuse a malformed model.
 */
import { describe, expect, it } from 'vitest';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { migrate, schemaVersion } from '../../src/storage/migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/storage/schema';
import { listConversations } from '../../src/storage/conversationRepo';

const LONG_TURN = `The flat in Leipzig needs the heating checked before winter. ${'The landlord wants the meter readings from the last three months, and the table below is what I copied from the boiler panel on Sunday evening. '.repeat(7)}
| month | reading | note |
|---|---|---|
| August | 1,204 | summer |

\`\`\`text
boiler: Vaillant ecoTEC, pressure 1.4 bar
\`\`\``;

describe('conversations in schema v15', () => {
  it('v15 keeps older conversations listed, unpinned, on the default model, with their turns', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 14);
    await db.exec(
      "INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('old', 'Heating in Leipzig', 1700000000000, 1700000000000)",
    );
    await db.exec(
      "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('m1', 'old', 1, 'user', 'You', ?, 1700000000000, 1700000000000, 260)",
      [LONG_TURN],
    );
    await migrate(db);
    expect(await schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    const [c] = await listConversations(db);
    expect(c).toMatchObject({ id: 'old', title: 'Heating in Leipzig', messageCount: 1, pinned: false, archived: false, model: null });
    await expect(db.exec("UPDATE conversations SET answer_model = 'gpt-4o' WHERE id = 'old'")).rejects.toMatchObject({ code: 'SQL_ERROR' });
    await expect(db.exec("UPDATE conversations SET answer_model = 'endpoint:' WHERE id = 'old'")).rejects.toMatchObject({
      code: 'SQL_ERROR',
    });
  });

  it('pins, archives and sets a model without touching the conversation’s time; NOT_FOUND for a missing one', async () => {
    const store = await openNodeStore();
    const a = await store.createConversation({ id: 'a', title: 'Heating in Leipzig' });
    await store.createConversation({ id: 'b', title: '北京的天气' });
    const pinned = await store.placeConversation('a', { pinned: true });
    expect(pinned).toMatchObject({ pinned: true, archived: false, updatedAt: a.updatedAt });
    expect(await store.placeConversation('a', { archived: true })).toMatchObject({ pinned: true, archived: true });
    expect(await store.placeConversation('a', { pinned: false, archived: false })).toMatchObject({ pinned: false, archived: false });
    expect(await store.setConversationModel('b', { kind: 'endpoint', name: 'qwen2.5:7b' })).toMatchObject({
      model: { kind: 'endpoint', name: 'qwen2.5:7b' },
    });
    expect(await store.setConversationModel('a', { kind: 'device' })).toMatchObject({ model: { kind: 'device' } });
    expect((await store.listConversations()).map((c) => [c.id, c.model])).toEqual(
      expect.arrayContaining([
        ['a', { kind: 'device' }],
        ['b', { kind: 'endpoint', name: 'qwen2.5:7b' }],
      ]),
    );
    expect(await store.setConversationModel('b', null)).toMatchObject({ model: null });
    await expect(store.placeConversation('gone', { pinned: true })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.setConversationModel('gone', null)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
