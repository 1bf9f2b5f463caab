/**
 * Memory → Summary through the running app. Memory only (no endpoint): the empty state guides to
 * Saved memories; memories written there become a summary made from the items, each sentence with a
 * source that opens its item in the explorer; keyboard reachable, axe clean; a new memory marks it
 * stale and Refresh remakes it. With the mock endpoint: Make summary shows its progress, the
 * endpoint's sentences (scripted below, citing the labels it was shown) are shown, and a sentence
 * edited in place is saved as a memory written by you and is still there after a reload.
 * Mock LLM server: pipeline behaviour only.
 */
import { expect, test, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { startMockLlmServer, type MockChatRequest, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { SUMMARY_PROMPT_START } from '../src/core/explorer/summaryPrompt';
import { connectEndpoint, openSavedMemories } from './appSteps';
import { installLanguageModelStub, type LanguageModelStubLog } from './promptApiStub';

const NURSE =
  'I work night shifts as a nurse at St James hospital in Leeds, mostly on the cardiac ward, four nights on and three off, and I sleep until two in the afternoon after a shift.';
const SISTER = 'My sister Marta lives in Porto with her two kids, Inês and Tomás, and I visit her every August for two weeks.';
const FOOD = 'I am vegetarian and prefer quick dinners, under thirty minutes, with lentils or chickpeas.';
const LATER = 'I am learning Portuguese on Tuesday evenings with a teacher from Braga.';

let mock: MockLlmServer;

/** The endpoint's summary: one sentence per memory, each citing the label the prompt gave that memory. */
function summaryReply(req: MockChatRequest): string {
  const items = req.messages[1]?.content ?? '';
  const label = (words: string) => /^(M\d+) /.exec(items.split('\n').find((l) => l.includes(words)) ?? '')?.[1] ?? 'none';
  return JSON.stringify({
    paragraphs: [
      { topic: 'Work', sentences: [{ text: 'You work nights as a cardiac nurse in Leeds.', items: [label('cardiac')] }] },
      { topic: 'People', sentences: [{ text: 'Your sister Marta lives in Porto with her two children.', items: [label('Marta')] }] },
      { topic: 'Preferences', sentences: [{ text: 'You eat no meat and like quick dinners.', items: [label('vegetarian')] }] },
    ],
  });
}

test.beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) =>
      req.messages[0]?.content.startsWith(SUMMARY_PROMPT_START) ? summaryReply(req) : req.stream ? 'Noted.' : synthesisResponder(req),
  });
});
test.afterAll(async () => mock.close());

async function addMemories(page: Page, texts: readonly string[]): Promise<void> {
  const saved = await openSavedMemories(page);
  for (const text of texts) {
    await saved.getByLabel('Add a memory').fill(text);
    await saved.getByRole('button', { name: 'Save memory' }).click();
    await expect(saved.getByTestId('saved-item').filter({ hasText: text.slice(0, 40) })).toHaveCount(1);
  }
}

async function openSummary(page: Page) {
  const memory = page.getByRole('button', { name: 'Memory', exact: true });
  if ((await memory.getAttribute('aria-pressed')) !== 'true') await memory.click();
  await page.getByRole('tab', { name: 'Summary', exact: true }).click();
  return page.getByTestId('memory-summary');
}

const sentence = (page: Page, text: string) => page.getByTestId('summary-sentence').filter({ hasText: text });

test('memory only: from the empty state to a summary made from the items, each sentence opening its item; stale and Refresh', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto('/');
  const summary = await openSummary(page);
  await expect(summary.getByTestId('summary-empty')).toContainText('Nothing to summarise yet');
  await summary.getByRole('button', { name: 'add a memory in Saved memories' }).click();
  await expect(page.getByTestId('saved-memories')).toBeVisible();
  await addMemories(page, [NURSE, SISTER, FOOD]);

  await page.getByTestId('saved-memories').getByRole('button', { name: 'Read the summary' }).click();
  await expect(summary).toContainText('No summary yet. Make one from your 3 memories');
  await summary.getByRole('button', { name: 'Make summary' }).click();
  await expect(summary.getByTestId('summary-sentence')).toHaveCount(3);
  await expect(summary.getByTestId('summary-meta')).toContainText('Made by your memories directly, without a model');
  for (const topic of ['Work', 'People', 'Preferences']) await expect(summary.getByRole('heading', { name: topic })).toBeVisible();
  // Each sentence is the memory's words, with one source.
  await expect(sentence(page, 'cardiac ward').getByTestId('summary-source')).toHaveCount(1);

  const axe = await new AxeBuilder({ page }).include('#explorer-panel').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);

  // By keyboard: from Refresh, Tab reaches the first sentence's source; Enter opens that item in the explorer.
  await summary.getByRole('button', { name: 'Refresh' }).focus();
  await page.keyboard.press('Tab');
  const firstSource = summary.getByTestId('summary-source').first();
  await expect(firstSource).toBeFocused();
  const firstWords = (await summary.getByTestId('summary-sentence').first().locator('.summary-text').innerText()).slice(0, 30);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: 'Profile', exact: true })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('profile-item').filter({ hasText: firstWords })).toHaveClass(/highlight/);

  // A new memory: the kept summary is stale until Refresh.
  await addMemories(page, [LATER]);
  await openSummary(page);
  await expect(summary.getByTestId('summary-stale')).toBeVisible();
  await expect(summary.getByTestId('summary-sentence')).toHaveCount(3);
  await summary.getByRole('button', { name: 'Refresh' }).click();
  await expect(summary.getByTestId('summary-sentence')).toHaveCount(4);
  await expect(summary.getByTestId('summary-stale')).toHaveCount(0);
});

test('with the endpoint: made by it with progress shown; a sentence edited in place is a memory written by you and survives a reload', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await addMemories(page, [NURSE, SISTER, FOOD]);
  const summary = await openSummary(page);
  const asked = mock.requests.length;
  mock.setBehaviour({ latencyMs: 2_500 });
  try {
    await summary.getByRole('button', { name: 'Make summary' }).click();
    await expect(summary.getByRole('status')).toHaveText('Writing the summary with your AI endpoint…');
    await expect(sentence(page, 'You work nights as a cardiac nurse in Leeds.')).toBeVisible({ timeout: 30_000 });
  } finally {
    mock.setBehaviour({ latencyMs: 0 });
  }
  await expect(summary.getByTestId('summary-meta')).toContainText('Made by your AI endpoint');
  await expect(summary.getByTestId('summary-note')).toHaveCount(0);
  await expect(summary.getByTestId('summary-sentence')).toHaveCount(3);
  // The endpoint was sent every memory, under labels.
  const sent = JSON.stringify(mock.requests.slice(asked).map((r) => r.body));
  for (const words of ['cardiac ward', 'Marta lives in Porto', 'vegetarian']) expect(sent).toContain(words);

  // Edit in place: the words are saved as a memory written by you, and the sentence cites it.
  const EDITED = 'My sister Marta moved from Porto to Braga in March with her two kids.';
  await sentence(page, 'Your sister Marta')
    .getByRole('button', { name: /^Edit “Your sister Marta/ })
    .click();
  const box = summary.getByLabel('Edit this sentence');
  await expect(box).toBeFocused();
  await box.fill(EDITED);
  await summary.getByRole('button', { name: 'Save as my memory' }).click();
  await expect(sentence(page, EDITED)).toBeVisible();
  await expect(sentence(page, 'Your sister Marta')).toHaveCount(0);
  await expect(summary.getByTestId('summary-stale')).toHaveCount(0);

  const saved = await openSavedMemories(page);
  await expect(saved.getByTestId('saved-item').filter({ hasText: EDITED })).toContainText('written by you');

  await page.reload();
  const again = await openSummary(page);
  await expect(again.getByTestId('summary-sentence').filter({ hasText: EDITED })).toBeVisible();
  await expect(again.getByTestId('summary-meta')).toContainText('Made by your AI endpoint');
  // Its source opens the new memory in the explorer.
  await sentence(page, EDITED).getByTestId('summary-source').click();
  await expect(page.getByTestId('profile-item').filter({ hasText: EDITED })).toHaveClass(/highlight/);
});

test('no endpoint, the built-in model chosen on this device: the summary is made by it, each sentence citing its memory', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await context.addInitScript(installLanguageModelStub, { availability: 'available' as const, pieceMs: 20, pieces: 4, synthesis: true });
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByRole('region', { name: 'This device' }).getByRole('radio', { name: 'Built-in model (Chrome)' }).click();
  await page.getByRole('button', { name: 'Close settings' }).click();
  await addMemories(page, [NURSE, SISTER]);
  const summary = await openSummary(page);
  await summary.getByRole('button', { name: 'Make summary' }).click();
  await expect(summary.getByTestId('summary-meta')).toContainText('Made by the model on this device', { timeout: 60_000 });
  await expect(summary.getByRole('heading', { name: 'Stub topic' })).toBeVisible();
  await expect(summary.getByTestId('summary-sentence')).toHaveCount(2);
  await expect(sentence(page, 'On this device: I work night shifts as a nurse').getByTestId('summary-source')).toHaveCount(1);
  const prompts = await page.evaluate(
    () => (window as unknown as { __languageModelStub: LanguageModelStubLog }).__languageModelStub.prompts,
  );
  expect(prompts.filter((p) => p.startsWith('ITEMS:\n') && p.includes('Marta lives in Porto'))).toHaveLength(1);
});
