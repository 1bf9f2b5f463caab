/**
 * The model worker dies — closed from inside, or crashed by running out of memory, as loading a
 * large model on a phone may end it — while an answer is under way: the app notices, says so in
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

type Death = 'close' | 'crash';

/** Ends the worker whose script is `script` from inside; the page gets no message for this. */
async function kill(page: Page, script: string, how: Death): Promise<void> {
  const worker = page.workers().find((w) => w.url().includes(script));
  if (!worker) throw new Error(`no ${script}`);
  if (how === 'close') {
    await worker.evaluate(() => (self as unknown as { close(): void }).close()).catch(() => undefined);
    return;
  }
  // Out of memory: allocate until the worker's heap limit ends it (never answers; not awaited).
  void worker.evaluate(() => {
    const hoard: unknown[] = [];
    for (;;) hoard.push(new Array<number>(1 << 24).fill(0.5));
  }).catch(() => undefined);
}

const stoppedNotice = (page: Page) => page.getByRole('alert').filter({ hasText: 'The model worker (search and embedding models) stopped unexpectedly' });

for (const how of ['close', 'crash'] as const) {
  test(`the model worker dies (${how}) during an answer: said in plain words, restarted, the draft kept, the next question answered`, async ({ page }) => {
    test.setTimeout(180_000); // the first answer may wait for the embedding model on a loaded machine
    await page.goto('/');
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await connectEndpoint(page, mock.url);
    await box(page).fill('What grows well with tomatoes?');
    await box(page).press('Enter');
    const streaming = page.getByTestId('streaming-answer');
    await expect(streaming).toContainText('Tomatoes', { timeout: 60_000 });

    await box(page).fill('This draft must survive.');
    await kill(page, 'model.worker', how);
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
