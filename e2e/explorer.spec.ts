import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { LlmClient } from '../src/llm/LlmClient';
import { immediateTimer, topicProvider } from '../test/support/topicEmbedder';
import { createEngine } from '../src/host/createEngine';
import { connectEndpoint, replaceMemory, typeAndSend } from './appSteps';
import { saveWithoutVectors } from './fixtureMemory';

const H = 3_600_000;
const DAY = 24 * H;
const T0 = Date.now() - 6 * DAY;
const FILE = 'test-results/explorer-prefill.sqlite';
const TOPICS = ['dog', 'flight', 'rent'];
const provider = topicProvider(TOPICS);

let mock: MockLlmServer;

/**
 * Memory pre-filled through the engine in Node (mock-server synthesis, turns over several past
 * days), with one profile conflict, exported as a .sqlite file that the test imports in the UI.
 */
async function prefill(): Promise<void> {
  const store = await openNodeStore();
  const llm = new LlmClient(
    { baseUrl: mock.url, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  );
  const engine = createEngine(store, { embedders: provider, llm, timer: immediateTimer, profileDebounceMs: 0 });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  await store.createConversation({ id: 'life', title: 'Life updates' });
  let n = 0;
  const say = async (at: number, texts: string[]) => {
    for (const [i, content] of texts.entries())
      await engine.conversations.appendTurn({
        id: `m${++n}`,
        conversationId: 'life',
        role: 'user',
        speaker: 'Ana',
        content,
        occurredAt: at + i * 60_000,
      });
    await engine.idle();
    await engine.closeOpenCells();
    await engine.idle();
  };
  await say(T0, ['I adopted a dog named Biscuit.', 'The dog is a beagle mix.']);
  await say(T0 + DAY, ['I am going to Lisbon next week, the flight leaves at noon.']);
  await say(T0 + 2 * DAY, ['The dog learned to sit today.']);
  await say(T0 + 3 * DAY, ['I will pay the rent tomorrow, it went up again.']);
  const [item] = await engine.profile.list();
  await engine.profile.edit(item!.id, 'Has a beagle called Biscuit');
  await say(T0 + 4 * DAY, ['The dog chewed my slipper.']);
  if (!(await engine.profile.list()).some((p) => p.status === 'conflict')) throw new Error('the prefill should leave a profile conflict');
  await saveWithoutVectors(store, FILE);
  engine.stop();
}

test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Noted.' : synthesisResponder(req)) });
  await prefill();
});
test.afterAll(async () => mock.close());

const configure = (page: Page) => connectEndpoint(page, mock.url);

const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true });

async function searchMemory(page: Page, text: string, kinds: readonly string[]) {
  await tab(page, 'Search').click();
  for (const k of ['Messages', 'Facts', 'Episodes', 'Themes'])
    await page.getByRole('checkbox', { name: k, exact: true }).setChecked(kinds.includes(k));
  await page.getByLabel('Search all memory').fill(text);
}

test('the memory explorer shows, edits and forgets memory, and deletions stick', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await configure(page);
  await replaceMemory(page, FILE, /Imported 6 messages/);

  // Overview
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  const overview = page.getByTestId('explorer-overview');
  await expect(overview.getByRole('button', { name: /Episodes/ })).toContainText('5');
  await expect(overview).toContainText('LLM spend');
  await page.screenshot({ path: 'test-results/explorer-overview.png', fullPage: true });

  // Search with reasons
  await searchMemory(page, 'Biscuit', ['Messages', 'Facts', 'Episodes', 'Themes']);
  await expect(page.getByTestId('memory-hit').first()).toContainText('Matched:');
  await expect(page.getByTestId('memory-hit').filter({ hasText: 'in the fact' }).first()).toBeVisible();
  await page.screenshot({ path: 'test-results/explorer-search.png', fullPage: true });

  // Episodes: edit a fact, then find the edit in search
  await tab(page, 'Episodes').click();
  await page.getByTestId('memcell-row').filter({ hasText: 'I adopted a dog' }).click();
  const detail = page.getByTestId('memcell-detail');
  await detail.getByTestId('fact').first().getByRole('button', { name: 'edit' }).click();
  await detail.getByRole('textbox', { name: 'Fact' }).fill('Ana adopted a beagle called Biscuit in March.');
  await detail.getByRole('button', { name: 'Save fact' }).click();
  await expect(detail.getByTestId('fact').first()).toContainText('called Biscuit in March');
  await page.screenshot({ path: 'test-results/explorer-episodes.png', fullPage: true });
  await searchMemory(page, 'beagle called', ['Facts']);
  await expect(page.getByTestId('memory-hit').first()).toContainText('Ana adopted a beagle called Biscuit in March.');

  // Delete an episode: gone from search, and stays gone after re-consolidation and a reload
  await tab(page, 'Episodes').click();
  await page.getByTestId('memcell-row').filter({ hasText: 'The dog learned to sit' }).click();
  await detail.getByRole('button', { name: 'Delete episode' }).click();
  await page.getByRole('button', { name: 'Delete for good' }).click();
  await expect(page.getByTestId('memcell-row').filter({ hasText: 'The dog learned to sit' })).toHaveCount(0);
  await searchMemory(page, 'learned sit', ['Facts', 'Episodes']);
  await expect(page.getByText('Nothing remembered matches.')).toBeVisible();
  // Re-consolidation: re-synthesise the other dog episode (same scene), let the queue run.
  await tab(page, 'Episodes').click();
  await page.getByTestId('memcell-row').filter({ hasText: 'I adopted a dog' }).click();
  await detail.getByRole('button', { name: 'Re-synthesise' }).click();
  await tab(page, 'Overview').click();
  // Done when the scene summary has run: it re-arms the debounced profile update (30 s in the app).
  await expect(page.getByTestId('jobs-summary')).toHaveText(/^0 pending · 0 running · \d+ done · 0 failed · 1 scheduled for later$/, {
    timeout: 30_000,
  });
  await page.reload(); // reopens where it was: the explorer's Overview
  await expect(page.getByTestId('explorer-overview').getByRole('button', { name: /Episodes/ })).toContainText('4');
  await searchMemory(page, 'learned sit', ['Facts', 'Episodes']);
  await expect(page.getByText('Nothing remembered matches.')).toBeVisible();
  await searchMemory(page, 'beagle called', ['Facts']);
  await expect(page.getByTestId('memory-hit').first()).toContainText('called Biscuit in March'); // the edit survived re-synthesis

  // Profile: resolve the conflict
  await tab(page, 'Profile').click();
  const conflicted = page.locator('[data-testid="profile-item"][data-status="conflict"]');
  await expect(conflicted).toHaveCount(1);
  await page.screenshot({ path: 'test-results/explorer-profile.png', fullPage: true });
  await conflicted.getByRole('button', { name: 'Keep current' }).click();
  await expect(conflicted).toHaveCount(0);
  await expect(page.getByTestId('profile-item').filter({ hasText: 'Has a beagle called Biscuit' })).toHaveAttribute(
    'data-status',
    'active',
  );

  // Foresight: dismiss one item
  await tab(page, 'Foresight').click();
  const items = page.getByTestId('foresight-item');
  await expect(items.first()).toBeVisible();
  // Said in plain words, not the code's "active · llm".
  await expect(items.first()).toContainText(/ahead or under way · from (a conversation|a date you mentioned)/);
  await expect(items.first()).not.toContainText(/\b(llm|date-parser|active)\b/);
  const before = await items.count();
  await page.screenshot({ path: 'test-results/explorer-foresight.png', fullPage: true });
  await items.first().getByRole('button', { name: 'dismiss' }).click();
  await expect(items).toHaveCount(before - 1);
  await page.getByLabel('Show dismissed').check();
  await expect(page.locator('[data-testid="foresight-item"][data-status="dismissed"]')).toHaveCount(1);

  // Scenes map and forget preview
  await tab(page, 'Themes').click();
  await expect(page.getByTestId('scene-row').first()).toBeVisible();
  await page.getByTestId('scene-row').first().click();
  await expect(page.getByTestId('scene-detail')).toBeVisible();
  await page.screenshot({ path: 'test-results/explorer-scenes.png', fullPage: true });
  await tab(page, 'Forget').click();
  await page.getByLabel('Forget everything about').fill('rent');
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('button', { name: /Forget \d+ items/ })).toBeVisible();
  await page.screenshot({ path: 'test-results/explorer-forget.png', fullPage: true });

  // The timeline picture: one dot per episode, the plans ahead lane, "now".
  await tab(page, 'Episodes').click();
  // As the overview counted them after the reload above (waits for the list: it says 0 while loading).
  const total = 4;
  await expect(page.getByTestId('episode-count')).toHaveText(`${total} episodes`);
  await tab(page, 'Timeline').click();
  const timeline = page.getByTestId('explorer-timeline');
  await expect(timeline.locator('circle.episode-dot')).toHaveCount(total);
  await expect(timeline.locator('text.now-text')).toHaveText('now');
  await timeline.locator('circle.episode-dot').first().click({ force: true });
  await expect(tab(page, 'Episodes')).toHaveAttribute('aria-selected', 'true');

  // Phone width
  await page.setViewportSize({ width: 390, height: 800 });
  await tab(page, 'Episodes').click();
  await page.screenshot({ path: 'test-results/explorer-episodes-phone.png', fullPage: true });
});

test('an episode without a title is named by its first words, and where it stands is said in plain words', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/'); // no endpoint: nothing is summarised, the episode keeps no title
  await page.getByRole('button', { name: '+ New conversation' }).click();
  const text =
    '**Garden plan** for spring: tomatoes along the south fence, beans by the shed, and the compost moved behind the raised beds before April.';
  await typeAndSend(page, text);
  await expect(page.getByTestId('message')).toHaveCount(1);
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await tab(page, 'Episodes').click();
  const row = page.getByTestId('memcell-row').first();
  await expect(row).toContainText('Garden plan for spring: tomatoes along the south fence', { timeout: 60_000 });
  await expect(row).not.toContainText('Untitled');
  await expect(row).not.toContainText('**');
  await expect(row).not.toContainText(/\braw\b|\(open\)/);
  await expect(row).toContainText('still growing');
  await row.click();
  const detail = page.getByTestId('memcell-detail');
  await expect(detail.getByRole('heading', { level: 2 })).toContainText('Garden plan for spring');
  await expect(detail).toContainText('not in a theme yet');
  await expect(detail).not.toContainText(/scene:|\braw\b/);

  // The empty Profile says an endpoint is missing only while none is set.
  await tab(page, 'Profile').click();
  await expect(page.getByTestId('profile-empty')).toContainText('once an AI endpoint is connected');
  await configure(page);
  await expect(page.getByTestId('profile-empty')).toContainText('as your conversations are summarised');
  await expect(page.getByTestId('profile-empty')).not.toContainText('endpoint');
});
