import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { readHistory } from '../../src/import/readHistory';
import { importHistoryFile, parseArgs } from '../../scripts/import-history';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { T0, chatGptBranchCopies } from './historyFixtures';

let store: SqliteMemoryStore | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await store?.db.close();
  store = null;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function engine() {
  store = await openNodeStore();
  return new MemoryEngine({ store, episodes: store.episodes, jobs: store.jobs, historyReader: readHistory });
}

const file = () => new File([JSON.stringify(chatGptBranchCopies)], 'conversations.json');

describe('ChatGPT "Branch in new chat" copies', () => {
  it('keeps both the copy and the original whole, leaves no empty shell for a refused conversation, and adds nothing the second time', async () => {
    const e = await engine();
    const report = await e.data.importHistory(file(), { format: 'auto', importId: 'b1' });
    expect(report).toMatchObject({ conversations: 2, turns: 7, alreadyPresent: 0 });
    expect(report.summary).toMatch(/^2 conversations, 7 turns imported; 1 skipped: 1 conversation refused/);
    const list = await e.conversations.list();
    // The summary counts what is in memory, and every conversation in the sidebar has turns.
    expect(list.map((c) => [c.id, c.messageCount])).toEqual([
      ['chatgpt:conv-branch', 3],
      ['chatgpt:conv-original', 4],
    ]);
    expect((await e.data.stats()).messageCount).toBe(report.turns);
    expect((await e.conversations.messages('chatgpt:conv-original')).map((m) => m.content)).toEqual([
      'Draft a packing list for a week of hiking in the Dolomites.',
      'Boots, layers, rain shell, map, headlamp, first-aid kit.',
      'Add snacks for the huts.',
      'Trail mix, cheese, speck and dark chocolate.',
    ]);
    const again = await e.data.importHistory(file(), { format: 'auto', importId: 'b2' });
    expect(again).toMatchObject({ conversations: 0, turns: 0, alreadyPresent: 7 });
    expect((await e.conversations.list()).length).toBe(2);
  });

  it('the sidebar keeps the export order (newest conversation first), not the import order', async () => {
    const e = await engine();
    await e.data.importHistory(file(), { format: 'auto', importId: 'o' });
    const [branch, original] = await e.conversations.list();
    expect(branch!.updatedAt).toBe((T0 + 5_050) * 1000);
    expect(original!.updatedAt).toBe((T0 + 160) * 1000);
  });

  it('a memory imported by an earlier version (ids chatgpt:<message>) gets nothing twice', async () => {
    const e = await engine();
    await store!.createConversation({ id: 'chatgpt:conv-original', title: 'Packing list', createdAt: (T0 + 90) * 1000 });
    await store!.appendTurns([
      {
        id: 'chatgpt:s1',
        conversationId: 'chatgpt:conv-original',
        role: 'user',
        content: 'Draft a packing list for a week of hiking in the Dolomites.',
        occurredAt: (T0 + 100) * 1000,
      },
      {
        id: 'chatgpt:s2',
        conversationId: 'chatgpt:conv-original',
        role: 'assistant',
        content: 'Boots, layers, rain shell, map, headlamp, first-aid kit.',
        occurredAt: (T0 + 110) * 1000,
      },
    ]);
    const report = await e.data.importHistory(file(), { format: 'auto', importId: 'l' });
    expect(report).toMatchObject({ conversations: 2, turns: 5, alreadyPresent: 2 });
    expect((await e.conversations.messages('chatgpt:conv-original')).length).toBe(4);
  });

  it('npm run import stores both conversations whole', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-branch-'));
    dirs.push(dir);
    const input = join(dir, 'conversations.json');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, JSON.stringify(chatGptBranchCopies));
    expect((await importHistoryFile(parseArgs([input, '--out', out]))).summary).toMatch(/^2 conversations, 7 turns imported/);
    store = await openNodeStore();
    expect(await store.importDatabase(new Uint8Array(await readFile(out)))).toMatchObject({ messageCount: 7, conversationCount: 2 });
  });
});
