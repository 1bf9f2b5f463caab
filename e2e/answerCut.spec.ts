/**
 * The answer path says what happened, in the browser: a stream whose connection
 * breaks mid-answer is reported as cut (not "could not reach … CORS"), its text stays visible
 * marked as partial with Try again; an answer ended by the token limit is stored and shown as cut off.
 */
import { expect, test } from '@playwright/test';
import { defaultResponder, startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { connectEndpoint, messageBox as box } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    chunkDelayMs: 150,
    responder: (req) =>
      req.stream ? 'Basil grows well next to tomatoes because both like warm sun and steady water in summer.' : defaultResponder(req),
  });
});
test.afterAll(async () => mock.close());

test('a cut stream is shown as partial with Try again; a length-limited answer is marked cut off', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await connectEndpoint(page, mock.url);

  mock.setBehaviour({ dropStreamNext: 1 });
  await expect(page.getByTestId('no-endpoint')).toBeHidden();
  await box(page).fill('What grows with basil?');
  await box(page).press('Enter');
  const streaming = page.getByTestId('streaming-answer');
  const alert = streaming.getByRole('alert');
  // The first answer of a fresh profile waits for the embedding model to load (slow on a loaded machine).
  await expect(alert).toContainText('The answer was cut off', { timeout: 60_000 });
  await expect(alert).not.toContainText('CORS');
  await expect(streaming).toContainText('Basil');
  await expect(streaming.getByTestId('answer-partial')).toBeVisible();
  await streaming.getByRole('button', { name: 'Try again' }).click();
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message').last()).toContainText('steady water in summer');
  await expect(page.getByTestId('answer-cut-off')).toHaveCount(0);

  mock.setBehaviour({ truncateNext: 1 });
  await box(page).fill('And with tomatoes?');
  await box(page).press('Enter');
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message').last().getByTestId('answer-cut-off')).toHaveText('cut off (token limit)');
  await page.reload();
  // The conversation is titled from its first message.
  await page
    .getByRole('button', { name: /What grows with basil/ })
    .first()
    .click();
  await expect(page.getByTestId('message').last().getByTestId('answer-cut-off')).toBeVisible();
});
