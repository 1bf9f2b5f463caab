import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TranscriptParser } from '../../src/import/transcript';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { readHistory } from '../../src/import/readHistory';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { importHistoryFile, parseArgs } from '../../scripts/import-history';
import { ambiguousTranscript, boldLabelTranscript, headingTranscript, nameLineTranscript } from './historyFixtures';

const NOW = Date.UTC(2026, 0, 5, 12);

function parse(text: string, name = 'chat.md') {
  const p = new TranscriptParser(name, text.length, NOW);
  // Fed in small pieces, as a stream is: lines cut in the middle must not matter.
  for (let i = 0; i < text.length; i += 7) p.push(text.slice(i, i + 7));
  const conversation = p.end();
  return { conversation, layout: p.layout()!, turns: conversation.turns.map((t) => [t.speaker, t.role, t.content]) };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('transcript layouts', () => {
  it('a heading per speaker (## 👤 User / ## 🤖 Claude): metadata lines and answer bullets are not speakers', () => {
    const { conversation, layout, turns } = parse(headingTranscript);
    expect(conversation.title).toBe('Claude Conversation Log');
    expect(layout).toMatchObject({ layout: 'heading', ambiguous: false });
    expect(turns.map(([s, r]) => [s, r])).toEqual([
      ['User', 'user'],
      ['Claude', 'assistant'],
      ['User', 'user'],
      ['Claude', 'assistant'],
    ]);
    expect(turns[1]![2]).toContain('- **ETag**: a validator');
    expect(turns[1]![2]).toContain('Input: a request for /index.html\nOutput: 304 Not Modified');
    expect(conversation.turns[0]!.occurredAt).toBe(Date.UTC(2025, 6, 14, 9, 12, 44));
  });

  it('bold labels (**Human**: / **GPT**:): the answer\'s own "- **Headers**: …" bullets stay inside the answer', () => {
    const { layout, turns } = parse(boldLabelTranscript);
    expect(layout).toMatchObject({ layout: 'label', ambiguous: false });
    expect(turns.map(([s, r]) => [s, r])).toEqual([
      ['Human', 'user'],
      ['GPT', 'assistant'],
      ['Human', 'user'],
      ['GPT', 'assistant'],
    ]);
    expect(turns[1]![2]).toBe(
      'Markdown has a few basics:\n\n- **Headers**: start a line with `#`.\n- **Emphasis**: wrap words in `*` or `**`.\n- **Lists**: start lines with `-` or `1.`.',
    );
    expect(turns[3]![2]).toContain('| 柿 (kaki) | ¥300 |');
  });

  it('Name: lines: code blocks and a Note: line are part of the answer', () => {
    const { layout, turns } = parse(nameLineTranscript);
    expect(layout.ambiguous).toBe(false);
    expect(turns.map(([s, r]) => [s, r])).toEqual([
      ['User', 'user'],
      ['ChatGPT', 'assistant'],
      ['User', 'user'],
      ['ChatGPT', 'assistant'],
    ]);
    expect(turns[1]![2]).toBe(
      'Here it is:\n```yaml\n# the database\nservices:\n  db:\n    image: postgres:16\n```\nNote: change the password before you deploy.',
    );
  });

  it('says when the reading is uncertain, with the first turns and their roles', () => {
    const { layout } = parse(ambiguousTranscript);
    expect(layout.ambiguous).toBe(true);
    expect(layout.reasons).toContain('no speaker is recognised as the assistant');
    expect(layout.preview.slice(0, 2)).toEqual([
      { speaker: 'Mira', role: 'user', excerpt: 'Did you book the ferry to Hydra?' },
      { speaker: 'Pi', role: 'user', excerpt: 'Not yet — the 9:30 sails daily from Piraeus.' },
    ]);
  });

  it('the scan carries the reading to the app; npm run import stores the heading transcript with its roles', async () => {
    const store = await openNodeStore();
    try {
      const engine = new MemoryEngine({ store, episodes: store.episodes, jobs: store.jobs, historyReader: readHistory });
      const scan = await engine.data.scanHistory(new File([ambiguousTranscript], 'hydra.txt'), { format: 'auto', importId: 's' });
      expect(scan).toMatchObject({ format: 'text', turns: 4, transcript: { ambiguous: true } });
    } finally {
      await store.db.close();
    }
    const dir = await mkdtemp(join(tmpdir(), 'recollect-transcript-'));
    dirs.push(dir);
    const input = join(dir, 'claude-session.md');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, headingTranscript);
    expect((await importHistoryFile(parseArgs([input, '--out', out]))).summary).toMatch(/^1 conversation, 4 turns imported\.$/);
    const app = await openNodeStore();
    try {
      await app.importDatabase(new Uint8Array(await readFile(out)));
      const [c] = await app.listConversations();
      expect((await app.listMessages(c!.id)).map((m) => [m.speaker, m.role])).toEqual([
        ['User', 'user'],
        ['Claude', 'assistant'],
        ['User', 'user'],
        ['Claude', 'assistant'],
      ]);
    } finally {
      await app.db.close();
    }
  });
});
