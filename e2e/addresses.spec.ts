/**
 * Addresses at scale: a conversation, an explorer tab and an opened episode each have their own URL
 * (in the hash), Back and Forward move between them, a reload or a fresh visit reopens where the
 * user was, and a copied address opens the same episode.
 */
import { expect, test, type Page } from '@playwright/test';
import { ensureFixtureMemory, importFixtureMemory } from './fixtureMemory';

test.beforeAll(async () => {
  await ensureFixtureMemory();
});

const heading = (page: Page) => page.locator('.conversation-head h2');
const hash = (page: Page) => page.evaluate(() => location.hash);

test('conversations, explorer tabs and episodes have addresses; Back, Forward and reload follow them', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await importFixtureMemory(page);
  const conversations = page.locator('button.conversation');
  const titles = [await conversations.nth(2).locator('.title').textContent(), await conversations.nth(40).locator('.title').textContent()];

  await conversations.nth(2).click();
  await expect(heading(page)).toHaveText(titles[0]!);
  expect(await hash(page)).toMatch(/^#\/c\/conv-\d{4}$/);
  const first = await hash(page);
  await conversations.nth(40).click();
  await expect(heading(page)).toHaveText(titles[1]!);
  const second = await hash(page);
  expect(second).not.toBe(first);

  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
  expect(await hash(page)).toBe('#/memory/memcells');
  await page.getByTestId('memcell-row').nth(3).click();
  const detail = page.getByTestId('memcell-detail');
  const episodeTitle = await detail.locator('h2').textContent();
  expect(await hash(page)).toMatch(/^#\/memory\/memcells\/.+/);
  const episode = await hash(page);

  // Back: the list without the episode, the Overview tab, then the two conversations.
  await page.goBack();
  await expect(detail).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'Episodes', exact: true })).toHaveAttribute('aria-selected', 'true');
  await page.goBack();
  await expect(page.getByRole('tab', { name: 'Overview', exact: true })).toHaveAttribute('aria-selected', 'true');
  await page.goBack();
  await expect(heading(page)).toHaveText(titles[1]!);
  await page.goBack();
  await expect(heading(page)).toHaveText(titles[0]!);
  await page.goForward();
  await expect(heading(page)).toHaveText(titles[1]!);

  // A reload stays in the conversation, not on the start checklist.
  await page.reload();
  await expect(heading(page)).toHaveText(titles[1]!);
  await expect(page.getByTestId('first-run')).toHaveCount(0);

  // A copied address opens the same episode.
  await page.goto(`/${episode}`);
  await expect(page.getByTestId('memcell-detail').locator('h2')).toHaveText(episodeTitle!);

  // Opening the app with no address reopens where the user was last.
  await page.goto('/');
  await expect(page.getByTestId('memcell-detail').locator('h2')).toHaveText(episodeTitle!);
  expect(await hash(page)).toBe(episode);
});
