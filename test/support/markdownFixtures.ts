/**
 * Messages of the shapes that once froze or blanked a conversation, and ordinary ones beside them,
 * for the Markdown limits' unit tests (test/app/markdown*.test.ts), the browser test
 * (e2e/markdownLimits.spec.ts) and the benchmark (bench/markdownLimits.ts). All deterministic.
 *
 * `buildMarkdownMemory` writes a memory file (one conversation per pathological message, each
 * between ordinary turns, plus one conversation holding all of them) that the app imports.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { MARKDOWN_LIMITS, assessMarkdown } from '../../src/app/markdown/markdownBudget';

/** 5,000 nested quotes (5 KB): overflowed the stack while the conversation was drawn. */
export const NESTED_QUOTES = `${'>'.repeat(5_000)} The innermost quote says hello.`;

/** 40,000 emphasis openers (80 KB): held the page's thread for ≈29 s. */
export const EMPHASIS_OPENERS = '*a'.repeat(40_000);

/** 5,000 emphasis openers (10 KB): short enough for the length limit, caught by the emphasis limit. */
export const EMPHASIS_SHORT = '*a'.repeat(5_000);

const WORDS = (
  'the of and a to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part garden ' +
  'Lisbon tram sister budget recipe basil tomato doctor meeting Friday travel plan'
).split(' ');

/** About `chars` characters of ordinary prose in paragraphs (no Markdown syntax), from a fixed seed. */
export function plainProse(chars: number, seed = 11): string {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: string[] = [];
  let length = 0;
  let sentence = 0;
  while (length < chars) {
    const n = 6 + Math.floor(next() * 14);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    const text = `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.${++sentence % 6 === 0 ? '\n\n' : ' '}`;
    out.push(text);
    length += text.length;
  }
  return out.join('').slice(0, chars);
}

/** A plain message of 100,000 characters. */
export const PLAIN_100K = plainProse(100_000);

/** A fenced TypeScript block of 300 lines (≈15 KB, within the limits: drawn formatted). */
export const LONG_CODE_BLOCK = [
  'Here is the whole module:',
  '',
  '```ts',
  ...Array.from({ length: 300 }, (_, i) => `${i % 10 ? '  ' : ''}const value_${i} = compute_step(${i}, "step ${i}"); // total`),
  '```',
].join('\n');

/** A table of 40 columns and 16 rows (within the limits: drawn formatted, scrolls sideways inside its message). */
export const WIDE_TABLE = [
  'Measurements by column:',
  '',
  `| ${Array.from({ length: 40 }, (_, c) => `col ${c + 1}`).join(' | ')} |`,
  `|${' --- |'.repeat(40)}`,
  ...Array.from({ length: 16 }, (_, r) => `| ${Array.from({ length: 40 }, (_, c) => `r${r + 1}c${c + 1}`).join(' | ')} |`),
].join('\n');

/** A list nested 200 levels deep, each level indented under the last (≈42 KB). */
export const DEEP_LIST = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`).join('\n');

/** A list nested 200 levels deep on one line (400 characters). */
export const DEEP_LIST_ONE_LINE = `${'- '.repeat(200)}bottom of the list`;

/** A list nested 6 levels deep: within the limits, drawn as nested lists. */
export const NESTED_LIST_6 = Array.from({ length: 6 }, (_, i) => `${'  '.repeat(i)}- step ${i + 1}`).join('\n');

/** An ordinary formatted answer: heading, emphasis, list, code, quote, link, citation. */
export const NORMAL_ANSWER = [
  '## Planting plan',
  '',
  'Basil and tomatoes share a bed **well** because both like *full sun* [1].',
  '',
  '- water in the morning',
  '- mulch after the first week',
  '  - straw, not bark',
  '',
  '> Keep the soil moist, not wet.',
  '',
  'Run `npm test` first:',
  '',
  '```sh',
  'npm test',
  '```',
  '',
  'More at [the guide](https://example.com/guide).',
].join('\n');

/**
 * One message at the edge of the limits of markdownBudget.ts: a 16-deep list, a 40-column table,
 * links, emphasis and prose whose weighted cost is just under the total allowed: the slowest kind
 * of text still formatted on the page, for the benchmark.
 */
export const EDGE_OF_LIMITS = (() => {
  const parts = [
    Array.from({ length: 16 }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`).join('\n'),
    '',
    `| ${Array.from({ length: 40 }, (_, c) => `c${c + 1}`).join(' | ')} |`,
    `|${' --- |'.repeat(40)}`,
    ...Array.from({ length: 10 }, (_, r) => `| ${Array.from({ length: 40 }, (_, c) => `${r}.${c}`).join(' | ')} |`),
    '',
    Array.from({ length: 80 }, (_, i) => `[link ${i}](https://example.com/${i})`).join(' '),
    '',
    Array.from({ length: 150 }, (_, i) => `*w${i}*`).join(' '),
    '',
  ].join('\n');
  const verdict = assessMarkdown(parts);
  if (!verdict.formatted) throw new Error('EDGE_OF_LIMITS: the structured part alone is past the limits');
  // Prose up to just under the total.
  return parts + plainProse(MARKDOWN_LIMITS.cost - verdict.cost - 20);
})();

/** The pathological and the large messages, by name (all stored as the assistant's turns). */
export const MARKDOWN_FIXTURES = {
  'nested quotes': NESTED_QUOTES,
  'emphasis openers': EMPHASIS_OPENERS,
  'plain 100k': PLAIN_100K,
  'long code block': LONG_CODE_BLOCK,
  'wide table': WIDE_TABLE,
  'deep list': DEEP_LIST,
  'one-line deep list': DEEP_LIST_ONE_LINE,
} as const;

/** Beside them in the benchmark: a conversation of ordinary answers, and the slowest text still formatted. */
export const REFERENCE_MESSAGES = {
  'ordinary answers': NORMAL_ANSWER,
  'edge of the limits': EDGE_OF_LIMITS,
} as const;

export type MarkdownFixtureName = keyof typeof MARKDOWN_FIXTURES | keyof typeof REFERENCE_MESSAGES;

/** Conversation ids in the memory file buildMarkdownMemory writes. */
export const fixtureConversationId = (name: MarkdownFixtureName) => `md-${name.replace(/[\s,]+/g, '-')}`;
export const ALL_FIXTURES_CONVERSATION = 'md-all';
export const FIXTURE_TITLE_PREFIX = 'Markdown fixture';

/**
 * Writes a memory with one conversation per fixture (a user turn, an ordinary answer, the fixture
 * as an answer, and an ordinary answer after it) and one conversation with all of them in a row.
 * Returns the number of turns written.
 */
export async function buildMarkdownMemory(file: string): Promise<{ conversations: number; turns: number }> {
  let now = Date.UTC(2026, 2, 1, 9);
  const clock = { now: () => now };
  const store = await openNodeStore({ clock });
  const engine = createEngine(store, { only: ['explorer'], llm: null, clock });
  await engine.start();
  let turns = 0;
  const write = async (conversationId: string, title: string, contents: readonly { role: 'user' | 'assistant'; content: string }[]) => {
    await engine.conversations.create({ id: conversationId, title });
    await engine.conversations.appendTurns(
      contents.map((c, k) => ({
        id: `${conversationId}-t${k}`,
        conversationId,
        role: c.role,
        content: c.content,
        occurredAt: now + k * 60_000,
      })),
    );
    turns += contents.length;
    now += 3_600_000;
  };
  const around = (name: string, content: string) => [
    { role: 'user' as const, content: `Show me the ${name}.` },
    { role: 'assistant' as const, content: NORMAL_ANSWER },
    { role: 'user' as const, content: `And now the ${name} itself.` },
    { role: 'assistant' as const, content },
    { role: 'user' as const, content: 'Thanks. Anything else?' },
    { role: 'assistant' as const, content: 'That was **all** of it: *nothing else* to add.' },
  ];
  const fixtures = Object.entries(MARKDOWN_FIXTURES);
  await write(ALL_FIXTURES_CONVERSATION, `${FIXTURE_TITLE_PREFIX}: all of them`, [
    { role: 'user', content: 'Show me every fixture.' },
    { role: 'assistant', content: NORMAL_ANSWER },
    ...fixtures.flatMap(([name, content]) => [
      { role: 'user' as const, content: `The ${name}:` },
      { role: 'assistant' as const, content },
    ]),
    { role: 'user', content: 'Thanks. Anything else?' },
    { role: 'assistant', content: 'That was **all** of it: *nothing else* to add.' },
  ]);
  for (const [name, content] of [...fixtures, ...Object.entries(REFERENCE_MESSAGES)]) {
    await write(fixtureConversationId(name as MarkdownFixtureName), `${FIXTURE_TITLE_PREFIX}: ${name}`, around(name, content));
  }
  await engine.idle();
  const bytes = await store.exportDatabase();
  engine.stop();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return { conversations: fixtures.length + Object.keys(REFERENCE_MESSAGES).length + 1, turns };
}
