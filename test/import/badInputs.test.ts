/**
 * History files with odd corners real exports and damaged files have: a date beyond what a
 * calendar can show, typed input with such a date. One bad item is skipped and counted; the rest
 * of the file is stored, and nothing out of range reaches the database.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { readHistory } from '../../src/import/readHistory';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { claudeConversations } from './historyFixtures';

let store: SqliteMemoryStore | null = null;
afterEach(async () => {
  await store?.db.close();
  store = null;
});

async function engine() {
  store = await openNodeStore();
  return new MemoryEngine({ store, episodes: store.episodes, jobs: store.jobs, historyReader: readHistory });
}

const file = (entries: unknown, name = 'conversations.json') => new File([JSON.stringify(entries)], name);

describe('dates out of range', () => {
  it('a Claude export with created_at 9e15 on one message and on a conversation: that turn is skipped and counted, the rest stored', async () => {
    const e = await engine();
    const [sourdough] = claudeConversations;
    const broken = {
      ...sourdough, created_at: 9e15,
      chat_messages: sourdough!.chat_messages.map((m, i) => (i === 1 ? { ...m, created_at: 9e15 } : m)),
    };
    const report = await e.importHistory(file([broken]), { format: 'auto', importId: 'dates' });
    expect(report).toMatchObject({ format: 'claude', conversations: 1, turns: 2 });
    expect(report.skipped).toEqual([{ reason: 'turns with an impossible date (not between 1900 and 2999)', count: 1 }]);
    const [conversation] = await e.listConversations();
    // The conversation's own date was impossible too: it takes its first turn's.
    expect(conversation!.createdAt).toBe(Date.parse('2024-02-01T09:00:00.000Z'));
    const rows = await store!.db.query<{ n: number }>('SELECT count(*) AS n FROM messages WHERE occurred_at > 8.64e15 OR occurred_at < -2208988800000');
    expect(rows[0]!.n).toBe(0);
  });

  it('typed input with a time no calendar can show is refused before anything is written', async () => {
    const e = await engine();
    const c = await e.createConversation({ title: 'x' });
    await expect(e.appendTurn({ id: 't1', conversationId: c.id, role: 'user', content: 'hello', occurredAt: 9e15 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(e.appendTurn({ id: 't2', conversationId: c.id, role: 'user', content: 'hello', occurredAt: -9e15 })).rejects.toThrow(/between 1900 and 2999/);
    expect((await e.stats()).messageCount).toBe(0);
  });
});
