import { describe, expect, it } from 'vitest';
import { historyEngines } from '../support/historyEngine';
import type { HistoryFile, HistoryProgress } from '../../src/core/base/historyImport';

const { engine, store } = historyEngines();

/** One ChatGPT conversation of `turns` turns of about `chars` characters each. */
function longConversation(turns: number, chars: number): File {
  const t0 = Date.UTC(2024, 0, 1) / 1000;
  const mapping: Record<string, unknown> = { root: { id: 'root', parent: null, children: ['m0'], message: null } };
  for (let k = 0; k < turns; k++) {
    mapping[`m${k}`] = {
      id: `m${k}`,
      parent: k ? `m${k - 1}` : 'root',
      children: k < turns - 1 ? [`m${k + 1}`] : [],
      message: {
        id: `m${k}`,
        author: { role: k % 2 ? 'assistant' : 'user' },
        create_time: t0 + k * 20,
        content: { content_type: 'text', parts: [`word${k} `.padEnd(chars, 'x')] },
        metadata: {},
      },
    };
  }
  return new File(
    [JSON.stringify([{ id: 'long', title: 'Long chat', create_time: t0, current_node: `m${turns - 1}`, mapping }])],
    'conversations.json',
  );
}

describe('big inputs', () => {
  it('a long single conversation is stored in slices with progress between them, counted once', { timeout: 120_000 }, async () => {
    const e = await engine();
    const commits: number[] = [];
    const db = store().db;
    const transaction = db.transaction.bind(db);
    db.transaction = ((work: Parameters<typeof transaction>[0]) =>
      transaction(async (tx) => {
        const out = await work(tx);
        commits.push(Date.now());
        return out;
      })) as typeof db.transaction;
    const progress: HistoryProgress[] = [];
    const file = longConversation(2_100, 200);
    const report = await e.data.importHistory(file, { format: 'chatgpt', importId: 'long' }, (p) => progress.push(p));
    expect(report).toMatchObject({ conversations: 1, turns: 2_100, alreadyPresent: 0, cancelled: false });
    expect(report.summary).toBe('1 conversation, 2,100 turns imported.');
    // Progress while the one conversation was stored (each slice reports; the connection was free between them).
    const during = progress.filter((p) => p.phase === 'importing' && p.turns > 0 && p.turns < 2_100);
    // Slices of 150,000 characters (750 turns of 200): a report after each (2,100 = 750 + 750 + 600).
    expect([...new Set(during.map((p) => p.turns))]).toEqual([750, 1_500]);
    expect(commits.length).toBeGreaterThanOrEqual(3);
    expect((await e.conversations.messages('chatgpt:long')).map((m) => m.seq)).toEqual(Array.from({ length: 2_100 }, (_, i) => i + 1));
    // Re-importing adds nothing, slice by slice.
    expect(await e.data.importHistory(file, { format: 'chatgpt', importId: 'again' })).toMatchObject({
      conversations: 0,
      turns: 0,
      alreadyPresent: 2_100,
    });
  });

  it('reports progress through the bytes while one large entry is read', async () => {
    const e = await engine();
    const progress: HistoryProgress[] = [];
    const bytes = new Uint8Array(await longConversation(300, 1_000).arrayBuffer());
    // A slow disk: the one conversation arrives in pieces 250 ms apart (2.5 s in all: progress on bytes comes every second).
    const piece = Math.ceil(bytes.length / 10);
    let at = 0;
    const file: HistoryFile = {
      size: bytes.length,
      name: 'conversations.json',
      stream: () => ({
        getReader: () => ({
          read: async () => {
            if (at >= bytes.length) return { done: true as const, value: undefined };
            await new Promise((r) => setTimeout(r, 250));
            const value = bytes.subarray(at, (at += piece));
            return { done: false as const, value };
          },
          cancel: async () => undefined,
        }),
      }),
    };
    await e.data.scanHistory(file, { format: 'chatgpt', importId: 'scan' }, (p) => progress.push(p));
    const reading = progress.filter((p) => p.turns === 0 && p.bytesRead > 0 && p.bytesRead < bytes.length);
    // Reading takes at least 2.5 s and bytes are reported each second: two reports at least, each at
    // a whole number of the disk's pieces and moving forward.
    expect(reading.length).toBeGreaterThanOrEqual(2);
    const read = reading.map((p) => p.bytesRead);
    expect(read.every((b) => b % piece === 0)).toBe(true);
    expect(read).toEqual([...read].sort((a, b) => a - b));
  });
});
