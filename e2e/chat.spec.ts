import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    chunkDelayMs: 400,
    // Answers (streamed) cite the first memory; synthesis stages get schema-valid JSON.
    responder: (req) =>
      req.stream ? 'From what you told me, your dog is called **Biscuit** and is a beagle mix [1].' : synthesisResponder(req),
  });
});
test.afterAll(async () => mock.close());

const configure = (page: Page, url = mock.url) => connectEndpoint(page, url);

test('chat answers from memory with a streamed, cited answer and shows what was sent', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(page.getByTestId('no-endpoint')).toBeVisible();
  // Without an endpoint turns are still stored.
  await box(page).fill('I adopted a beagle mix puppy named Biscuit.');
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(1);

  await configure(page);
  await expect(page.getByTestId('no-endpoint')).toBeHidden();
  // Asked in another conversation: the asking one's recent turns go to the model as history and
  // are not recalled (or cited) again.
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await box(page).fill('What is the name of my dog?');
  await box(page).press('Enter');
  const streaming = page.getByTestId('streaming-answer');
  await expect(streaming).toContainText('Biscuit'); // partial text arrives before the end
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  const answer = page.getByTestId('message').last();
  await expect(answer).toContainText('your dog is called Biscuit');
  await expect(answer.getByTestId('citations')).toContainText('[1]');
  await expect(answer.getByTestId('answer-tokens')).toContainText('tokens');

  await answer.getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('sent-content').filter({ hasText: 'I adopted a beagle mix puppy named Biscuit.' }).first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Close what was sent' }).click();

  // The citation points at the earlier turn, in the other conversation.
  await answer.getByRole('button', { name: 'Source 1' }).click();
  await expect(page.locator('.message.highlight')).toContainText('named Biscuit');

  // Stored and survives a reload.
  await page.reload();
  await page.locator('button.conversation').filter({ hasText: 'What is the name' }).click();
  await expect(page.getByTestId('message')).toHaveCount(2);
});

test('temporary chat stores nothing', async ({ page }) => {
  await page.goto('/');
  await configure(page);
  const before = await page.getByTestId('message-count').textContent();
  await page.getByRole('button', { name: 'Temporary chat' }).click();
  await expect(page.getByTestId('temporary-banner')).toBeVisible();
  await box(page).fill('Just between us: what is 2 + 2?');
  await box(page).press('Enter');
  await expect(page.getByTestId('temp-message')).toHaveCount(2, { timeout: 30_000 });
  await expect(page.getByTestId('message-count')).toHaveText(before ?? '0');
  await page.getByLabel('Search memory').fill('between us');
  await expect(page.getByText('Nothing stored matches these words.')).toBeVisible();
});

test('an endpoint error shows a clear message and keeps the user turn', async ({ page }) => {
  await page.goto('/');
  await configure(page, 'http://127.0.0.1:9/v1'); // nothing listens there
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await box(page).fill('Remember that my passport expires in June.');
  await box(page).press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'The answer failed' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('alert').filter({ hasText: 'Your message is saved' })).toBeVisible();
  await expect(page.getByTestId('message').filter({ hasText: 'passport expires in June' })).toHaveCount(1);
  await page.reload();
  await page.getByLabel('Search memory').fill('passport');
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
});

test('a message typed the moment "+ New conversation" is clicked goes to the new conversation, never the one on screen', async ({
  page,
}) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  for (const [i, text] of ['The plumber comes on Tuesday.', 'The boiler is in the attic.'].entries()) {
    await box(page).fill(text);
    await box(page).press('Enter');
    await expect(page.getByTestId('message')).toHaveCount(i + 1);
  }
  const first = page.getByRole('navigation', { name: 'Conversations' }).locator('li.active');
  await expect(first).toHaveCount(1);
  // In one task: click, let React render, then type into whatever message box is on screen and
  // press Enter — before the engine can have answered the click (a reply from the worker is a
  // separate task). A person typing fast after a reload, when the engine is slow to answer, does
  // the same.
  const typedInto = await page.evaluate(async () => {
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.includes('+ New conversation'))!;
    button.click();
    await Promise.resolve();
    const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]');
    if (!box) return 'no message box';
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(box, 'Where is the boiler?');
    box.dispatchEvent(new Event('input', { bubbles: true }));
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    return 'the box on screen';
  });
  expect(typedInto).toBe('no message box');
  // The new conversation opens empty, and the first one still holds its two messages.
  await expect(page.getByTestId('message')).toHaveCount(0);
  await expect(box(page)).toHaveValue('');
  await page
    .getByRole('navigation', { name: 'Conversations' })
    .getByRole('button', { name: /The plumber comes on Tuesday/ })
    .first()
    .click();
  await expect(page.getByTestId('message')).toHaveCount(2);
});
