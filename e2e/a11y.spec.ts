/**
 * Accessibility over every view (issue 17): axe-core on the chat, the first-run screen, the
 * temporary chat, search results, each dialog and each explorer tab, in light and dark, on a
 * desktop (1280×800) and a phone (390×844). No violation of any impact allowed (critical, serious,
 * moderate — heading order, landmarks — or minor). Settings includes the memory switches'
 * defaults; Models includes the Compute section (where the embedder runs).
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Your dog is called **Biscuit** [1].' : synthesisResponder(req)) });
});
test.afterAll(async () => mock.close());


async function audit(page: Page, view: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.impact === 'moderate' || v.impact === 'minor')
    .map((v) => `${view}: ${v.id} (${v.impact}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

test('every view has no axe violations, light and dark, desktop and phone', async ({ page }) => {
  test.setTimeout(600_000);
  await page.goto('/');
  const problems: string[] = [];
  // The first-run screen, before anything exists.
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    problems.push(...await audit(page, `first-run ${colorScheme}`));
  }
  // Some memory: an endpoint, a conversation with a cited answer, a saved memory.
  await page.emulateMedia({ colorScheme: 'light' });
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await box(page).fill('I adopted a beagle named Biscuit and I will take him to the vet next week.');
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(2, { timeout: 60_000 });
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('tab', { name: 'Saved memories' }).click();
  await page.getByLabel('Add a memory').fill('I am vegetarian.');
  await page.getByRole('button', { name: 'Save memory' }).click();
  await expect(page.getByTestId('saved-item').filter({ hasText: 'I am vegetarian.' })).toHaveCount(1);

  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const at = (view: string) => `${view} ${size.name} ${colorScheme}`;
      const openChats = async () => {
        if (size.name === 'phone') await page.getByRole('button', { name: 'Chats' }).click();
      };
      // Chat
      await openChats();
      if (size.name === 'phone') problems.push(...await audit(page, at('conversation drawer')));
      await page.locator('button.conversation').first().click();
      await expect(page.getByTestId('message')).toHaveCount(2);
      problems.push(...await audit(page, at('chat')));
      // Dialogs
      await page.getByTestId('message').last().getByRole('button', { name: 'what was sent' }).click();
      problems.push(...await audit(page, at('what was sent')));
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await expect(page.getByRole('region', { name: 'New conversations' })).toBeVisible();
      problems.push(...await audit(page, at('settings')));
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Models', exact: true }).click();
      await page.getByTestId('compute-backend').scrollIntoViewIfNeeded();
      await expect(page.getByTestId('compute-backend').getByLabel(/Run the embedder on/)).toBeVisible();
      problems.push(...await audit(page, at('models and compute')));
      await page.keyboard.press('Escape');
      // Search results
      await page.getByLabel('Search memory').fill('Biscuit');
      await expect(page.getByTestId('search-hit').first()).toBeVisible();
      problems.push(...await audit(page, at('search results')));
      await page.getByLabel('Search memory').fill('');
      // Temporary chat
      await openChats();
      await page.getByRole('button', { name: 'Temporary chat' }).click();
      problems.push(...await audit(page, at('temporary chat')));
      await page.getByRole('button', { name: 'Leave', exact: true }).click();
      // Explorer tabs
      await page.getByRole('button', { name: 'Memory', exact: true }).click();
      for (const tab of ['Saved memories', 'Overview', 'Timeline', 'Search', 'Episodes', 'Themes', 'Profile', 'Foresight', 'Forget']) {
        await page.getByRole('tab', { name: tab, exact: true }).click();
        if (tab === 'Search') {
          await page.getByLabel('Search all memory').fill('Biscuit');
          await expect(page.getByTestId('memory-hit').first()).toBeVisible();
        }
        problems.push(...await audit(page, at(`explorer ${tab}`)));
      }
      await page.getByRole('button', { name: 'Memory', exact: true }).click();
    }
  }
  expect(problems, problems.join('\n')).toEqual([]);
});
