/**
 * Deleted means gone, searched for the way an attacker would: a unique marker word is written,
 * reaches what the app keeps (the turn, its full-text index terms, the conversation title, and with
 * an endpoint facts, an episode, a theme, the profile and a stored answer request), is removed by
 * one path the app offers, and then the raw bytes of every file in the origin's private storage
 * (OPFS: the live database and its write-ahead log included), the exported file and the sidebar are
 * searched for it — as written and lowercased, the form the full-text index keeps as a term.
 *
 * One row per path. Rows without an endpoint use the running app alone; the profile row starts
 * from a memory synthesised in Node through the engine with the mock endpoint (a profile update
 * needs a theme summary first and waits 30 s in the app) and restored through Import….
 * Mock LLM server: pipeline behaviour only.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { immediateTimer, topicProvider } from '../test/support/topicEmbedder';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { LlmClient } from '../src/llm/LlmClient';
import { createEngine } from '../src/host/createEngine';
import { connectEndpoint, conversationRow, messageBox, replaceMemory, sendMessage } from './appSteps';
import { saveWithoutVectors } from './fixtureMemory';
import { confirmIn } from './modal';

const MARKER = 'Zorblequint';
const FILLER = 'It lives in the blue jar on the kitchen shelf, next to the flour, and it doubles in size within six hours when the room is warm. '.repeat(7);
/** A real-length first turn (≈1,100 characters) whose first words carry the marker, so the title made from it does too. */
const SECRET = `${MARKER} is what I named my sourdough starter. ${FILLER}`;
const OTHER = 'Remind me to water the ferns by the north window on Sunday morning.';
const PREFILL = 'test-results/deleted-marker-prefill.sqlite';

let mock: MockLlmServer;

/** Where the marker still is: every OPFS file whose bytes hold it (as written or lowercased). */
async function opfsFilesHolding(page: Page): Promise<string[]> {
  return page.evaluate(async (marker) => {
    const needles = [marker, marker.toLowerCase()].map((m) => new TextEncoder().encode(m));
    const holds = (bytes: Uint8Array) => needles.some((n) => {
      outer: for (let i = bytes.indexOf(n[0]!); i >= 0 && i <= bytes.length - n.length; i = bytes.indexOf(n[0]!, i + 1)) {
        for (let j = 1; j < n.length; j++) if (bytes[i + j] !== n[j]) continue outer;
        return true;
      }
      return false;
    });
    const found: string[] = [];
    const walk = async (dir: FileSystemDirectoryHandle, prefix: string) => {
      for await (const [name, handle] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
        if (handle.kind === 'directory') await walk(handle as FileSystemDirectoryHandle, `${prefix}${name}/`);
        else if (holds(new Uint8Array(await (await (handle as FileSystemFileHandle).getFile()).arrayBuffer()))) found.push(`${prefix}${name}`);
      }
    };
    await walk(await navigator.storage.getDirectory(), '');
    return found;
  }, MARKER);
}

async function exportHolds(page: Page, path: string): Promise<boolean> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export' }).click();
  await (await download).saveAs(path);
  const bytes = await readFile(path);
  expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  expect(bytes.includes(Buffer.from(OTHER_WORDS))).toBe(true); // the search is real: what was kept is found
  return bytes.includes(Buffer.from(MARKER)) || bytes.includes(Buffer.from(MARKER.toLowerCase()));
}
/** Words of the turn every row keeps. */
const OTHER_WORDS = 'water the ferns by the north window';

async function deleteFirstMessage(page: Page) {
  const turn = page.getByTestId('message').filter({ hasText: MARKER }).first();
  await turn.getByRole('button', { name: 'Delete message' }).click();
  await confirmIn(page, 'Delete message', 'Delete message');
  await expect(page.getByTestId('message').filter({ hasText: MARKER })).toHaveCount(0);
}

/** A new conversation whose first turn carries the marker (its title is made from it), then a second turn. */
async function chatWithMarker(page: Page) {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, SECRET);
  await sendMessage(page, OTHER);
  await expect(page.getByRole('navigation', { name: 'Conversations' })).toContainText(MARKER); // the title carries it
  await expect(page.getByTestId('message-count')).toHaveText('2');
  // The marker reached the live files before the deletion (the search below is able to fail).
  await expect.poll(() => opfsFilesHolding(page)).not.toEqual([]);
}

interface Row {
  readonly path: string;
  readonly endpoint: boolean;
  readonly run: (page: Page) => Promise<void>;
}

const rows: Row[] = [
  {
    path: 'delete a message',
    endpoint: false,
    run: async (page) => {
      await chatWithMarker(page);
      await deleteFirstMessage(page);
    },
  },
  {
    path: 'delete a conversation',
    endpoint: false,
    run: async (page) => {
      await chatWithMarker(page);
      // A second conversation keeps the export non-empty (and holds the words the search must find).
      await page.getByRole('button', { name: '+ New conversation' }).click();
      await sendMessage(page, `${OTHER} Also the basil.`);
      const row = conversationRow(page, MARKER);
      await row.click();
      await page.getByRole('button', { name: new RegExp(`^Delete ${MARKER}`) }).click();
      await confirmIn(page, 'Delete conversation', 'Delete conversation');
      await expect(conversationRow(page, MARKER)).toHaveCount(0);
    },
  },
  {
    path: 'edit a message',
    endpoint: false,
    run: async (page) => {
      await page.goto('/');
      await page.getByRole('button', { name: '+ New conversation' }).click();
      await sendMessage(page, SECRET);
      await expect(page.getByRole('navigation', { name: 'Conversations' })).toContainText(MARKER);
      await expect.poll(() => opfsFilesHolding(page)).not.toEqual([]);
      await messageBox(page).press('ArrowUp'); // edits the last message
      await expect(messageBox(page)).toHaveValue(SECRET);
      await messageBox(page).fill(OTHER);
      await messageBox(page).press('Enter');
      await expect(page.getByTestId('message').filter({ hasText: OTHER })).toHaveCount(1);
      await expect(page.getByTestId('message').filter({ hasText: MARKER })).toHaveCount(0);
    },
  },
  {
    path: 'delete a message the profile was drawn from',
    endpoint: true,
    run: async (page) => {
      await page.goto('/');
      await connectEndpoint(page, mock.url);
      await replaceMemory(page, PREFILL, /Imported 4 messages/);
      // The memory as restored holds the marker in its profile and in a stored answer request.
      await expect.poll(() => opfsFilesHolding(page)).not.toEqual([]);
      await page.getByRole('button', { name: 'Memory', exact: true }).click();
      await page.getByRole('tab', { name: 'Profile', exact: true }).click();
      await expect(page.getByTestId('profile-item').filter({ hasText: MARKER })).not.toHaveCount(0);
      await page.getByRole('button', { name: 'Memory', exact: true }).click();
      await conversationRow(page, 'Kitchen').click();
      await expect(page.getByTestId('message')).toHaveCount(2);
      await deleteFirstMessage(page);
      await page.getByRole('button', { name: 'Memory', exact: true }).click();
      await page.getByRole('tab', { name: 'Profile', exact: true }).click();
      await expect(page.getByTestId('explorer-profile')).toBeVisible();
      await expect(page.getByTestId('explorer-profile')).not.toContainText(MARKER);
      await page.getByRole('button', { name: 'Memory', exact: true }).click();
    },
  },
];

/**
 * The profile row's memory: the marker turn synthesised (eager) into an episode, a theme and a
 * profile item whose value quotes it, then a question in another conversation answered with that
 * profile, so a stored request carries it too.
 */
async function prefill(): Promise<void> {
  const store = await openNodeStore();
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 });
  const engine = createEngine(store, { embedders: topicProvider(['sourdough', 'ferns']), llm, timer: immediateTimer, profileDebounceMs: 0 });
  await engine.start();
  await engine.setConsolidationPolicy('eager');
  const t0 = Date.now() - 3 * 86_400_000;
  await store.createConversation({ id: 'kitchen', title: 'Kitchen' });
  await engine.appendTurn({ id: 'k1', conversationId: 'kitchen', role: 'user', speaker: 'You', content: SECRET, occurredAt: t0 });
  await engine.appendTurn({ id: 'k2', conversationId: 'kitchen', role: 'user', speaker: 'You', content: OTHER, occurredAt: t0 + 60_000 });
  await engine.idle();
  await engine.closeOpenCells();
  await engine.idle();
  const profile = await engine.listProfile();
  if (!profile.some((p) => p.value.includes(MARKER))) throw new Error(`the prefill should give a profile item quoting the marker: ${JSON.stringify(profile)}`);
  await store.createConversation({ id: 'later', title: 'Later' });
  await engine.appendTurn({ id: 'q1', conversationId: 'later', role: 'user', speaker: 'You', content: 'What did I name my sourdough starter?', occurredAt: t0 + 86_400_000 });
  await engine.idle();
  await engine.ask({ conversationId: 'later', userMessageId: 'q1', answerId: 'a1' }, () => undefined);
  if (!JSON.stringify((await store.getMessage('a1'))!.metadata).includes(MARKER)) throw new Error('the stored request should carry the marker');
  await saveWithoutVectors(store, PREFILL);
  engine.stop();
}

test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Your starter has a name [1].' : synthesisResponder(req)) });
  await prefill();
});
test.afterAll(async () => mock.close());

for (const row of rows) {
  test(`${row.path}${row.endpoint ? ' (with an endpoint)' : ' (memory only)'}: the marker is in no live file, export or title`, async ({ page }, info) => {
    test.setTimeout(120_000);
    await row.run(page);
    await expect(page.getByRole('navigation', { name: 'Conversations' })).not.toContainText(MARKER);
    expect(await opfsFilesHolding(page)).toEqual([]);
    expect(await exportHolds(page, info.outputPath('export.sqlite'))).toBe(false);
  });
}
