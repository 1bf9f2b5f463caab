/**
 * Failed synthesis is visible and can be retried in the running app: while the model sends prose
 * where synthesis needs JSON, an episode fails after its attempts and the status line says
 * "1 episode could not be summarised — Retry". The small health check keeps failing here, so the
 * work cannot come back by itself (test/core/badReplyRecovery.test.ts covers that path): only
 * Retry, pressed from the keyboard, brings it back, and the episode is summarised ("Memory
 * updated · … facts"). Nothing is timed: the waits are for the app's own retry back-offs (about 75 s).
 */
import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { firstLongTurnEveryEpisode, messageBox as box } from './appSteps';

let mock: MockLlmServer;
let synthesisWorks = false;
const isSynthesis = (content: string) => content.includes('\nTURNS:\n');
const isHealthCheck = (content: string) => content.includes('{"ok": true}');

test.beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => {
      if (req.stream) return 'Noted.';
      const prompt = req.messages.find((m) => m.role === 'user')?.content ?? '';
      if (isHealthCheck(prompt)) return 'I am fine, thank you.'; // never JSON: no recovery by itself
      if (isSynthesis(prompt) && !synthesisWorks) return 'Sure! Here is what happened in the conversation.';
      return synthesisResponder(req);
    },
  });
});
test.afterAll(async () => mock.close());

const synthesisRequests = () =>
  mock.requests.filter((r) => {
    const messages = (r.body?.messages ?? []) as { role: string; content: string }[];
    return isSynthesis(messages.find((m) => m.role === 'user')?.content ?? '');
  }).length;

test('an episode that could not be summarised is shown with Retry, and Retry gets it summarised', async ({ page }) => {
  test.setTimeout(300_000); // the episode's five attempts wait 5 + 10 + 20 + 40 s between them
  await page.goto('/');
  // Two long turns: the second overflows the episode's size cap, so the first episode closes and
  // (policy "Every episode") goes to synthesis, which gets prose back every time.
  await box(page).fill(await firstLongTurnEveryEpisode(page, mock.url));
  await box(page).press('Enter');

  const failed = page.getByTestId('status').getByTestId('failed-synthesis');
  await expect(failed).toContainText('1 episode could not be summarised', { timeout: 200_000 });
  // Facts come only from synthesis (a plan may already show: dates are read without the model).
  expect((await page.getByTestId('memory-activity').allInnerTexts()).join(' ')).not.toMatch(/fact/);

  // The model writes JSON again; its health check still fails, so nothing happens by itself.
  synthesisWorks = true;
  const before = synthesisRequests();
  const retry = failed.getByRole('button', { name: /^Retry/ });
  await retry.focus();
  await page.keyboard.press('Enter');

  await expect(failed).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByTestId('memory-activity')).toContainText(/Memory updated · .*\d+ facts?/, { timeout: 60_000 });
  expect(synthesisRequests()).toBeGreaterThan(before);

  // The overview says nothing failed any more.
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await expect(page.getByTestId('failed-synthesis-none')).toHaveText('No summaries have failed.');
});
