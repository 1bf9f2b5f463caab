/**
 * History files with odd corners real exports and damaged files have: a date beyond what a
 * calendar can show, typed input with such a date. One bad item is skipped and counted; the rest
 * of the file is stored, and nothing out of range reaches the database.
 */
import { describe, expect, it } from 'vitest';
import { historyEngines } from '../support/historyEngine';
import { strToU8, zipSync } from 'fflate';
import { claudeConversations } from './historyFixtures';

const { engine, store } = historyEngines();

const file = (entries: unknown, name = 'conversations.json') => new File([JSON.stringify(entries)], name);

describe('dates out of range', () => {
  it('a Claude export with created_at 9e15 on one message and on a conversation: that turn is skipped and counted, the rest stored', async () => {
    const e = await engine();
    const [sourdough] = claudeConversations;
    const broken = {
      ...sourdough,
      created_at: 9e15,
      chat_messages: sourdough!.chat_messages.map((m, i) => (i === 1 ? { ...m, created_at: 9e15 } : m)),
    };
    const report = await e.data.importHistory(file([broken]), { format: 'auto', importId: 'dates' });
    expect(report).toMatchObject({ format: 'claude', conversations: 1, turns: 2 });
    expect(report.skipped).toEqual([{ reason: 'turns with an impossible date (not between 1900 and 2999)', count: 1 }]);
    const [conversation] = await e.conversations.list();
    // The conversation's own date was impossible too: it takes its first turn's.
    expect(conversation!.createdAt).toBe(Date.parse('2024-02-01T09:00:00.000Z'));
    const rows = await store().db.query<{ n: number }>(
      'SELECT count(*) AS n FROM messages WHERE occurred_at > 8.64e15 OR occurred_at < -2208988800000',
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('typed input with a time no calendar can show is refused before anything is written', async () => {
    const e = await engine();
    const c = await e.conversations.create({ title: 'x' });
    await expect(
      e.conversations.appendTurn({ id: 't1', conversationId: c.id, role: 'user', content: 'hello', occurredAt: 9e15 }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      e.conversations.appendTurn({ id: 't2', conversationId: c.id, role: 'user', content: 'hello', occurredAt: -9e15 }),
    ).rejects.toThrow(/between 1900 and 2999/);
    expect((await e.data.stats()).messageCount).toBe(0);
  });
});

describe('odd corners of real files', () => {
  it('a null first entry is skipped and counted; the conversations after it are imported', async () => {
    const e = await engine();
    const report = await e.data.importHistory(file([null, ...claudeConversations]), { format: 'auto', importId: 'null' });
    expect(report).toMatchObject({ format: 'claude', conversations: 1, turns: 3 });
    expect(report.skipped).toEqual(expect.arrayContaining([{ reason: 'entries that are not conversations', count: 1 }]));
  });

  it('a conversation repeated with the same id is stored once and counted in the summary', async () => {
    const e = await engine();
    const [sourdough] = claudeConversations;
    const report = await e.data.importHistory(file([sourdough, sourdough]), { format: 'auto', importId: 'dupes' });
    expect(report).toMatchObject({ conversations: 1, turns: 3 });
    expect(report.summary).toContain('1 repeated conversations (same id; stored once)');
  });

  it('a valid zip of 3,000 small members (attachments) and conversations.json imports without a stack overflow', async () => {
    const e = await engine();
    const members: Record<string, Uint8Array> = {};
    for (let i = 0; i < 3_000; i++) members[`file-${String(i).padStart(4, '0')}.txt`] = strToU8(`attachment ${i}`);
    members['conversations.json'] = strToU8(JSON.stringify(claudeConversations));
    // Stored (level 0) as export tools do for tiny files, so all 3,000 headers arrive in one chunk.
    const zip = zipSync(members, { level: 0 });
    const report = await e.data.importHistory(new File([zip as Uint8Array<ArrayBuffer>], 'claude-export.zip'), {
      format: 'auto',
      importId: 'many',
    });
    expect(report).toMatchObject({ format: 'claude', conversations: 1, turns: 3 });
  });

  it('a zip bomb is refused with a reason that says so, without inflating it all', async () => {
    const e = await engine();
    // 128 MB of JSON whitespace after "[" (a valid start, so only the size can give it away) → about 125 KB deflated.
    const bomb = new Uint8Array(128 * 1024 * 1024).fill(0x20);
    bomb[0] = 0x5b;
    const zip = zipSync({ 'conversations.json': bomb }, { level: 9 });
    expect(zip.byteLength).toBeLessThan(1_000_000);
    const before = process.memoryUsage().arrayBuffers;
    await expect(
      e.data.importHistory(new File([zip as Uint8Array<ArrayBuffer>], 'export.zip'), { format: 'auto', importId: 'bomb' }),
    ).rejects.toThrow(/looks like a zip bomb/);
    // Bounded: it stopped after about 64 MB inflated, not 128 MB.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(110 * 1024 * 1024);
  });
});
