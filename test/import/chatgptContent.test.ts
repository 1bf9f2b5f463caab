import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseChatGptConversation, stripCitations } from '../../src/import/chatgpt';
import { importHistoryFile, parseArgs } from '../../scripts/import-history';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { chatGptRich, chatGptShardedZip, richTurns } from './historyFixtures';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('what ChatGPT exports hold besides text', () => {
  it('keeps the final Canvas document, one placeholder per upload, generated images, and no citation markup', () => {
    const c = parseChatGptConversation(chatGptRich[0]);
    expect(c.turns.map((t) => t.content)).toEqual(richTurns);
    expect(c.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'assistant', 'user', 'assistant']);
    expect(c.turns.map((t) => t.content).join('')).not.toMatch(/[\ue200-\ue2ff]|【|†/);
  });

  it('strips citation markup without touching code indentation', () => {
    expect(stripCitations('```py\n    x = 1  # two spaces\n```')).toBe('```py\n    x = 1  # two spaces\n```');
    expect(stripCitations('Lisbon is hilly 【12:3†guide.pdf】.')).toBe('Lisbon is hilly.');
  });

  it('npm run import reads a sharded 2026 export (conversations-000.json, -001.json) and the document is searchable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-rich-'));
    dirs.push(dir);
    const input = join(dir, 'chatgpt-export.zip');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, chatGptShardedZip());
    expect((await importHistoryFile(parseArgs([input, '--out', out]))).summary).toMatch(/^2 conversations, 9 turns imported\.$/);
    const app = await openNodeStore();
    try {
      await app.importDatabase(new Uint8Array(await readFile(out)));
      expect((await app.searchMessages('headlamp boots')).map((h) => h.message.id)).toContain('chatgpt:conv-rich:a3');
      expect(await app.searchMessages('turn0search3')).toEqual([]);
    } finally {
      await app.db.close();
    }
  });
});
