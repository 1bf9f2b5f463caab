/**
 * Asking right after opening: on a load the last conversation shows at once and its box takes
 * typing while "Opening your memory…" is still up. A message sent then used to reach the engine
 * worker before it owned the database and came back as "Recollect is open in another tab" (there
 * was no other tab), and the "No AI endpoint is connected" banner showed although one was set.
 * Here the open is held back for certain — the engine worker's SQLite WebAssembly is held by the
 * test — so the message is always sent before the database is open: it must wait for the open, be
 * stored and be answered, with no error and no endpoint banner.
 */
import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box, printPageOnFailure, sendMessage, waitForMessages } from './appSteps';

// The service worker would serve SQLite's WebAssembly from its cache, past the route that holds it.
test.use({ serviceWorkers: 'block' });

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Your bike is the blue one.' : synthesisResponder(req)) });
});
test.afterAll(async () => mock?.close());

printPageOnFailure();

test('a message sent while the memory is still opening waits for the open, is stored and answered', async ({ page, context }) => {
  test.setTimeout(180_000); // the first answer of a fresh profile waits for the embedding model on a loaded machine
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'My bike is the blue one.');
  await waitForMessages(page, 2);

  // Every notice and banner the page shows from here on, kept even after it goes away.
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { seenNotices: string[] }).seenNotices = seen;
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.notice, [data-testid="no-endpoint"]')) {
        const text = el.textContent ?? '';
        if (!seen.includes(text)) seen.push(text);
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  const seenNotices = () => page.evaluate(() => (window as unknown as { seenNotices: string[] }).seenNotices);

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let asked = false;
  await context.route(/\/assets\/wa-sqlite[^/]*\.wasm$/, async (route) => {
    asked = true;
    await held;
    await route.continue().catch(() => undefined);
  });
  await page.reload();
  // The reload reopens the last conversation; its box takes typing while the memory is opening.
  await expect(page.getByText('Opening your memory…')).toBeVisible();
  await expect(box(page)).toBeEditable();
  await box(page).fill('What colour is my bike?');
  await box(page).press('Enter');
  // Still opening (the database cannot be open: its WebAssembly is held) ...
  await expect.poll(() => asked).toBe(true);
  await expect(page.getByText('Opening your memory…')).toBeVisible();
  // Long enough for a refused send to come back (it used to, within a few hundred milliseconds).
  await page.waitForTimeout(1_500);
  release();
  await expect(page.getByText('Opening your memory…')).toBeHidden({ timeout: 30_000 });
  await waitForMessages(page, 4);
  await expect(page.getByTestId('message').nth(2)).toContainText('What colour is my bike?');
  await expect(page.getByTestId('message').last()).toContainText('Your bike is the blue one.');
  await expect(box(page)).toHaveValue('');
  // Nothing said at any moment that another tab holds the memory, or that no endpoint is set.
  expect(await seenNotices()).toEqual([]);
});
