/**
 * The engine worker dies (closed from inside, as a crash or an out-of-memory kill would end it):
 * the app notices, says so, starts a new engine, and keeps what the person typed. An answer that
 * was streaming when the worker died fails with that reason instead of hanging for ever.
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { connectEndpoint, messageBox as box, printPageOnFailure } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    chunkDelayMs: 400,
    responder: () => 'Tomatoes like basil, marigolds and borage; they dislike fennel and cabbage in the same bed.',
  });
});
test.afterAll(async () => mock.close());

/** Ends the engine worker from inside; the page gets no event for this. */
async function killEngine(page: Page): Promise<void> {
  const worker = page.workers().find((w) => w.url().includes('engine.worker'));
  if (!worker) throw new Error('no engine worker');
  await worker.evaluate(() => (self as unknown as { close(): void }).close()).catch(() => undefined);
}

printPageOnFailure();

/**
 * Arms the engine worker to end itself instead of replying to the send that stored `content`: the
 * turn is committed (the send's transaction finished before its reply is posted) and the page never
 * hears so — the engine died between the commit and the acknowledgement.
 */
async function dieBeforeAcknowledging(page: Page, content: string): Promise<void> {
  const worker = page.workers().find((w) => w.url().includes('engine.worker'));
  if (!worker) throw new Error('no engine worker');
  await worker.evaluate((marker) => {
    const scope = self as unknown as { postMessage(data: unknown, transfer?: Transferable[]): void; close(): void };
    const post = scope.postMessage.bind(scope);
    // Comlink replies with { id, type: 'RAW', value: Result } through the worker's own postMessage.
    scope.postMessage = (data, transfer) => {
      const reply = data as { type?: string; value?: { ok?: boolean; value?: { content?: unknown } } } | null;
      if (reply?.type === 'RAW' && reply.value?.ok === true && reply.value.value?.content === marker) {
        scope.close();
        return;
      }
      post(data, transfer);
    };
  }, content);
}

/** A new conversation holding one stored turn: the engine is up and has written. */
async function newConversationWithOneTurn(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await box(page).fill('The first turn is stored.');
  await box(page).press('Enter');
  await expect(page.getByTestId('message-count')).toHaveText('1');
}

test('a dead engine worker is detected and restarted; the draft stays and is sent afterwards', async ({ page }) => {
  await newConversationWithOneTurn(page);

  await box(page).fill('This draft must survive.');
  await killEngine(page);
  await expect(page.getByRole('alert').filter({ hasText: 'The memory engine stopped unexpectedly and was restarted' })).toBeVisible();
  await expect(box(page)).toHaveValue('This draft must survive.');
  await box(page).press('Enter');
  await expect(page.getByTestId('message').filter({ hasText: 'This draft must survive.' })).toBeVisible();
  await expect(page.getByTestId('message-count')).toHaveText('2');
  await page.reload();
  await expect(page.getByTestId('message-count')).toHaveText('2');
});

test('an answer streaming when the engine dies fails with that reason, and the next one works', async ({ page }) => {
  test.setTimeout(180_000); // the first answer alone may wait 60 s for the embedding model on a loaded machine
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await connectEndpoint(page, mock.url);
  await box(page).fill('What grows well with tomatoes?');
  await box(page).press('Enter');
  const streaming = page.getByTestId('streaming-answer');
  // The first answer of a fresh profile waits for the embedding model to load (slow on a loaded machine).
  await expect(streaming).toContainText('Tomatoes', { timeout: 60_000 });
  await killEngine(page);
  await expect(streaming.getByRole('alert')).toContainText('The memory engine stopped unexpectedly');
  await expect(page.getByTestId('message').filter({ hasText: 'What grows well with tomatoes?' })).toBeVisible();
  // As a person would: try again once the app says the engine was restarted.
  await expect(page.getByRole('alert').filter({ hasText: 'The memory engine stopped unexpectedly and was restarted' })).toBeVisible();
  await streaming.getByRole('button', { name: 'Try again' }).click();
  await expect(streaming).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('message').last()).toContainText('cabbage in the same bed');
});

test('the engine dies after storing a message and before acknowledging it: Enter again, as invited, stores it once', async ({ page }) => {
  await newConversationWithOneTurn(page);

  // A real-length message (≈1,100 characters, with a code block), as people send.
  const content = [
    'I keep losing track of which backups ran, so here is the script my laptop runs every night at 02:00:',
    '',
    '```sh',
    'rsync -a --delete ~/notes/ /mnt/backup/notes/',
    'date >> ~/backup.log',
    '```',
    '',
    'It copies the notes folder to the external disk and appends the date to a log file. '.repeat(11).trim(),
  ].join('\n');
  await box(page).fill(content);
  await dieBeforeAcknowledging(page, content);
  await box(page).press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'The memory engine stopped unexpectedly and was restarted' })).toBeVisible();
  // The reply was lost, so the message is still in the box, as the notice says.
  await expect(box(page)).toHaveValue(content);
  await box(page).press('Enter');
  await expect(box(page)).toHaveValue('');
  await expect(page.getByTestId('message-count')).toHaveText('2');
  await page.reload();
  await expect(page.getByTestId('message-count')).toHaveText('2');
  await expect(page.getByTestId('message').filter({ hasText: 'appends the date to a log file' })).toHaveCount(1);
});

/**
 * The engine worker dies while the memory is still opening (before or after it took its lifeline,
 * at a few points of the open): the page must still notice, say so and open the memory in a new
 * worker — never stay on "Opening your memory…" with nothing said.
 */
for (const delayMs of [0, 150, 600, 2_000]) {
  test(`the engine dies ${delayMs} ms into opening the memory: the restart is said and the memory opens`, async ({ page }) => {
    await newConversationWithOneTurn(page); // a memory to open again
    const killed = new Promise<void>((resolve) => {
      let armed = true; // the first engine worker after the reload only: its successor must live
      page.on('worker', (worker) => {
        if (!armed || !worker.url().includes('engine.worker')) return;
        armed = false;
        setTimeout(() => {
          void worker
            .evaluate(() => (self as unknown as { close(): void }).close())
            .catch(() => undefined)
            .finally(resolve);
        }, delayMs);
      });
    });
    await page.reload();
    await killed;
    await expect(page.getByRole('alert').filter({ hasText: 'The memory engine stopped unexpectedly and was restarted' })).toBeVisible({
      timeout: 30_000,
    });
    await expect(page.getByTestId('message-count')).toHaveText('1', { timeout: 30_000 });
    await box(page).fill('Stored after the restart.');
    await box(page).press('Enter');
    await expect(page.getByTestId('message-count')).toHaveText('2');
  });
}
