/**
 * The first answer at scale: opening a memory of 470 conversations and asking at
 * once must not wait on the warm-up of the on-device model. The bundled model's files are held
 * back by the test until the answer has arrived, so an answer that waited for the model would never
 * come; the answer then says its memory was read by keywords only, and what was sent carries
 * recalled turns of the fixture memory.
 */
import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box } from './appSteps';
import { ensureFixtureMemory, importFixtureMemory } from './fixtureMemory';

// The service worker would serve the model from its cache, past the route that holds it.
test.use({ serviceWorkers: 'block' });

let mock: MockLlmServer;
test.beforeAll(async () => {
  test.setTimeout(300_000); // building the fixture memory takes a minute or more on a busy machine
  await ensureFixtureMemory();
  mock = await startMockLlmServer({
    responder: (req) => (req.stream ? 'You were weighing the hotel in Alfama [1].' : synthesisResponder(req)),
  });
});
test.afterAll(async () => mock?.close());

test('asking right after opening 470 conversations answers from keywords without waiting for the model', async ({ page, context }) => {
  test.setTimeout(240_000);
  let release!: () => void;
  const modelLoads = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held: string[] = [];
  await context.route('**/models/recollect/**', async (route) => {
    held.push(route.request().url());
    await modelLoads;
    await route.continue().catch(() => undefined); // the page may be gone by then
  });

  await page.goto('/');
  await importFixtureMemory(page);
  await connectEndpoint(page, mock.url);
  await page.locator('button.conversation').first().click();
  await expect(page.getByTestId('message')).toHaveCount(10);
  await box(page).fill('What did I decide about the hotel in Alfama and tram 28?');
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(12, { timeout: 90_000 });
  await expect(page.getByTestId('streaming-answer')).toBeHidden({ timeout: 90_000 });
  // The model was asked for and is still held: the answer above cannot have waited for it.
  expect(held.map((url) => new URL(url).pathname)).toContainEqual(expect.stringMatching(/^\/models\/recollect\/glove-100d-sif\//));

  await page.getByTestId('message').last().getByRole('button', { name: 'what was sent' }).click();
  const sent = page.getByRole('dialog', { name: 'What was sent' });
  await expect(sent.getByTestId('keywords-only-note')).toBeVisible();
  // Recalled turns of the fixture (every user turn there opens with this sentence; the question does not).
  await expect(sent.getByTestId('sent-content').filter({ hasText: 'I have been thinking about it since last week' }).first()).toBeVisible();
  await sent.getByRole('button', { name: 'Close what was sent' }).click();
  release();
});
