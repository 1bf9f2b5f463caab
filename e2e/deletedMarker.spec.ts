/**
 * Deleted means gone, searched for the way an attacker would: a unique marker word is written,
 * reaches what the app keeps (the turn, its full-text index terms, the conversation title, and with
 * an endpoint facts, an episode, a theme, the profile and a stored answer request), is removed by
 * one path the app offers, and then the raw bytes of every file in the origin's private storage
 * (OPFS: the live database and its write-ahead log included), the exported file and the sidebar are
 * searched for it — as written and lowercased, the form the full-text index keeps as a term.
 *
 * One row per path. Rows without an endpoint use the running app alone; the rows with one start
 * from a memory synthesised in Node through the engine with the mock endpoint (a profile update
 * needs a theme summary first and waits 30 s in the app) and restored through Import….
 *
 * Derived items (a fact, a plan, a profile item, an episode, a theme) each carry a marker of their
 * own that no turn holds: a responder writes them into the synthesised memory (`derivedResponder`),
 * so what is searched for after the deletion can only have come from that item. A question asked
 * in Node before the memory is saved puts the fact, plan, profile item and episode into a stored
 * answer request, and each row checks the browser's "What was sent" holds its marker before the
 * deletion and not after (themes are not sent with answers; their marker is in the theme only).
 * The Themes tab has no delete control: a theme's text is deleted through Forget, which lists it.
 * Mock LLM server: pipeline behaviour only.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import type { MockResponder } from '../test/llm/mockLlmServer';
import { immediateTimer, topicProvider } from '../test/support/topicEmbedder';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import type { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import { LlmClient } from '../src/llm/LlmClient';
import { createEngine } from '../src/host/createEngine';
import { backToChat, connectEndpoint, conversationRow, messageBox, openSavedMemories, replaceMemory, sendMessage } from './appSteps';
import { saveWithoutVectors } from './fixtureMemory';
import { confirmIn } from './modal';
import { chooseFromMore } from './moreMenu';

const MARKER = 'Zorblequint';
const FILLER =
  'It lives in the blue jar on the kitchen shelf, next to the flour, and it doubles in size within six hours when the room is warm. '.repeat(
    7,
  );
/** A real-length first turn (≈1,100 characters) whose first words carry the marker, so the title made from it does too. */
const SECRET = `${MARKER} is what I named my sourdough starter. ${FILLER}`;
const OTHER = 'Remind me to water the ferns by the north window on Sunday morning.';
const PREFILL = 'test-results/deleted-marker-prefill.sqlite';

let mock: MockLlmServer;

/** Markers of derived items, each written by `derivedResponder` into one kind of item only. */
const FACT_MARK = 'Vexlorind';
const PLAN_MARK = 'Plumtraddle';
const PROFILE_MARK = 'Thrumbleset';
const EPISODE_MARK = 'Grindlewick';
const THEME_MARK = 'Mossquarrel';
/** The derived memory's first turn: real length, no marker (every marker there comes from synthesis). */
const PLAIN = `I named my sourdough starter after my grandmother. ${FILLER}`;
const PREFILL_DERIVED = 'test-results/deleted-marker-derived.sqlite';
/** The question asked in Node in both memories; its answer's stored request is searched. */
const QUESTION = 'What did I name my sourdough starter?';

/** Where a marker still is: every OPFS file whose bytes hold one of `markers` (as written or lowercased). */
async function opfsFilesHolding(page: Page, markers: readonly string[] = [MARKER]): Promise<string[]> {
  return page.evaluate(async (marks) => {
    const needles = marks.flatMap((m) => [m, m.toLowerCase()]).map((m) => new TextEncoder().encode(m));
    const holds = (bytes: Uint8Array) =>
      needles.some((n) => {
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
        else if (holds(new Uint8Array(await (await (handle as FileSystemFileHandle).getFile()).arrayBuffer())))
          found.push(`${prefix}${name}`);
      }
    };
    await walk(await navigator.storage.getDirectory(), '');
    return found;
  }, markers);
}

async function exportHolds(page: Page, path: string, markers: readonly string[] = [MARKER]): Promise<boolean> {
  const download = page.waitForEvent('download');
  await chooseFromMore(page, 'Export');
  await (await download).saveAs(path);
  const bytes = await readFile(path);
  expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  expect(bytes.includes(Buffer.from(OTHER_WORDS))).toBe(true); // the search is real: what was kept is found
  return markers.some((m) => bytes.includes(Buffer.from(m)) || bytes.includes(Buffer.from(m.toLowerCase())));
}

/**
 * The text of every request the answer in "Later" was sent ("What was sent"), read in the app.
 * It is never empty: the question itself is always there, so a search in it is able to fail.
 */
async function whatWasSent(page: Page): Promise<string> {
  await backToChat(page);
  await conversationRow(page, 'Later').click();
  await page.getByTestId('message').last().getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('sent-content').first()).toBeVisible();
  const text = (await dialog.getByTestId('sent-content').allInnerTexts()).join('\n');
  expect(text).toContain(QUESTION);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  return text;
}

/** Restores the derived memory with the endpoint in use, and checks each marker reached "What was sent". */
async function openDerivedMemory(page: Page, sent: readonly string[]): Promise<void> {
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await replaceMemory(page, PREFILL_DERIVED, /Imported 4 messages/);
  // Every marker is in the live files before the deletion (each search below is able to fail).
  for (const m of [FACT_MARK, PLAN_MARK, PROFILE_MARK, EPISODE_MARK, THEME_MARK])
    await expect.poll(() => opfsFilesHolding(page, [m])).not.toEqual([]);
  const text = await whatWasSent(page);
  for (const m of sent) expect(text, `"What was sent" holds ${m} before the deletion`).toContain(m);
}

/** Memory → Forget: finds `word`, ticks every item found, forgets them. */
async function forgetWord(page: Page, word: string): Promise<void> {
  await openSavedMemories(page);
  await page.getByRole('tab', { name: 'Forget', exact: true }).click();
  await page.getByLabel('Forget everything about').fill(word);
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(page.getByTestId('forget-found')).toBeVisible();
  await page.getByRole('button', { name: /^Tick all \d+$/ }).click();
  await page.getByRole('button', { name: /^Forget \d+ items?$/ }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Forgotten:' })).toBeVisible({ timeout: 30_000 });
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

/** Saved memories → the item holding `marker` (a fact or a plan) → delete → Forget for good. */
function savedItemRow(what: string, marker: string): Row {
  return {
    path: `delete ${what} (Saved memories)`,
    endpoint: true,
    markers: [marker],
    sent: true,
    run: async (page) => {
      await openDerivedMemory(page, [marker]);
      const saved = await openSavedMemories(page);
      const items = saved.getByTestId('saved-item').filter({ hasText: marker });
      await expect(items.first()).toBeVisible();
      // Every item holding the marker is deleted (under load the imported memory has been seen to
      // hold the plan twice; the check here is that deleting leaves no trace, whatever the count).
      for (let left = await items.count(); left > 0; left--) {
        await items
          .first()
          .getByRole('button', { name: /^Delete “/ })
          .click();
        await confirmIn(page, 'Delete saved memory', 'Forget for good');
        await expect(items).toHaveCount(left - 1);
      }
    },
  };
}

interface Row {
  readonly path: string;
  readonly endpoint: boolean;
  readonly run: (page: Page) => Promise<void>;
  /** What must be gone (default: MARKER). */
  readonly markers?: readonly string[];
  /** Whether the markers were in the stored answer request before, so "What was sent" is searched after. */
  readonly sent?: boolean;
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
    // An edit keeps the edited text as an earlier version (‹ 1/2 ›); deleting the conversation removes every version.
    path: 'edit a message, then delete its conversation',
    endpoint: false,
    run: async (page) => {
      await page.goto('/');
      await page.getByRole('button', { name: '+ New conversation' }).click();
      await sendMessage(page, SECRET);
      await expect(page.getByRole('navigation', { name: 'Conversations' })).toContainText(MARKER);
      await expect.poll(() => opfsFilesHolding(page)).not.toEqual([]);
      await messageBox(page).press('ArrowUp'); // edits the last message
      await expect(messageBox(page)).toHaveValue(SECRET);
      await messageBox(page).fill(`Edited: ${OTHER}`);
      await messageBox(page).press('Enter');
      await expect(page.getByTestId('message').filter({ hasText: OTHER })).toHaveCount(1);
      await expect(page.getByTestId('message').filter({ hasText: MARKER })).toHaveCount(0);
      await expect(page.getByTestId('version-switcher')).toContainText('Version 2 of 2');
      // A second conversation keeps the export non-empty.
      await page.getByRole('button', { name: '+ New conversation' }).click();
      await sendMessage(page, `${OTHER} Also the basil.`);
      const row = conversationRow(page, 'Edited:');
      await row.click();
      await page.getByRole('button', { name: /^Delete Edited:/ }).click();
      await confirmIn(page, 'Delete conversation', 'Delete conversation');
      await expect(conversationRow(page, 'Edited:')).toHaveCount(0);
    },
  },
  {
    // The summary keeps its sentences under a meta key: deleting the memory a sentence quotes removes the sentence.
    path: 'delete a saved memory the Summary quotes',
    endpoint: false,
    run: async (page) => {
      await page.goto('/');
      const saved = await openSavedMemories(page);
      for (const text of [`${MARKER} is what I named my sourdough starter; it lives in the blue jar on the kitchen shelf.`, OTHER]) {
        await saved.getByLabel('Add a memory').fill(text);
        await saved.getByRole('button', { name: 'Save memory' }).click();
        await expect(saved.getByTestId('saved-item').filter({ hasText: text.slice(0, 40) })).toHaveCount(1);
      }
      await page.getByRole('tab', { name: 'Summary', exact: true }).click();
      const summary = page.getByTestId('memory-summary');
      await summary.getByRole('button', { name: 'Make summary' }).click();
      await expect(summary.getByTestId('summary-sentence').filter({ hasText: MARKER })).toHaveCount(1);
      await expect(summary.getByTestId('summary-sentence').filter({ hasText: OTHER_WORDS })).toHaveCount(1);
      await openSavedMemories(page);
      const item = saved.getByTestId('saved-item').filter({ hasText: MARKER });
      await item.getByRole('button', { name: /^Delete “/ }).click();
      await confirmIn(page, 'Delete saved memory', 'Forget for good');
      await expect(saved.getByTestId('saved-item').filter({ hasText: MARKER })).toHaveCount(0);
      await page.getByRole('tab', { name: 'Summary', exact: true }).click();
      await expect(summary.getByTestId('summary-sentence').filter({ hasText: OTHER_WORDS })).toHaveCount(1);
      await expect(summary).not.toContainText(MARKER);
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
    sent: true,
  },
  savedItemRow('a fact', FACT_MARK),
  savedItemRow('a plan', PLAN_MARK),
  {
    path: 'delete a profile item (Profile)',
    endpoint: true,
    markers: [PROFILE_MARK],
    sent: true,
    run: async (page) => {
      await openDerivedMemory(page, [PROFILE_MARK]);
      await openSavedMemories(page);
      await page.getByRole('tab', { name: 'Profile', exact: true }).click();
      const item = page.getByTestId('profile-item').filter({ hasText: PROFILE_MARK });
      await expect(item).toHaveCount(1);
      await item.getByRole('button', { name: /^Delete / }).click();
      await confirmIn(page, 'Delete profile item', 'Forget for good');
      await expect(page.getByTestId('profile-item').filter({ hasText: PROFILE_MARK })).toHaveCount(0);
    },
  },
  {
    path: 'delete an episode (Episodes)',
    endpoint: true,
    markers: [EPISODE_MARK],
    sent: true,
    run: async (page) => {
      await openDerivedMemory(page, [EPISODE_MARK]);
      await openSavedMemories(page);
      await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
      await page.getByTestId('memcell-row').filter({ hasText: EPISODE_MARK }).click();
      await page.getByTestId('memcell-detail').getByRole('button', { name: 'Delete episode' }).click();
      await confirmIn(page, 'Delete episode', 'Delete for good');
      await expect(page.getByTestId('memcell-row').filter({ hasText: EPISODE_MARK })).toHaveCount(0);
    },
  },
  {
    path: 'forget a theme (Themes has no delete: Forget lists it)',
    endpoint: true,
    markers: [THEME_MARK],
    run: async (page) => {
      await openDerivedMemory(page, []);
      await openSavedMemories(page);
      await page.getByRole('tab', { name: 'Themes', exact: true }).click();
      await expect(page.getByTestId('scene-row').filter({ hasText: THEME_MARK })).toHaveCount(1);
      await forgetWord(page, THEME_MARK);
      await page.getByRole('tab', { name: 'Themes', exact: true }).click();
      await expect(page.getByTestId('scene-row').filter({ hasText: THEME_MARK })).toHaveCount(0);
    },
  },
  {
    path: 'Forget a word (the turn, its title, facts, episode and profile it reached)',
    endpoint: true,
    sent: true,
    run: async (page) => {
      await page.goto('/');
      await connectEndpoint(page, mock.url);
      await replaceMemory(page, PREFILL, /Imported 4 messages/);
      expect(await whatWasSent(page)).toContain(MARKER);
      await forgetWord(page, MARKER);
      await backToChat(page);
    },
  },
  {
    path: 'Delete all… (Saved memories)',
    endpoint: true,
    markers: [FACT_MARK, PLAN_MARK, PROFILE_MARK],
    sent: true,
    run: async (page) => {
      await openDerivedMemory(page, [FACT_MARK, PLAN_MARK, PROFILE_MARK]);
      const saved = await openSavedMemories(page);
      await saved.getByRole('button', { name: 'Delete all…' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Delete all saved memories' });
      await expect(confirm.getByTestId('delete-all-summary')).toContainText(/1 about you, \d+ plans? ahead and \d+ facts?/);
      await confirm.getByRole('button', { name: /^Delete \d+$/ }).click();
      await expect(confirm).toBeHidden({ timeout: 60_000 });
      await expect(saved.getByTestId('saved-item')).toHaveCount(0);
    },
  },
];

const dayFromNow = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The synthesis responder with every derived item rewritten to carry its own marker, and nothing
 * of the turns' words that a marker could hide behind: the episode's title and narrative, one fact,
 * one plan (ahead of today), the theme's title and summary, one profile item.
 */
const derivedResponder: MockResponder = (req) => {
  const out = synthesisResponder(req);
  const prompt = req.messages.find((m) => m.role === 'user')?.content ?? '';
  // Only the episode of the first turn gets the markers: under load a later turn can close an episode
  // of its own first, and a second marked plan or fact made every "exactly one" check fail.
  if (prompt.includes('\nTURNS:\n') && prompt.includes('KNOWN FACTS:') && prompt.includes(PLAIN.slice(0, 48))) {
    const cell = JSON.parse(out) as { facts: { turns: number[] }[] };
    const turns = cell.facts[0]?.turns ?? [1];
    return JSON.stringify({
      title: `Sourdough starter at ${EPISODE_MARK}`,
      narrative: `You talked about the sourdough starter you keep at ${EPISODE_MARK}.`,
      facts: [
        {
          text: `The sourdough starter jar is labelled ${FACT_MARK}.`,
          speaker: 'You',
          kind: 'new',
          replaces: null,
          turns,
          validFrom: null,
          validTo: null,
        },
      ],
      foresight: [
        { text: `Feed the sourdough starter at ${PLAN_MARK} on Sunday.`, start: dayFromNow(1), end: dayFromNow(6), evidence: turns },
      ],
    });
  }
  // Likewise only the theme holding that episode (under load the turns were once cut into two episodes, each in a theme of its own).
  if (prompt.includes('\nNEW EPISODES:\n') && (prompt.includes(EPISODE_MARK) || prompt.includes(THEME_MARK)))
    return JSON.stringify({ title: `Baking at ${THEME_MARK}`, summary: `Bread baking, kept under ${THEME_MARK}.` });
  if (prompt.includes('CURRENT PROFILE:\n')) {
    const ops = (JSON.parse(out) as { operations: { evidence: string[] }[] }).operations;
    if (ops.length === 0 || prompt.includes(PROFILE_MARK)) return JSON.stringify({ operations: [] });
    return JSON.stringify({
      operations: [
        {
          op: 'add',
          id: null,
          kind: 'explicit',
          key: 'sourdough starter',
          value: `Named after a grandmother, in the ${PROFILE_MARK} jar`,
          confidence: 0.8,
          evidence: ops[0]!.evidence,
          reason: 'from scene summary',
        },
      ],
    });
  }
  return out;
};
let derived = false;

/**
 * A memory synthesised in Node through the engine with the mock endpoint: `first` then OTHER in
 * "Kitchen", closed and synthesised (eager), then QUESTION asked in "Later" and answered, so its
 * stored request carries what answering was sent. `check` says why the file is fit for its rows;
 * the file is saved without vectors to `path`.
 */
async function synthesiseAndAsk(
  first: string,
  path: string,
  check: (store: SqliteMemoryStore, sent: string, engine: ReturnType<typeof createEngine>) => Promise<void>,
): Promise<void> {
  const store = await openNodeStore();
  const llm = new LlmClient(
    { baseUrl: mock.url, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  );
  const engine = createEngine(store, {
    embedders: topicProvider(['sourdough', 'ferns']),
    llm,
    timer: immediateTimer,
    profileDebounceMs: 0,
  });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  const t0 = Date.now() - 3 * 86_400_000;
  await store.createConversation({ id: 'kitchen', title: 'Kitchen' });
  await engine.conversations.appendTurn({
    id: 'k1',
    conversationId: 'kitchen',
    role: 'user',
    speaker: 'You',
    content: first,
    occurredAt: t0,
  });
  await engine.conversations.appendTurn({
    id: 'k2',
    conversationId: 'kitchen',
    role: 'user',
    speaker: 'You',
    content: OTHER,
    occurredAt: t0 + 60_000,
  });
  await engine.idle();
  await engine.closeOpenCells();
  await engine.idle();
  await store.createConversation({ id: 'later', title: 'Later' });
  await engine.conversations.appendTurn({
    id: 'q1',
    conversationId: 'later',
    role: 'user',
    speaker: 'You',
    content: QUESTION,
    occurredAt: t0 + 86_400_000,
  });
  await engine.idle();
  await engine.answers.ask({ conversationId: 'later', userMessageId: 'q1', answerId: 'a1' }, () => undefined);
  await check(store, JSON.stringify((await store.getMessage('a1'))!.metadata), engine);
  await saveWithoutVectors(store, path);
  engine.stop();
}

/** The profile row's memory: the marker turn gives an episode, a theme and a profile item quoting it, all sent with the answer. */
const prefill = () =>
  synthesiseAndAsk(SECRET, PREFILL, async (_store, sent, engine) => {
    const profile = await engine.profile.list();
    if (!profile.some((p) => p.value.includes(MARKER)))
      throw new Error(`the prefill should give a profile item quoting the marker: ${JSON.stringify(profile)}`);
    if (!sent.includes(MARKER)) throw new Error('the stored request should carry the marker');
  });

/**
 * The derived rows' memory: turns with no marker, synthesised with `derivedResponder`; the
 * answer's stored request carries the fact, the plan, the profile item and the episode.
 */
async function prefillDerived(): Promise<void> {
  derived = true;
  try {
    await synthesiseAndAsk(PLAIN, PREFILL_DERIVED, async (store, sent) => {
      for (const m of [FACT_MARK, PLAN_MARK, PROFILE_MARK, EPISODE_MARK])
        if (!sent.includes(m)) throw new Error(`the stored request should carry ${m}: ${sent.slice(0, 3000)}`);
      const [theme] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM memscenes WHERE summary LIKE ?', [`%${THEME_MARK}%`]);
      if (Number(theme?.n) !== 1) throw new Error('the prefill should give a theme whose summary holds its marker');
    });
  } finally {
    derived = false;
  }
}

test.beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => (req.stream ? 'Your starter has a name [1].' : derived ? derivedResponder(req) : synthesisResponder(req)),
  });
  await prefill();
  await prefillDerived();
});
test.afterAll(async () => mock.close());

for (const row of rows) {
  test(`${row.path}${row.endpoint ? ' (with an endpoint)' : ' (memory only)'}: the marker is in no live file, export or title`, async ({
    page,
  }, info) => {
    test.setTimeout(120_000);
    const markers = row.markers ?? [MARKER];
    await row.run(page);
    await backToChat(page);
    for (const m of markers) await expect(page.getByRole('navigation', { name: 'Conversations' })).not.toContainText(m);
    // A deletion returns once its rows are gone; its words leave the full-text index pages and the
    // log in steps right after (WaSqliteDatabase's scrub), so the live files are searched until then.
    await expect.poll(() => opfsFilesHolding(page, markers), { timeout: 60_000 }).toEqual([]);
    expect(await exportHolds(page, info.outputPath('export.sqlite'), markers)).toBe(false);
    if (row.sent) {
      const sent = await whatWasSent(page);
      for (const m of markers) expect(sent, `"What was sent" after the deletion holds ${m}`).not.toContain(m);
    }
  });
}
