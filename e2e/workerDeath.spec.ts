/**
 * The model worker dies — closed from inside, as running out of memory while loading a large model
 * on a phone ends it — while an answer is under way: the app notices, says so in
 * plain words, starts a new model worker, keeps what the person typed, and the next question is
 * answered (its embedding comes from the new worker). The device-LLM worker's death:
 * e2e/deviceLlmDeath.spec.ts; the engine worker's: e2e/engineRestart.spec.ts.
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { connectEndpoint, messageBox as box, printPageOnFailure } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ chunkDelayMs: 300, responder: () => 'Tomatoes like basil, marigolds and borage; they dislike fennel and cabbage in the same bed.' });
});
test.afterAll(async () => mock.close());

printPageOnFailure();

/**
 * Ends the worker whose script is `script` from inside; the page gets no message for this. (A real
 * out-of-memory in a dedicated worker is not reproducible here: Chromium takes the whole renderer
 * down with it — "Target crashed" — so the page has nothing left to notice with. Closing from
 * inside ends the worker the same way for the page: its lock is released, nothing is said.)
 */
async function kill(page: Page, script: string): Promise<void> {
  const worker = page.workers().find((w) => w.url().includes(script));
  if (!worker) throw new Error(`no ${script}`);
  await worker.evaluate(() => (self as unknown as { close(): void }).close()).catch(() => undefined);
}

const stoppedNotice = (page: Page) => page.getByRole('alert').filter({ hasText: 'The model worker (search and embedding models) stopped unexpectedly' });

{
  test('the model worker dies during an answer: said in plain words, restarted, the draft kept, the next question answered', async ({ page }) => {
    test.setTimeout(180_000); // the first answer may wait for the embedding model on a loaded machine
    await page.goto('/');
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await connectEndpoint(page, mock.url);
    await box(page).fill('What grows well with tomatoes?');
    await box(page).press('Enter');
    const streaming = page.getByTestId('streaming-answer');
    await expect(streaming).toContainText('Tomatoes', { timeout: 60_000 });

    await box(page).fill('This draft must survive.');
    await kill(page, 'model.worker');
    await expect(stoppedNotice(page)).toBeVisible();
    // The answer came from the endpoint and goes on; nothing typed is lost.
    await expect(streaming).toBeHidden({ timeout: 60_000 });
    await expect(page.getByTestId('message')).toHaveCount(2);
    await expect(box(page)).toHaveValue('This draft must survive.');

    await box(page).press('Enter');
    await expect(page.getByTestId('message').filter({ hasText: 'This draft must survive.' })).toBeVisible();
    await expect(page.getByTestId('message')).toHaveCount(4, { timeout: 60_000 });
    await expect(page.getByTestId('message').last()).toContainText('cabbage in the same bed');
  });
}
