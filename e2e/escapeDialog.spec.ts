/**
 * Escape while an answer streams: with a dialog open (Settings here) it only closes the dialog and
 * the answer goes on to its end; in the chat it stops the answer. A native modal <dialog> closes on
 * Escape without preventing the keydown, so the chat's window-level listener once stopped the
 * answer behind the dialog too.
 */
import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box, printPageOnFailure, typeAndSend, waitForMessages } from './appSteps';

/** Long enough, chunk by chunk, to press keys while it streams. */
const ANSWER = `${Array.from({ length: 20 }, (_, i) => `Sentence ${i + 1} about the garden.`).join(' ')} That is all.`;

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ chunkDelayMs: 150, responder: (req) => (req.stream ? ANSWER : synthesisResponder(req)) });
});
test.afterAll(async () => mock?.close());

printPageOnFailure();

test('Escape closes a dialog without stopping the answer; in the chat it stops the answer', async ({ page }) => {
  test.setTimeout(180_000); // the first answer of a fresh profile waits for the embedding model on a loaded machine
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();

  await typeAndSend(page, 'Tell me about the garden.');
  const streaming = page.getByTestId('streaming-answer');
  await expect(streaming).toContainText('Sentence 1 about', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await expect(settings).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();
  // The answer was not stopped: it streams on to its last words and is kept whole.
  await waitForMessages(page, 2);
  const first = page.getByTestId('message').last();
  await expect(first).toContainText('That is all.');
  await expect(first.getByText('stopped', { exact: true })).toHaveCount(0);

  await typeAndSend(page, 'And the roses?');
  await expect(streaming).toContainText('Sentence 1 about', { timeout: 60_000 });
  await box(page).press('Escape');
  await waitForMessages(page, 4);
  const second = page.getByTestId('message').last();
  await expect(second.getByText('stopped', { exact: true })).toBeVisible();
  await expect(second).not.toContainText('That is all.');
});
