/**
 * ONE conversation bigger than the reader's huge-entry threshold (16 million characters), imported
 * through the app's own "Import chats…" control. Such an entry is not parsed whole: it is read in
 * two streamed passes and its turns come out in parts while the file is read. What a person sees:
 * the scan's progress line counts turns before the file is done (the parts; a whole-entry parse
 * shows "0 turns" until the end), the import stores the first turns long before its end, "Stop
 * import" keeps what was stored and importing the file again completes it without duplicates,
 * only the branch the user last saw is stored, and the conversation opens at its newest turn.
 *
 * The files are written from the formats (ChatGPT: `mapping` tree, `current_node` after it,
 * microsecond times, an edited prompt and a regenerated answer off the visible branch; Claude:
 * flat `chat_messages` with parent links and a retried answer), once for this file, to a
 * temporary folder, and handed to the page as paths (Chromium reads them from disk as a File).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { conversationRow, printPageOnFailure } from './appSteps';
// Every file here must be over the reader's threshold, whatever it becomes.
import { HUGE_ENTRY_CHARS } from '../src/import/readHistory';

printPageOnFailure();

/** Turns on the visible branch of the ChatGPT conversation (user and assistant alternate). */
const TURNS = 15_000;
const TITLE = 'Allotment planning, the whole year';
/** Words that each stand in one place only: the first turn, the last turn, the dropped branches. */
const FIRST_WORD = 'aardvarkquill';
const LAST_WORD = 'zeppelinmoss';
const DROPPED_WORD = 'marzipanolith';

const SENTENCES = [
  'The raised bed by the shed gets the most sun after eleven, so the tomatoes and peppers go there.',
  'Beans climb the hazel poles on the north side, where their shade falls on the path and not on the lettuce.',
  'Sow the second round of lettuce three weeks after the first, and water it in the evening in a dry spell.',
  'Slugs are kept off with copper tape, beer traps and a night walk with a torch rather than pellets.',
  'The compost bays are turned every six weeks; the finished heap goes on the squash bed in April.',
  'Garlic planted in November needs a mulch of leaf mould and nothing else until the spring.',
  'Net the brassicas against pigeons and cabbage whites, and check under the leaves for eggs each week.',
  'Rhubarb is forced under an old bin from January; pick it before the leaves open fully.',
];

/** ≈1,100 characters on average: short prompts, longer answers, as real chats go. */
function body(k: number): string {
  const n = k % 2 ? 14 + (k % 7) : 3 + (k % 3);
  const words = Array.from({ length: n }, (_, i) => SENTENCES[(k + i) % SENTENCES.length]!).join(' ');
  return `Turn ${k}. ${words}`;
}

/** ChatGPT writes seconds with a fraction of microseconds. */
const seconds = (k: number) => Number((1_700_000_000 + k * 37 + ((k * 7_919) % 1_000_000) / 1e6).toFixed(6));

function chatGptNode(id: string, parent: string | null, children: string[], role: string, text: string | null, at: number) {
  return {
    id,
    parent,
    children,
    message:
      text === null
        ? null
        : {
            id,
            author: { role, name: null, metadata: {} },
            create_time: at,
            update_time: null,
            content: { content_type: 'text', parts: [text] },
            status: 'finished_successfully',
            end_turn: role === 'assistant' ? true : null,
            weight: 1.0,
            metadata: role === 'system' ? { is_visually_hidden_from_conversation: true } : {},
            recipient: 'all',
            channel: null,
          },
  };
}

/**
 * A ChatGPT conversations.json of one conversation of TURNS visible turns. Off the branch: an edited
 * prompt at turn 4 (the older version, with its answer) and a regenerated last answer that is newer
 * than the one the user left the chat on (so only `current_node` picks the right leaf).
 */
function chatGptExport(): string {
  const mapping: Record<string, ReturnType<typeof chatGptNode>> = {};
  mapping.root = chatGptNode('root', null, ['sys'], 'system', null, 0);
  mapping.sys = chatGptNode('sys', 'root', ['m0'], 'system', '', seconds(0));
  for (let k = 0; k < TURNS; k++) {
    const text = k === 0 ? `${FIRST_WORD}: ${body(k)}` : k === TURNS - 1 ? `${body(k)} ${LAST_WORD}` : body(k);
    mapping[`m${k}`] = chatGptNode(
      `m${k}`,
      k ? `m${k - 1}` : 'sys',
      k < TURNS - 1 ? [`m${k + 1}`] : [],
      k % 2 ? 'assistant' : 'user',
      text,
      seconds(k),
    );
  }
  // The edited prompt's first version came first, so ChatGPT lists it first among the children.
  mapping.m3!.children.unshift('e4');
  mapping.e4 = chatGptNode('e4', 'm3', ['e5'], 'user', `${DROPPED_WORD} first wording of turn 4. ${body(4)}`, seconds(4) - 5);
  mapping.e5 = chatGptNode('e5', 'e4', [], 'assistant', `${DROPPED_WORD} answer to the first wording. ${body(5)}`, seconds(4) - 2);
  const lastUser = `m${TURNS - 2}`;
  mapping[lastUser]!.children.push('regen');
  mapping.regen = chatGptNode(
    'regen',
    lastUser,
    [],
    'assistant',
    `${DROPPED_WORD} a regenerated answer. ${body(TURNS - 1)}`,
    seconds(TURNS) + 60,
  );
  // The service writes `current_node` after the mapping.
  return JSON.stringify([
    {
      title: TITLE,
      create_time: seconds(0),
      update_time: seconds(TURNS),
      mapping,
      moderation_results: [],
      current_node: `m${TURNS - 1}`,
      plugin_ids: null,
      conversation_id: 'huge-1',
      conversation_template_id: null,
      id: 'huge-1',
    },
  ]);
}

/** Messages on the visible branch of the Claude conversation. */
const CLAUDE_TURNS = 3_000;
const CLAUDE_TITLE = 'A very long Claude chat';

/**
 * A Claude conversations.json of one conversation: each message's text twice (`text` and a text
 * block, as Claude writes it), each answer after a long extended-thinking block (not imported: it
 * makes the entry huge with fewer turns to store, which keeps this test short), and a retried
 * answer in the middle, off the branch.
 */
function claudeExport(): string {
  const at = (k: number) => new Date(Date.UTC(2025, 5, 1) + k * 41_000).toISOString().replace('Z', '000Z');
  const say = (uuid: string, parent: string, sender: string, text: string, k: number) => ({
    uuid,
    parent_message_uuid: parent,
    sender,
    text,
    created_at: at(k),
    updated_at: at(k),
    attachments: [],
    files: [],
    content: [
      ...(sender === 'assistant'
        ? [
            {
              type: 'thinking',
              thinking: [1, 2, 3, 4].map((d) => `Draft ${d}: ${text}`).join('\n\n'),
              start_timestamp: at(k),
              stop_timestamp: at(k),
            },
          ]
        : []),
      { type: 'text', text, start_timestamp: at(k), stop_timestamp: at(k), citations: [] },
    ],
  });
  const messages = [];
  for (let k = 0; k < CLAUDE_TURNS; k++) {
    const parent = k ? `c${k - 1}` : '00000000-0000-4000-8000-000000000000';
    if (k === 101) messages.push(say('retried', parent, 'assistant', `${DROPPED_WORD} ${body(k)}`, k));
    const text = k === 0 ? `${FIRST_WORD}: ${body(k)}` : k === CLAUDE_TURNS - 1 ? `${body(k)} ${LAST_WORD}` : body(k);
    messages.push(say(`c${k}`, parent, k % 2 ? 'assistant' : 'human', text, k + 1));
  }
  return JSON.stringify([
    {
      uuid: 'huge-claude',
      name: CLAUDE_TITLE,
      created_at: at(0),
      updated_at: at(CLAUDE_TURNS),
      chat_messages: messages,
      current_leaf_message_uuid: `c${CLAUDE_TURNS - 1}`,
    },
  ]);
}

let folder = '';
const files = { chatgpt: '', claude: '' };

test.beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'recollect-huge-conversation-'));
  for (const [name, text] of [
    ['chatgpt', chatGptExport()],
    ['claude', claudeExport()],
  ] as const) {
    // One entry over the threshold: the streamed reading, not the whole-entry parse.
    expect(text.length).toBeGreaterThan(HUGE_ENTRY_CHARS);
    files[name] = join(folder, `${name}-conversations.json`);
    writeFileSync(files[name], text);
  }
});

test.afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/**
 * Records every text the dialog's progress line shows (with its bar's label: "Reading file" during
 * the scan, "Import progress" during the import) and every stored-message count the status line
 * shows while an import runs: polling would miss values that last 200 ms.
 */
async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { progressSeen: string[]; storedWhileImporting: number[] };
    w.progressSeen = [];
    w.storedWhileImporting = [];
    new MutationObserver(() => {
      const line = document.querySelector('[data-testid=history-progress]');
      if (!line) return;
      const label = document.querySelector('.history-progress progress')?.getAttribute('aria-label') ?? '';
      const seen = `${label}|${line.textContent ?? ''}`;
      if (w.progressSeen.at(-1) !== seen) w.progressSeen.push(seen);
      const count = Number(document.querySelector('[data-testid=message-count]')?.textContent ?? NaN);
      if (label === 'Import progress' && count !== w.storedWhileImporting.at(-1)) w.storedWhileImporting.push(count);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

interface Seen {
  readonly label: string;
  readonly turns: number;
  readonly bytes: string;
}

async function progressSeen(page: Page): Promise<Seen[]> {
  const lines = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen.splice(0));
  return lines.map((l) => {
    const [label, text] = l.split('|') as [string, string];
    return {
      label,
      turns: Number(/([\d,]+) turns/.exec(text)?.[1]?.replace(/,/g, '') ?? NaN),
      bytes: /· ([^·]+) of /.exec(text)?.[1] ?? '',
    };
  });
}

const distinct = <T>(xs: readonly T[]) => new Set(xs).size;
const num = (x: number) => x.toLocaleString('en');

/** Chooses the file and waits for the scan's finding; returns the dialog. */
async function scanFile(page: Page, path: string, turns: number) {
  await page.getByLabel('Import chat history file').setInputFiles(path);
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('history-scan')).toHaveText(
    new RegExp(`^Found 1 conversations with ${num(turns)} turns \\(about [\\d,]+ episodes\\)\\.$`),
    { timeout: 90_000 },
  );
  return dialog;
}

/**
 * The scan's progress moved while it read (bytes, then turns) and counted turns before the
 * conversation was done. The counts part-way are what the streamed reading adds: a whole-entry
 * parse shows "0 turns" until the entry has been read and parsed, then all of them at once.
 */
function expectStreamedScan(seen: readonly Seen[], turns: number) {
  const reading = seen.filter((s) => s.label === 'Reading file');
  // The start and at least one more: on a quiet machine the file is read between two progress ticks
  // (seen: "0 turns, 0 B" then "1,077 turns, 17 MB" of 3,000), so the proof is the part-way count.
  expect(distinct(reading.map((s) => `${s.turns} ${s.bytes}`)), JSON.stringify(reading)).toBeGreaterThanOrEqual(2);
  expect(
    reading.filter((s) => s.turns > 0 && s.turns < turns),
    JSON.stringify(reading),
  ).not.toHaveLength(0);
}

/** Notes how long each step took in the run's annotations, for its report (nothing here is timed against a limit). */
function stepTimer(): (step: string) => void {
  let mark = Date.now();
  return (step) => {
    test.info().annotations.push({ type: 'time', description: `${step}: ${((Date.now() - mark) / 1000).toFixed(1)} s` });
    mark = Date.now();
  };
}

async function search(page: Page, words: string) {
  await page.getByLabel('Search memory').fill(words);
}

/**
 * All `turns` stored and nothing else: the dropped branches' word is not found, the first and the
 * last turn's words are, and the conversation opens at its newest turn.
 */
async function expectVisibleBranchStored(page: Page, title: string, turns: number) {
  await expect(page.getByTestId('message-count')).toHaveText(String(turns));
  await search(page, DROPPED_WORD);
  await expect(page.getByText('Nothing stored matches these words.')).toBeVisible();
  await search(page, FIRST_WORD);
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
  await search(page, LAST_WORD);
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
  await expect(page.getByTestId('search-hit').first()).toContainText(LAST_WORD);
  await search(page, '');
  await conversationRow(page, title).click();
  const messages = page.getByTestId('message');
  await expect(messages.last()).toContainText(LAST_WORD, { timeout: 60_000 });
  await expect(messages.last()).toContainText(`Turn ${turns - 1}.`);
}

test('one ChatGPT conversation over the huge-entry threshold: streamed with progress, Stop keeps what was stored, importing again completes it, only the visible branch', async ({
  page,
}) => {
  test.setTimeout(240_000); // the machine running e2e may be shared; nothing here is timed
  const size = statSync(files.chatgpt).size;
  test.info().annotations.push({ type: 'file', description: `${(size / 1e6).toFixed(1)} MB, ${num(TURNS)} turns on the visible branch` });
  const took = stepTimer();
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await recordProgress(page);

  let dialog = await scanFile(page, files.chatgpt, TURNS);
  took('scan');
  expectStreamedScan(await progressSeen(page), TURNS);
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: `Import ${num(TURNS)} turns` }).click();
  const progress = dialog.getByTestId('history-progress');
  // Stop once a good part is stored, well before the end.
  await expect
    .poll(async () => Number(/([\d,]+) turns/.exec((await progress.textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? 0), {
      timeout: 90_000,
      intervals: [100],
    })
    .toBeGreaterThanOrEqual(2_000);
  await dialog.getByRole('button', { name: 'Stop import' }).click();
  const report = dialog.getByTestId('history-report');
  await expect(report).toHaveText(/^Cancelled\. 1 conversation, [\d,]+ turns imported\.$/, { timeout: 60_000 });
  took('import until stopped');
  const kept = Number(await report.getAttribute('data-turns'));
  expect(kept).toBeGreaterThanOrEqual(2_000);
  expect(kept).toBeLessThan(TURNS);
  const importing = (await progressSeen(page)).filter((s) => s.label === 'Import progress').map((s) => s.turns);
  expect(distinct(importing.filter((t) => t > 0 && t <= kept)), JSON.stringify(importing)).toBeGreaterThanOrEqual(3);
  // The status line counted stored turns while the import was still running.
  const stored = await page.evaluate(() => (window as unknown as { storedWhileImporting: number[] }).storedWhileImporting);
  expect(
    stored.some((c) => c > 0 && c < TURNS),
    JSON.stringify(stored),
  ).toBe(true);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  // What was stored stays, and is searchable: the first turn is there, the last is not yet.
  await expect(page.getByTestId('message-count')).toHaveText(String(kept));
  await search(page, FIRST_WORD);
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
  await search(page, LAST_WORD);
  await expect(page.getByText('Nothing stored matches these words.')).toBeVisible();

  // Importing the same file again stores the rest and nothing twice.
  took('checks after the stop');
  dialog = await scanFile(page, files.chatgpt, TURNS);
  took('second scan');
  expectStreamedScan(await progressSeen(page), TURNS);
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: `Import ${num(TURNS)} turns` }).click();
  await expect(report).toHaveText(`1 conversation, ${num(TURNS - kept)} turns imported; ${num(kept)} turns were already in memory.`, {
    timeout: 120_000,
  });
  took(`second import (${num(TURNS - kept)} turns)`);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  // Only the branch the user saw (not the edited prompt's first version, not the regenerated answer), opened at its newest turn.
  await expectVisibleBranchStored(page, TITLE, TURNS);
  took('searches and opening');
  console.log(
    test
      .info()
      .annotations.map((a) => `${a.type}: ${a.description}`)
      .join('\n'),
  );
});

test('one Claude conversation over the huge-entry threshold: streamed, only the visible branch stored, opens at its newest turn', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await recordProgress(page);
  const took = stepTimer();
  const dialog = await scanFile(page, files.claude, CLAUDE_TURNS);
  took('scan');
  expectStreamedScan(await progressSeen(page), CLAUDE_TURNS);
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: `Import ${num(CLAUDE_TURNS)} turns` }).click();
  await expect(dialog.getByTestId('history-report')).toHaveText(`1 conversation, ${num(CLAUDE_TURNS)} turns imported.`, {
    timeout: 120_000,
  });
  took(`import (${num(CLAUDE_TURNS)} turns)`);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  await expectVisibleBranchStored(page, CLAUDE_TITLE, CLAUDE_TURNS);
  took('searches and opening');
  console.log(
    test
      .info()
      .annotations.map((a) => `${a.type}: ${a.description}`)
      .join('\n'),
  );
});
