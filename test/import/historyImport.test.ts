import { describe, expect, it } from 'vitest';
import { historyEngines } from '../support/historyEngine';
import { readHistory } from '../../src/import/readHistory';
import type { HistoryProgress } from '../../src/core/base/historyImport';
import { T0, chatGptJson, chatGptZip, lisbonTurns } from './historyFixtures';

const { engine } = historyEngines();

const zipFile = () => new File([chatGptZip() as Uint8Array<ArrayBuffer>], 'chatgpt-export.zip');

describe('history import through the engine', () => {
  it('stores turns with their original times and titles, reports counts and skips, and adds nothing the second time', async () => {
    const e = await engine();
    const progress: HistoryProgress[] = [];
    const first = await e.data.importHistory(zipFile(), { format: 'auto', importId: 'one' }, (p) => progress.push(p));
    expect(first).toMatchObject({ format: 'chatgpt', conversations: 2, turns: 8, alreadyPresent: 0, cancelled: false });
    expect(first.skipped).toEqual(
      expect.arrayContaining([
        { reason: 'empty conversations', count: 1 },
        { reason: 'conversations without an id or message tree', count: 1 },
      ]),
    );
    expect(first.summary).toMatch(
      /^2 conversations, 8 turns imported; 2 skipped: 1 (empty conversations|conversations without an id or message tree), 1 /,
    );
    expect(progress.at(-1)).toMatchObject({
      phase: 'importing',
      conversations: 2,
      turns: 8,
      bytesRead: zipFile().size,
      bytesTotal: zipFile().size,
    });

    const conversations = await e.conversations.list();
    const lisbon = conversations.find((c) => c.id === 'chatgpt:conv-lisbon')!;
    expect(lisbon.title).toBe('Trip to Lisbon 🇵🇹');
    expect(lisbon.createdAt).toBe(T0 * 1000);
    const messages = await e.conversations.messages(lisbon.id);
    expect(messages.map((m) => m.content)).toEqual(lisbonTurns);
    expect(messages[1]!.occurredAt).toBe((T0 + 20) * 1000);
    // Indexed through the normal write path: full-text search finds the turn.
    const [hit] = await e.conversations.search('pastéis Belém');
    expect(hit?.message.id).toBe('chatgpt:conv-lisbon:a1');

    const again = await e.data.importHistory(zipFile(), { format: 'auto', importId: 'two' });
    expect(again).toMatchObject({ conversations: 0, turns: 0, alreadyPresent: 8 });
    expect((await e.data.stats()).messageCount).toBe(8);
  });

  it('the import after a scan of the same file uses what the scan read: the file is read once', async () => {
    let reads = 0;
    const counting: typeof readHistory = (file, options) => {
      reads++;
      return readHistory(file, options);
    };
    const e = await engine(counting);
    const file = new File([chatGptJson()], 'conversations.json', { lastModified: 1_700_000_000_000 });
    const scan = await e.data.scanHistory(file, { format: 'auto', importId: 's1' });
    const progress: HistoryProgress[] = [];
    const report = await e.data.importHistory(file, { format: scan.format!, importId: 'i1' }, (p) => progress.push(p));
    expect(reads).toBe(1);
    expect(report).toMatchObject({ conversations: 2, turns: 8 });
    expect(progress.at(-1)).toMatchObject({ bytesRead: file.size, bytesTotal: file.size });
    // Another file (or the same one changed since) is read again.
    const changed = new File([chatGptJson()], 'conversations.json', { lastModified: 1_700_000_000_001 });
    expect(await e.data.importHistory(changed, { format: 'auto', importId: 'i2' })).toMatchObject({ alreadyPresent: 8 });
    expect(reads).toBe(2);
  });

  it('sets the chosen consolidation policy before writing', async () => {
    const e = await engine();
    await e.data.importHistory(zipFile(), { format: 'chatgpt', importId: 'p', policy: 'off' });
    expect(await e.synthesis.policy()).toBe('off');
  });

  it('scans without writing and estimates synthesis per policy (eager ≥ recurrence ≥ off = 0)', async () => {
    const e = await engine();
    const scan = await e.data.scanHistory(new File([chatGptJson()], 'conversations.json'), { format: 'auto', importId: 's' });
    expect(scan).toMatchObject({ format: 'chatgpt', conversations: 2, turns: 8, cancelled: false });
    // Lisbon (one day, 6 turns) and the coffee chat (another day) are two episodes at least.
    expect(scan.episodes).toBe(2);
    const by = Object.fromEntries(scan.estimates.map((x) => [x.policy, x]));
    expect(by.eager!.calls.low).toBeGreaterThanOrEqual(2);
    expect(by.eager!.promptTokens.low).toBeGreaterThan(by.recurrence!.promptTokens.high);
    expect(by.off).toMatchObject({ calls: { low: 0, high: 0 }, promptTokens: { low: 0, high: 0 } });
    expect((await e.data.stats()).messageCount).toBe(0);
  });

  it('cancel stops the run after the current conversation and keeps what was committed', async () => {
    const e = await engine();
    const many = Array.from({ length: 40 }, (_, i) => ({
      id: `c${i}`,
      title: `Chat ${i}`,
      create_time: T0 + i,
      current_node: 'b',
      mapping: {
        a: {
          id: 'a',
          parent: null,
          children: ['b'],
          message: {
            id: `m${i}a`,
            author: { role: 'user' },
            create_time: T0 + i,
            content: { content_type: 'text', parts: [`question ${i}`] },
          },
        },
        b: {
          id: 'b',
          parent: 'a',
          children: [],
          message: {
            id: `m${i}b`,
            author: { role: 'assistant' },
            create_time: T0 + i + 1,
            content: { content_type: 'text', parts: [`answer ${i}`] },
          },
        },
      },
    }));
    let cancelled = false;
    const report = await e.data.importHistory(
      new File([JSON.stringify(many)], 'conversations.json'),
      { format: 'chatgpt', importId: 'c' },
      (p) => {
        if (!cancelled && p.conversations >= 1) {
          cancelled = true;
          void e.data.cancelHistoryImport('c');
        }
      },
    );
    expect(report.cancelled).toBe(true);
    expect(report.summary.startsWith('Cancelled.')).toBe(true);
    expect(report.conversations).toBeLessThan(40);
    expect((await e.data.stats()).messageCount).toBe(report.turns);
  });
});
