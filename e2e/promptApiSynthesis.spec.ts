/**
 * "This device" end to end with no endpoint at all: the browser's built-in model (the Prompt API
 * stub, e2e/promptApiStub.ts, reporting a small 3,072-token window and answering synthesis
 * prompts with minimal valid JSON) answers in the chat AND builds synthesised memory — episode
 * facts, the theme's summary and the profile — with every prompt inside the window the browser
 * reported (the stub refuses an over-long prompt with QuotaExceededError, as Chrome does). The
 * embedding model comes from the local test hub (scenes need vectors); nothing leaves the machine.
 */
import { expect, test, type Page } from '@playwright/test';
import { buildTestHub, startModelHub, type ModelHub } from '../test/support/modelHub';
import { openWithModelHub, openSavedMemories, sendMessage, waitForMessages } from './appSteps';
import { installLanguageModelStub, type LanguageModelStubLog } from './promptApiStub';

let hub: ModelHub;
test.beforeAll(async () => {
  await buildTestHub();
  hub = await startModelHub();
});
test.afterAll(async () => hub?.close());

const WINDOW = 3072;
const stubLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { __languageModelStub: LanguageModelStubLog }).__languageModelStub);

test('no endpoint: the built-in model with a small reported window answers and synthesises episodes, a theme and the profile, every prompt within its window', async ({
  page,
  context,
}) => {
  test.setTimeout(300_000); // shared machine; the profile update waits 30 s after the theme's summary
  await context.addInitScript(installLanguageModelStub, {
    availability: 'available' as const,
    pieceMs: 20,
    pieces: 6,
    contextWindow: WINDOW,
    synthesis: true,
  });
  await openWithModelHub(page, context, hub.url);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByRole('region', { name: 'This device' });
  await section.getByRole('radio', { name: 'Built-in model (Chrome)' }).click();
  // The window is the one the browser reported, and the memory budget follows it (3,072 / 6).
  await expect(section.getByTestId('device-llm-state')).toContainText('it reports a window of 3,072 tokens');
  await expect(page.locator('#answer-budget')).toHaveValue('512');
  await page.getByRole('radio', { name: /Every episode/ }).click();
  await expect(page.getByRole('radio', { name: /Every episode/ })).toBeChecked();
  await page.getByRole('button', { name: 'Close settings' }).click();

  await page.getByRole('button', { name: '+ New conversation' }).click();
  const said = [
    'My sister Lena lives in Porto and keeps two cats.',
    'I play the cello in a community orchestra on Tuesdays.',
    'My favourite food is grilled sardines with lemon.',
    'I work as a structural engineer at a bridge company.',
    'Last spring I ran my first half marathon in Lisbon.',
    'I am learning Portuguese with an evening class.',
    'My bicycle is a green touring bike from 2015.',
  ];
  // Twelve turns fill an episode; the seventh message closes it and (Every episode) it is synthesised.
  for (const [i, text] of said.entries()) {
    await sendMessage(page, text);
    await waitForMessages(page, 2 * (i + 1));
    await expect(page.getByTestId('message').last()).toContainText('word6'); // streamed by the built-in model
  }
  await expect(page.getByTestId('memory-activity')).toContainText(/Memory updated · .*\d+ fact/, { timeout: 120_000 });
  const saved = await openSavedMemories(page);
  await expect(saved).toContainText('My sister Lena lives in Porto', { timeout: 30_000 });

  // The theme's summary and then (debounced 30 s) the profile are written by the same model.
  await expect
    .poll(async () => (await stubLog(page)).usage.map((u) => u.stage), { timeout: 150_000 })
    .toEqual(expect.arrayContaining(['memcell', 'scene', 'profile']));
  await page.getByRole('tab', { name: 'Themes' }).click();
  await expect(page.getByTestId('scene-row').filter({ hasText: 'Stub theme' }).first()).toBeVisible({ timeout: 30_000 });
  await page.getByRole('tab', { name: 'Profile' }).click();
  await expect(page.getByTestId('profile-item').filter({ hasText: 'stub topic S1' })).toHaveCount(1, { timeout: 30_000 });

  // Every prompt fitted the reported window with room for a reply, and none was refused.
  const log = await stubLog(page);
  expect(log.overflows).toBe(0);
  for (const u of log.usage) expect(u.tokens, `a ${u.stage} prompt`).toBeLessThanOrEqual(WINDOW - 256);
  // Nothing but the stub answered: no session was created with a prompt the app did not log.
  expect(log.destroyed).toBe(log.creates.length);
});
