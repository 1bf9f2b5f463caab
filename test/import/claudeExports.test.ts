import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseClaudeConversation } from '../../src/import/claude';
import { importHistoryFile, parseArgs } from '../../scripts/import-history';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { claudeBranchedConversations } from './historyFixtures';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('Claude exports of 2025–2026', () => {
  it('imports only the branch that ends at the newest message', () => {
    const c = parseClaudeConversation(claudeBranchedConversations[0]);
    expect(c.turns.map((t) => [t.id, t.role, t.content])).toEqual([
      ['claude:h1', 'user', 'What is a good name for a sourdough starter?'],
      ['claude:a1', 'assistant', 'How about Clint Yeastwood?'],
      ['claude:h2b', 'user', 'Something funnier, please.'],
      ['claude:a2b2', 'assistant', 'Jake Gyllenhal-dough.'],
    ]);
  });

  it("keeps a pasted attachment's text in the user's turn and an artifact's final text, once, marked as a document", () => {
    const c = parseClaudeConversation(claudeBranchedConversations[1]);
    expect(c.turns[0]!.content).toBe(
      'Turn my notes into a cover letter.\n[file: paste.txt]\nNotes: eight years of bridge inspection; chartered engineer; moving to Porto in May.',
    );
    expect(c.turns[1]!.content).toBe('Here is a first draft.\n\n[document: Cover letter]');
    expect(c.turns[3]!.content).toBe(
      '[document: Cover letter]\nDear hiring team,\n\nI have inspected bridges for eight years as a chartered engineer.\n\nBest regards\n\nDone: the letter now says you are chartered.',
    );
    expect(c.turns.map((t) => t.content).join('\n')).not.toContain('[tool: artifacts]');
  });

  it('npm run import stores the visible branch, the paste and the document, searchable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-claude-'));
    dirs.push(dir);
    const input = join(dir, 'conversations.json');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, JSON.stringify(claudeBranchedConversations));
    expect((await importHistoryFile(parseArgs([input, '--out', out]))).summary).toMatch(/^2 conversations, 8 turns imported\.$/);
    const app = await openNodeStore();
    try {
      await app.importDatabase(new Uint8Array(await readFile(out)));
      expect(await app.searchMessages('Audrey Hepburn')).toEqual([]);
      expect((await app.searchMessages('Gyllenhal')).map((h) => h.message.id)).toEqual(['claude:a2b2']);
      expect((await app.searchMessages('Porto')).map((h) => h.message.id)).toEqual(['claude:d1']);
      expect((await app.searchMessages('chartered engineer hiring')).map((h) => h.message.id)).toContain('claude:d4');
    } finally {
      await app.db.close();
    }
  });
});
