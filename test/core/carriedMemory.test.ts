/**
 * Import memory…'s reader and Export memory…'s writer, per shape, with samples written for these
 * tests from each shape's public description: the `[YYYY-MM-DD] - memory` block Claude's import asks
 * another assistant for (with that assistant's sentences around the code block), ChatGPT's
 * model-set context lines and its saved-memory list, Portable AI Memory v1.0 JSON, Markdown and
 * plain lines; and every bad input, each a typed error that yields nothing to import.
 */
import { describe, expect, it } from 'vitest';
import { dayString, memoryIdentity, memoryKind, parseCarriedMemory, type CarryParse } from '../../src/core/base/carriedMemory';
import { contentHash, formatMemoryExport, type ExportedMemory } from '../../src/core/base/memoryExport';

const ZONE = 'Europe/Berlin';
const NOW = Date.UTC(2026, 4, 20, 10);
const opts = { zone: ZONE, now: NOW };
const parse = (text: string) => parseCarriedMemory(text, opts);
function ok(r: CarryParse) {
  if (!r.ok) throw new Error(`expected memories, got ${r.code}: ${r.message}`);
  return r;
}
const days = (r: CarryParse) => ok(r).items.map((m) => (m.at === null ? null : dayString(ZONE, m.at)));

const CLAUDE_STYLE = `Here is everything I have stored about you, one entry per line, as you asked:

\`\`\`
[2025-01-14] - Works as a backend engineer at a logistics start-up in Rotterdam, mostly in Go and PostgreSQL; on call one week in four.
[2025-02-03] - Prefers answers that start with the conclusion, then the reasoning, with shell commands in code blocks and no emoji.
[2025-03-22] - Is planning a two-week cycling trip through the Loire valley in June 2026 with their partner, Sam.
[unknown] - Has a cat called Miso who is allergic to chicken.
[2025-04-02] - Project Atlas runs on PostgreSQL 16 with logical replication to a reporting replica.
\`\`\`

Let me know if you want me to add anything else.`;

describe('reading memory from another assistant', () => {
  it('reads dated lines inside the code block, ignoring the sentences around it', () => {
    const r = ok(parse(CLAUDE_STYLE));
    expect(r.format).toBe('dated-lines');
    expect(r.items.map((m) => m.text)).toEqual([
      'Works as a backend engineer at a logistics start-up in Rotterdam, mostly in Go and PostgreSQL; on call one week in four.',
      'Prefers answers that start with the conclusion, then the reasoning, with shell commands in code blocks and no emoji.',
      'Is planning a two-week cycling trip through the Loire valley in June 2026 with their partner, Sam.',
      'Has a cat called Miso who is allergic to chicken.',
      'Project Atlas runs on PostgreSQL 16 with logical replication to a reporting replica.',
    ]);
    expect(days(r)).toEqual(['2025-01-14', '2025-02-03', '2025-03-22', null, '2025-04-02']);
    expect(r.items.map((m) => m.kind)).toEqual(['about', 'about', 'plan', 'about', 'fact']);
    expect(r.items.every((m) => m.problem === null)).toBe(true);
  });

  it('reads dates written other ways, and lines without a code block', () => {
    const r = ok(
      parse(
        '[March 5, 2025] - Speaks Dutch and English at home.\n[2024-11] - Lives in Utrecht.\n- [2025-06-01T08:30:00Z] Drinks oat milk.',
      ),
    );
    expect(days(r)).toEqual(['2025-03-05', '2024-11-01', '2025-06-01']);
    expect(ok(r).items[2]!.at).toBe(Date.UTC(2025, 5, 1, 8, 30));
  });

  it('reads ChatGPT model-set context lines as ChatGPT memories', () => {
    const r = ok(
      parse(`1. [2024-11-02]. User's name is Priya and she lives in Leeds.
2. [2025-01-19]. Is training for the York half marathon in October 2025.
3. [2025-03-05]. Prefers metric units and British spelling.`),
    );
    expect(r.format).toBe('chatgpt-context');
    expect(r.source).toBe('ChatGPT');
    expect(r.items.map((m) => m.text)[0]).toBe("User's name is Priya and she lives in Leeds.");
    expect(days(r)).toEqual(['2024-11-02', '2025-01-19', '2025-03-05']);
  });

  it('reads the ChatGPT saved-memory list (lines without a subject) as ChatGPT memories, undated', () => {
    const r = ok(
      parse(`Is a secondary-school chemistry teacher in Leeds.
Prefers British spelling and metric units.
Has two children, aged 7 and 10, who both play the cello.
Is planning to move to Edinburgh next summer.
Uses a Kindle for reading and dislikes audiobooks.`),
    );
    expect(r.format).toBe('chatgpt-list');
    expect(r.source).toBe('ChatGPT');
    expect(r.items).toHaveLength(5);
    expect(r.items.every((m) => m.at === null)).toBe(true);
    expect(r.items.map((m) => m.kind)).toEqual(['about', 'about', 'about', 'plan', 'about']);
  });

  it('reads plain one-per-line text with bullets, numbers, labels and repeats', () => {
    const r = ok(
      parse(`Things to remember:
- The team's staging cluster is called "heron".
* The quarterly review is on 12 September.
3. The flat's boiler is a Vaillant ecoTEC from 2019.
- The team's staging cluster is called "heron".`),
    );
    expect(r.format).toBe('lines');
    expect(r.source).toBeNull();
    expect(r.items.map((m) => m.text)).toEqual([
      'The team\'s staging cluster is called "heron".',
      'The quarterly review is on 12 September.',
      "The flat's boiler is a Vaillant ecoTEC from 2019.",
    ]);
    expect(r.skipped).toEqual([
      { count: 1, reason: 'headings or labels' },
      { count: 1, reason: 'repeated in the text' },
    ]);
  });

  it('reads Markdown sections as the kinds they name', () => {
    const r = ok(
      parse(
        '# Memory\n\n## About you\n\n- [2025-01-02] Volunteers at the food bank.\n\n## Plans\n\n- [2026-07-01] Sail to Texel.\n\n## Facts\n\n- The allotment is plot 14.',
      ),
    );
    expect(r.format).toBe('markdown');
    expect(r.items.map((m) => [m.text, m.kind])).toEqual([
      ['Volunteers at the food bank.', 'about'],
      ['Sail to Texel.', 'plan'],
      ['The allotment is plot 14.', 'fact'],
    ]);
  });

  it('reads Portable AI Memory v1.0, skipping memories that are no longer active', () => {
    const file = {
      schema: 'portable-ai-memory',
      schema_version: '1.0',
      owner: { id: 'owner-7' },
      memories: [
        {
          id: 'a',
          type: 'preference',
          content: 'Likes dark roast coffee, no sugar.',
          content_hash: 'sha256:x',
          temporal: { created_at: '2025-02-10T09:00:00Z' },
          provenance: { platform: 'gemini' },
        },
        {
          id: 'b',
          type: 'goal',
          content: 'Wants to run a marathon under four hours in 2026.',
          temporal: { created_at: '2025-05-01T12:00:00Z' },
          provenance: { platform: 'gemini' },
        },
        {
          id: 'c',
          type: 'fact',
          status: 'retracted',
          content: 'Lives in Madrid.',
          temporal: { created_at: '2024-01-01T00:00:00Z' },
          provenance: { platform: 'gemini' },
        },
        {
          id: 'd',
          type: 'context',
          content: 'The home router is a Fritz!Box 7590.',
          temporal: { created_at: '2025-03-03T00:00:00Z' },
          provenance: { platform: 'claude' },
        },
      ],
    };
    const r = ok(parse(JSON.stringify(file, null, 2)));
    expect(r.format).toBe('pam');
    expect(r.source).toBe('Gemini');
    expect(r.items.map((m) => [m.text, m.kind])).toEqual([
      ['Likes dark roast coffee, no sugar.', 'about'],
      ['Wants to run a marathon under four hours in 2026.', 'plan'],
      ['The home router is a Fritz!Box 7590.', 'fact'],
    ]);
    expect(r.items[0]!.at).toBe(Date.UTC(2025, 1, 10, 9));
    expect(r.skipped).toEqual([{ count: 1, reason: 'no longer active (superseded, retracted or archived)' }]);
  });

  it('marks a memory longer than a saved memory holds instead of cutting it', () => {
    const long = `[2025-01-01] - ${'Keeps a detailed log of every climbing session, '.repeat(14)}`;
    const r = ok(parse(`${long}\n[2025-01-02] - Climbs at the Monk gym on Tuesdays.`));
    expect(r.items[0]!.problem).toMatch(/longer than 600 characters/);
    expect(r.items[1]!.problem).toBeNull();
  });

  it('guesses kinds from the words', () => {
    expect(memoryKind('User prefers tea to coffee.')).toBe('about');
    expect(memoryKind('Plans to renovate the kitchen next spring.')).toBe('plan');
    expect(memoryKind('The office Wi-Fi network is "orchard-5g".')).toBe('fact');
    expect(memoryIdentity('  I am   Vegetarian. ')).toBe(memoryIdentity('i am vegetarian'));
  });
});

const TRANSCRIPT = `User: I keep getting "relation does not exist" from my migration script after I renamed the schema. Here's what runs first:

\`\`\`sql
ALTER SCHEMA app RENAME TO billing;
CREATE TABLE invoices (id bigserial primary key, customer_id bigint not null, total_cents integer not null);
\`\`\`

The second step fails on a table I am sure is there. I've tried running it twice, dropping the search_path setting from the role, and reconnecting between the statements, and nothing changes. This is on PostgreSQL 16 in a Docker container, and the same script worked last week before the rename. Any idea what is going on? I'd rather not rebuild the whole database because the staging data took a day to load.
Assistant: The rename moved every table into \`billing\`, but your session's \`search_path\` still lists \`app\`, so unqualified names no longer resolve. Either qualify the names (\`billing.invoices\`) or run \`SET search_path TO billing, public;\` at the start of the script. Because you removed the role's setting, the server default applies, which is \`"$user", public\` — neither of which contains your tables. A quick check: \`SHOW search_path;\` in the same connection as the failing statement.`;

describe('bad input: a clear message and nothing to import', () => {
  const refused = (text: string) => {
    const r = parse(text);
    if (r.ok) throw new Error(`expected a refusal, got ${r.items.length} memories`);
    return r;
  };

  it('refuses an empty paste', () => {
    for (const text of ['', '   \n\t  ', '```\n\n```']) expect(refused(text).code).toBe('EMPTY');
    expect(refused('').message).toMatch(/paste what the other assistant wrote/);
  });

  it('says a chat transcript is a chat, and points to Import chats…', () => {
    const r = refused(TRANSCRIPT);
    expect(r.code).toBe('CHAT');
    expect(r.message).toMatch(/looks like a chat/);
    expect(r.message).toContain('Import chats…');
    // ChatGPT's copy of a conversation: "You said:" / "ChatGPT said:" on lines of their own.
    expect(refused('You said:\nHow long should I boil an egg?\nChatGPT said:\nAbout seven minutes for a jammy yolk.').code).toBe('CHAT');
  });

  it('says a chat export file is a chat export', () => {
    const chatgpt = [{ title: 'Eggs', mapping: { root: { id: 'root', children: [] } } }];
    expect(refused(JSON.stringify(chatgpt)).code).toBe('CHAT');
    const claude = [{ uuid: 'u', name: 'Eggs', chat_messages: [{ sender: 'human', text: 'Hi' }] }];
    expect(refused(JSON.stringify(claude)).message).toContain('Import chats…');
  });

  it('refuses more than 5 MB', () => {
    const r = refused(`[2025-01-01] - ${'x'.repeat(5 * 1024 * 1024)}`);
    expect(r.code).toBe('TOO_LARGE');
    expect(r.message).toMatch(/more than 5 MB/);
    // Counted in UTF-8 bytes: 1.8 million three-byte characters are 5.4 MB.
    expect(refused('記'.repeat(1_800_000)).code).toBe('TOO_LARGE');
  });

  it('refuses broken JSON, saying where it broke', () => {
    const r = refused('{"schema": "portable-ai-memory", "schema_version": "1.0", "memories": [{"content": "Likes tea"');
    expect(r.code).toBe('BROKEN_JSON');
    expect(r.message).toMatch(/broken/);
  });

  it('refuses JSON of another shape, and a Portable AI Memory file of another version', () => {
    expect(refused('{"notes": ["Likes tea"]}').code).toBe('UNKNOWN_JSON');
    expect(refused('["Likes tea", "Lives in Porto"]').message).toMatch(/not a memory format Recollect reads/);
    expect(refused('{"schema": "portable-ai-memory", "schema_version": "2.0", "owner": {"id": "o"}, "memories": []}').message).toMatch(
      /version 2.0/,
    );
    expect(refused('{"schema": "portable-ai-memory", "schema_version": "1.0", "owner": {"id": "o"}, "memories": []}').code).toBe(
      'NO_MEMORIES',
    );
  });
});

describe('writing memory for another assistant', () => {
  const items: ExportedMemory[] = [
    { id: 'p1', kind: 'about', text: 'I am vegetarian and cook lentils every Sunday.', at: Date.UTC(2025, 0, 14, 11) },
    { id: 'p2', kind: 'about', text: 'My API key for the lab is sk-live-4f9a8b7c6d5e and my token is Bearer abc.def.ghi', at: null },
    {
      id: 'f1',
      kind: 'plan',
      text: 'Dentist appointment at 9:30.',
      at: Date.UTC(2026, 5, 2, 7),
      validFrom: Date.UTC(2026, 5, 2, 7),
      validUntil: Date.UTC(2026, 5, 2, 21),
    },
    { id: 'x1', kind: 'fact', text: 'Ana said: the\nallotment is plot 14.', at: Date.UTC(2025, 6, 1, 22, 30) },
  ];
  const o = { zone: ZONE, exportedAt: NOW, ownerId: 'owner-1', exportId: 'export-1', apiKey: 'lab-secret-123' };

  it('hashes content as Portable AI Memory does', async () => {
    // The spec's minimal example.
    expect(await contentHash('User is a cloud infrastructure engineer')).toBe(
      'sha256:e1bae3ec291c99eced01fc91b4152a0cef541fccf2034fc11b3f90f4e4d79b6e',
    );
  });

  it("writes dated lines in the memory's time zone, with secrets redacted", async () => {
    const f = await formatMemoryExport('dated-lines', items, o);
    expect(f.fileName).toBe('recollect-memory-2026-05-20.txt');
    expect(f.text).toBe(
      [
        '[2025-01-14] - I am vegetarian and cook lentils every Sunday.',
        '[unknown] - My API key for the lab is [redacted] and my token is Bearer [redacted]',
        '[2026-06-02] - Dentist appointment at 9:30.',
        // 22:30 UTC is the next day in Berlin.
        '[2025-07-02] - Ana said: the allotment is plot 14.',
      ].join('\n') + '\n',
    );
    expect(f.text).not.toContain('lab-secret-123');
  });

  it('writes Portable AI Memory v1.0 with the required fields', async () => {
    const f = await formatMemoryExport('pam', items, o);
    const doc = JSON.parse(f.text);
    expect(doc).toMatchObject({ schema: 'portable-ai-memory', schema_version: '1.0', owner: { id: 'owner-1' }, export_id: 'export-1' });
    expect(doc.memories).toHaveLength(4);
    for (const m of doc.memories) {
      expect(m.content_hash).toMatch(/^sha256:[a-f0-9]{64}$/);
      expect(m.content_hash).toBe(await contentHash(m.content));
      expect(m.temporal.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(m.provenance.platform).toMatch(/^[a-z0-9_-]{2,32}$/);
    }
    expect(doc.memories.map((m: { type: string }) => m.type)).toEqual(['identity', 'identity', 'goal', 'fact']);
    expect(doc.memories[2].temporal).toMatchObject({ valid_from: '2026-06-02T07:00:00.000Z', valid_until: '2026-06-02T21:00:00.000Z' });
    expect(f.text).not.toContain('sk-live-4f9a8b7c6d5e');
  });

  it('reads each of its shapes back with the same memories, dates and (JSON, Markdown) kinds', async () => {
    for (const format of ['dated-lines', 'pam', 'markdown'] as const) {
      const back = ok(parse((await formatMemoryExport(format, items, o)).text));
      expect(
        back.items.map((m) => m.text),
        format,
      ).toEqual([
        'I am vegetarian and cook lentils every Sunday.',
        'My API key for the lab is [redacted] and my token is Bearer [redacted]',
        'Dentist appointment at 9:30.',
        'Ana said: the allotment is plot 14.',
      ]);
      expect(days(back), format).toEqual(['2025-01-14', null, '2026-06-02', '2025-07-02']);
      if (format !== 'dated-lines')
        expect(
          back.items.map((m) => m.kind),
          format,
        ).toEqual(['about', 'about', 'plan', 'fact']);
    }
  });
});
