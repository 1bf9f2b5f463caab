/**
 * Versions of a turn, end to end in the built app with the mock endpoint: a regenerated answer
 * keeps the earlier one and its "what was sent" (‹ 1/2 ›), an edit of a message in the middle keeps
 * the turns after it in version 1, and search follows the version shown.
 */
import { expect, test, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box, sendMessage, waitForMessages } from './appSteps';

let mock: MockLlmServer;
let answered = 0;

test.beforeAll(async () => {
  mock = await startMockLlmServer({
    // Each streamed answer says which one it is, so two versions of an answer differ.
    responder: (req) => (req.stream ? `Answer number ${++answered} about the ferry.` : synthesisResponder(req)),
  });
});
test.afterAll(async () => mock.close());

const messages = (page: Page) => page.getByTestId('message');
const switcher = (page: Page) => page.getByTestId('version-switcher');

test('a regenerated answer keeps the earlier one and its "what was sent"; an edit in the middle keeps what followed', async ({ page }) => {
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'When does the ferry to Ilha leave?');
  await waitForMessages(page, 2);
  const first = await messages(page).nth(1).innerText();
  expect(first).toContain('about the ferry');

  // Regenerate: a new answer, ‹ 2/2 ›.
  await messages(page).nth(1).getByRole('button', { name: 'Regenerate answer' }).click();
  await waitForMessages(page, 2);
  await expect(switcher(page)).toContainText('Version 2 of 2');
  await expect(messages(page).nth(1)).not.toHaveText(first);

  // The switcher is labelled, reachable by keyboard, and axe-clean.
  expect((await new AxeBuilder({ page }).include('[data-testid="messages"]').analyze()).violations.map((v) => v.id)).toEqual([]);
  await switcher(page).getByRole('button', { name: 'Previous version' }).focus();
  await expect(switcher(page).getByRole('button', { name: 'Previous version' })).toBeFocused();

  // Back to 1/2 (from the keyboard): the first answer and its own "what was sent".
  await page.keyboard.press('Enter');
  await expect(switcher(page)).toContainText('Version 1 of 2');
  await expect(messages(page).nth(1)).toContainText(first.split('\n').find((l) => l.includes('Answer number'))!);
  await messages(page).nth(1).getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('sent-content').filter({ hasText: 'When does the ferry to Ilha leave?' }).first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Close what was sent' }).click();

  // A second exchange, then edit the first message (in the middle now).
  await sendMessage(page, 'Is there a pelican colony on the island?');
  await waitForMessages(page, 4);
  await messages(page).first().getByRole('button', { name: 'Edit message' }).click();
  await expect(box(page)).toHaveValue('When does the ferry to Ilha leave?');
  await box(page).fill('When does the night bus leave?');
  await box(page).press('Enter');
  await waitForMessages(page, 2);
  await expect(messages(page).first()).toContainText('night bus');
  await expect(switcher(page).first()).toContainText('Version 2 of 2');

  // Hidden text is not found by search.
  await page.getByLabel('Search memory').fill('pelican');
  await expect(page.getByTestId('search-hit')).toHaveCount(0);
  await page.getByLabel('Search memory').fill('');

  // Version 1 brings back the later turns, and they are searchable again.
  await switcher(page).first().getByRole('button', { name: 'Previous version' }).click();
  await expect(messages(page)).toHaveCount(4);
  await expect(messages(page).filter({ hasText: 'pelican colony' })).toHaveCount(1);
  await expect(messages(page).filter({ hasText: 'night bus' })).toHaveCount(0);
  await page.getByLabel('Search memory').fill('pelican');
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
});
