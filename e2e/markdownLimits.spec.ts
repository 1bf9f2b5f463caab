/**
 * One message must not freeze or blank a conversation: a memory holding 5,000 nested quotes,
 * 40,000 emphasis openers, a plain 100,000-character message, a long code block, a 40-column table
 * and 200-deep lists, between ordinary answers, opens with every message readable (the ordinary
 * ones and those within the limits formatted, the others as plain text with "Show formatted"), and
 * the page keeps answering the keyboard. Nothing here is timed: the longest task is measured by
 * bench/markdownLimits.ts.
 */
import { expect, test, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectEndpoint, conversationRow, messageBox, replaceMemory } from './appSteps';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { EMPHASIS_OPENERS, FIXTURE_TITLE_PREFIX, NESTED_QUOTES, PLAIN_100K, buildMarkdownMemory } from '../test/support/markdownFixtures';

let dir: string;
let file: string;
let turns: number;
let conversations: number;
let mock: MockLlmServer;
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recollect-markdown-'));
  file = join(dir, 'markdown-fixtures.sqlite');
  ({ turns, conversations } = await buildMarkdownMemory(file));
  // Answers say how much of the message reached the model.
  mock = await startMockLlmServer({
    responder: (req) =>
      req.stream
        ? `I read all **${req.messages.at(-1)!.content.length.toLocaleString('en')}** characters of the request.`
        : synthesisResponder(req),
  });
});
test.afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

async function openAllFixtures(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await replaceMemory(page, file, `Imported ${turns} messages in ${conversations} conversations`, 120_000);
  await conversationRow(page, `${FIXTURE_TITLE_PREFIX}: all of them`).click();
  await expect(page.getByTestId('message')).toHaveCount(18, { timeout: 60_000 });
}

/** The assistant message (in the open conversation) whose text starts with `start`. */
const answer = (page: Page, start: string) =>
  page.getByTestId('message').filter({ has: page.getByTestId('markdown').filter({ hasText: start }) });

test('a conversation of pathological messages opens readable, and the page keeps answering', async ({ page }) => {
  test.setTimeout(240_000); // a shared 2-core machine; nothing here is timed
  await openAllFixtures(page);
  // Nothing blanked the conversation.
  await expect(page.getByTestId('view-error')).toHaveCount(0);

  // Ordinary answers, first and last, are formatted.
  const first = page.getByTestId('message').nth(1);
  await expect(first.getByRole('heading', { name: 'Planting plan' })).toBeVisible();
  await expect(first.locator('strong', { hasText: 'well' })).toBeVisible();
  await expect(first.getByRole('button', { name: 'Source 1' })).toBeVisible();
  await expect(page.getByTestId('message').last().locator('strong', { hasText: 'all' })).toBeVisible();

  // Within the limits: a long code block and a 40-column table, formatted; the table scrolls inside its message.
  const code = answer(page, 'Here is the whole module:');
  await expect(code.getByTestId('markdown')).toHaveAttribute('data-shown', 'formatted');
  await expect(code.locator('pre code.language-ts')).toContainText('const value_299 = compute_step(299, "step 299");');
  const table = answer(page, 'Measurements by column:');
  const region = table.getByRole('group', { name: 'Table' });
  await expect(region.getByRole('columnheader')).toHaveCount(40);
  const widths = await region.evaluate((el) => ({
    scroll: el.scrollWidth,
    client: el.clientWidth,
    message: el.closest('li')!.getBoundingClientRect().width,
  }));
  expect(widths.scroll).toBeGreaterThan(widths.client);
  expect(widths.message).toBeLessThanOrEqual(760);

  // Past the limits: plain text, whole, with the reason and "Show formatted".
  const plain = page.locator('[data-testid="markdown"][data-shown="plain"]');
  await expect(plain).toHaveCount(5);
  await expect(answer(page, '>>>>>>>>')).toContainText('The innermost quote says hello.');
  await expect(answer(page, '>>>>>>>>')).toContainText('Shown as plain text: it nests quotes or lists more than 16 levels deep.');
  await expect(answer(page, '*a*a*a')).toContainText('it is 80,000 characters long');
  await expect(answer(page, '- level 1')).toContainText('- level 200');
  const quotesText = await answer(page, '>>>>>>>>').locator('pre.plain-message').textContent();
  expect(quotesText).toBe(NESTED_QUOTES);
  expect(await answer(page, '*a*a*a').locator('pre.plain-message').textContent()).toBe(EMPHASIS_OPENERS);
  const long = answer(page, PLAIN_100K.slice(0, 40));
  expect(await long.locator('pre.plain-message').textContent()).toBe(PLAIN_100K);

  // The plain notes, their buttons and the scrolling table pass axe (as every view does in a11y.spec.ts).
  const axe = await new AxeBuilder({ page }).include('[data-testid="messages"]').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.length}`)).toEqual([]);

  // The page answers: typing shows in the message box.
  await messageBox(page).click();
  await page.keyboard.type('still typing fine');
  await expect(messageBox(page)).toHaveValue('still typing fine');

  // "Show formatted" from the keyboard: the 100,000 characters are parsed in the worker and drawn.
  const showLong = long.getByRole('button', { name: 'Show formatted' });
  await showLong.focus();
  await page.keyboard.press('Enter');
  await expect(long.getByTestId('markdown')).toHaveAttribute('data-shown', 'formatted', { timeout: 60_000 });
  await expect(long).toContainText('Formatted on request.');
  await long.getByRole('button', { name: 'Show plain text' }).click();
  await expect(long.getByTestId('markdown')).toHaveAttribute('data-shown', 'plain');

  // 40,000 emphasis openers do not parse by the deadline: the worker is stopped, the message stays
  // plain and says so, and the page kept answering meanwhile.
  const emphasis = answer(page, '*a*a*a');
  await emphasis.getByRole('button', { name: 'Show formatted' }).click();
  await expect(emphasis).toContainText('Formatting…');
  await messageBox(page).fill('');
  await messageBox(page).click();
  await page.keyboard.type('while it formats');
  await expect(messageBox(page)).toHaveValue('while it formats');
  await expect(emphasis).toContainText('Shown as plain text: it could not be formatted within 10 seconds.', { timeout: 60_000 });
  await expect(emphasis.getByRole('button', { name: 'Show formatted' })).toHaveCount(0);

  // A 200-deep list on request: drawn 16 levels deep, the rest as its text.
  const deep = page.getByTestId('message').nth(15); // by place: formatted, its text no longer shows the markers
  await expect(deep.getByTestId('markdown')).toContainText('- - - -');
  await deep.getByRole('button', { name: 'Show formatted' }).click();
  await expect(deep.getByTestId('markdown')).toHaveAttribute('data-shown', 'formatted', { timeout: 60_000 });
  await expect(deep.locator('ul')).toHaveCount(16);
  await expect(deep).toContainText('bottom of the list');
  await expect(deep).toContainText('nested more than 16 levels deep are shown as their text');
  await expect(page.getByTestId('view-error')).toHaveCount(0);
});

test('a plain 100,000-character message sent in that conversation is answered, and the model receives all of it', async ({ page }) => {
  test.setTimeout(240_000);
  await openAllFixtures(page);
  await connectEndpoint(page, mock.url);
  const message = `${PLAIN_100K}\n\nWhat is this text about?`;
  await messageBox(page).fill(message);
  await messageBox(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(20, { timeout: 120_000 });
  await expect(page.getByTestId('streaming-answer')).toBeHidden({ timeout: 120_000 });
  const sent = page.getByTestId('message').nth(18);
  await expect(sent).toContainText('What is this text about?');
  const reply = page.getByTestId('message').last();
  await expect(reply.getByTestId('markdown').locator('strong')).toHaveText(/^\d{3},\d{3}$/);
  const received = Number((await reply.getByTestId('markdown').locator('strong').textContent())!.replace(/,/g, ''));
  expect(received).toBeGreaterThan(message.length);
  await expect(page.getByTestId('view-error')).toHaveCount(0);
});
