/**
 * Saved memories at scale (≈ 1,900 facts, 60 written by hand): the whole list pages to its end,
 * filters by kind and source, "Delete all" asks first and deletes every page of what the filters
 * show, and the switches over every answer persist.
 */
import { expect, test } from '@playwright/test';
import { ensureFixtureMemory, fixtureCount, importFixtureMemory } from './fixtureMemory';

test.beforeAll(async () => {
  test.setTimeout(300_000); // building the fixture memory takes a minute or more on a busy machine
  await ensureFixtureMemory();
});

test('saved memories at scale: paged to the end, filtered, deleted all after a confirmation, global switches', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await importFixtureMemory(page);
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('tab', { name: 'Saved memories', exact: true }).click();
  const saved = page.getByTestId('saved-memories');
  const factCount = saved.getByTestId('fact-count');
  const total = (await fixtureCount('facts')).toLocaleString('en-US');
  // Pages of 250: one more page, then every page to the end in one click.
  await expect(factCount).toHaveText(`(250 of ${total})`);
  await saved.getByRole('button', { name: 'Show 250 more facts' }).click();
  await expect(factCount).toHaveText(`(500 of ${total})`);
  await saved.getByRole('button', { name: `Show all ${total}` }).click();
  await expect(factCount).toHaveText(`(${total} of ${total})`, { timeout: 60_000 });
  await expect(saved.getByRole('button', { name: /^Show all/ })).toHaveCount(0);

  // Filters: hand-written ones only, then only plans.
  await saved.getByLabel('Source').selectOption('user');
  await expect(saved.getByRole('heading', { name: /About you \(60\)/ })).toBeVisible();
  await expect(factCount).toHaveText('(0 of 0)');
  await saved.getByLabel('Kind').selectOption('plans');
  await expect(saved.getByRole('heading', { name: /Plans ahead/ })).toBeVisible();
  await expect(saved.getByRole('heading', { name: /About you/ })).toHaveCount(0);

  // Delete all hand-written "about you" memories, after the confirmation.
  await saved.getByLabel('Kind').selectOption('about');
  await saved.getByRole('button', { name: 'Delete all…' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete all saved memories' });
  await expect(confirm.getByTestId('delete-all-summary')).toContainText(
    'Forget 60 saved memories: 60 about you, 0 plans ahead and 0 facts.',
  );
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(saved.getByRole('heading', { name: /About you \(60\)/ })).toBeVisible();
  await saved.getByRole('button', { name: 'Delete all…' }).click();
  await confirm.getByRole('button', { name: 'Delete 60' }).click();
  await expect(confirm).toBeHidden({ timeout: 60_000 });
  await expect(saved.getByRole('heading', { name: /About you \(0\)/ })).toBeVisible();

  // The switches over every answer stay as set.
  const switches = saved.getByTestId('global-switches');
  // The box follows the engine's answer, which can come after uncheck()'s own immediate check.
  await switches.getByLabel('Use chat history').click();
  await expect(switches.getByLabel('Use chat history')).not.toBeChecked();
  await page.reload();
  await expect(page.getByTestId('global-switches').getByLabel('Use chat history')).not.toBeChecked();
  await expect(page.getByTestId('global-switches').getByLabel('Use saved memories')).toBeChecked();
});
