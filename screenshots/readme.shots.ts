/**
 * Regenerates the README screenshots (`npm run screenshots`): the chat with a cited answer and
 * the memory line, Saved memories in dark mode, and the chat on a phone. The endpoint is the mock
 * server, so the texts are canned; the screens are the real app.
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, TITLE_PROMPT_START, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) =>
      req.stream
        ? 'Biscuit, your beagle mix, has his vet appointment **next Tuesday at 10:00** [1]. You also mentioned he learned to sit last week.'
        : req.messages[0]?.content.startsWith(TITLE_PROMPT_START)
          ? 'Biscuit the beagle'
          : synthesisResponder(req),
  });
});
test.afterAll(async () => mock.close());

const box = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });

async function say(page: Page, text: string, messages: number) {
  await box(page).fill(text);
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(messages, { timeout: 60_000 });
}

test('README screenshots', async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Base URL').fill(mock.url);
  await page.getByLabel('Model', { exact: true }).fill('mock-model');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('endpoint-state')).toContainText('In use');
  // The radio follows the saved policy, so it turns on once the engine has stored it.
  await page.getByRole('radio', { name: /Every episode/ }).click();
  await expect(page.getByRole('radio', { name: /Every episode/ })).toBeChecked();
  await page.getByRole('button', { name: 'Close settings' }).click();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await say(page, 'I adopted a beagle mix named Biscuit. The vet appointment is next Tuesday at 10:00.', 2);
  await say(page, `${'Biscuit learned to sit this week and he loves the park by the river. '.repeat(120)}`, 4);
  await say(page, "When is Biscuit's vet appointment?", 6);
  await expect(page.getByTestId('memory-activity')).toBeVisible({ timeout: 90_000 });
  await page.screenshot({ path: 'docs/screenshots/chat.png' });

  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('tab', { name: 'Saved memories' }).click();
  await page.getByLabel('Add a memory').fill('I am vegetarian.');
  await page.getByRole('button', { name: 'Save memory' }).click();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: 'docs/screenshots/saved-memories.png' });

  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.screenshot({ path: 'docs/screenshots/phone.png' });
});
