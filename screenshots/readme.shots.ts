/**
 * Regenerates the screenshots in docs/screenshots/ (`npm run screenshots`): the main views — the
 * chat, Memory's summary, Saved memories and Settings — on a desktop and a phone, light and dark
 * (`<view>-<desktop|phone>-<light|dark>.png`); the README shows two of them.
 * The endpoint is the mock server, so the texts are canned; the screens are the real app, seeded
 * with content of a real shape (several paragraphs, a list, a code block).
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, TITLE_PROMPT_START, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';

const VET_ANSWER =
  'Biscuit, your beagle mix, has his vet appointment **next Tuesday at 10:00** [1].\n\n' +
  'A few things worth bringing:\n\n' +
  '- his vaccination card\n- a stool sample, if the clinic asked for one\n- the treats he likes, for the waiting room\n\n' +
  'You also mentioned he learned to sit last week, so the vet may be pleased with his manners.';

const CODE_ANSWER =
  'Here is a small script that reminds you the evening before:\n\n' +
  '```python\nfrom datetime import datetime, timedelta\n\n' +
  'appointment = datetime(2026, 12, 1, 10, 0)\nreminder = appointment - timedelta(hours=15)\n' +
  'print(f"Remind me at {reminder:%A %H:%M}")\n```\n\n' +
  'Run it once; it prints when to set the alarm (Monday evening at 19:00).';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => {
      if (req.stream) {
        const last = req.messages[req.messages.length - 1]?.content ?? '';
        return /script/i.test(last) ? CODE_ANSWER : VET_ANSWER;
      }
      return req.messages[0]?.content.startsWith(TITLE_PROMPT_START) ? 'Biscuit the beagle' : synthesisResponder(req);
    },
  });
});
test.afterAll(async () => mock.close());

const box = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });
const memoryButton = (page: Page) => page.getByRole('button', { name: 'Memory', exact: true });

async function say(page: Page, text: string, messages: number) {
  await box(page).fill(text);
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(messages, { timeout: 60_000 });
}

async function showChat(page: Page) {
  if ((await memoryButton(page).getAttribute('aria-pressed')) === 'true') await memoryButton(page).click();
  await expect(page.getByTestId('message').first()).toBeVisible();
}

async function showTab(page: Page, name: string) {
  if ((await memoryButton(page).getAttribute('aria-pressed')) !== 'true') await memoryButton(page).click();
  await page.getByRole('tab', { name, exact: true }).click();
}

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

test('README screenshots', async ({ page }) => {
  test.setTimeout(420_000);
  await page.setViewportSize(VIEWPORTS.desktop);
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Base URL').fill(mock.url);
  await page.getByLabel('Model', { exact: true }).fill('mock-model');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('endpoint-state')).toContainText('In use');
  // The radio follows the saved policy, so it turns on once the engine has stored it.
  await page.getByRole('radio', { name: /Every episode/ }).click();
  await expect(page.getByRole('radio', { name: /Every episode/ })).toBeChecked();
  await page.getByRole('button', { name: 'Close settings' }).click();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await say(page, 'I adopted a beagle mix named Biscuit. The vet appointment is next Tuesday at 10:00.', 2);
  await say(
    page,
    'Biscuit learned to sit this week and he loves the park by the river.\n\nHe still pulls on the lead when he sees ducks, so we practise on quiet mornings.',
    4,
  );
  await say(page, "When is Biscuit's vet appointment?", 6);
  await expect(page.getByTestId('memory-activity')).toBeVisible({ timeout: 90_000 });
  await say(page, 'Can you write me a tiny script that tells me when to set a reminder the evening before?', 8);

  await showTab(page, 'Saved memories');
  await page.getByLabel('Add a memory').fill('I am vegetarian.');
  await page.getByRole('button', { name: 'Save memory' }).click();

  // The summary, made once from what is saved (the mock endpoint writes it).
  await showTab(page, 'Summary');
  const make = page.getByRole('button', { name: 'Make summary' });
  if (await make.isVisible()) {
    await make.click();
    await expect(page.locator('.summary-progress')).toHaveCount(0, { timeout: 60_000 });
  }

  for (const [device, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const shot = (view: string) => page.screenshot({ path: `docs/screenshots/${view}-${device}-${scheme}.png` });
      await showChat(page);
      await shot('chat');
      await showTab(page, 'Summary');
      await expect(page.getByTestId('memory-summary')).toBeVisible();
      await shot('memory-summary');
      await showTab(page, 'Saved memories');
      await expect(page.getByTestId('saved-memories')).toBeVisible();
      await shot('saved-memories');
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await expect(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
      await shot('settings');
      await page.getByRole('button', { name: 'Close settings' }).click();
    }
  }
});
