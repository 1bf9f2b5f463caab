/**
 * The keyboard at 470 conversations: a skip link first, the conversation list as one Tab stop with
 * arrow keys inside it, and Alt+M to the message box from anywhere.
 */
import { expect, test, type Page } from '@playwright/test';
import { ensureFixtureMemory, importFixtureMemory } from './fixtureMemory';
import { messageBox as box } from './appSteps';

test.beforeAll(async () => {
  await ensureFixtureMemory();
});

const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el?.getAttribute('aria-label') ?? el?.textContent ?? '';
  });

/** Moves the keyboard's starting point to the top of the app, as after a fresh load. */
const fromTheTop = (page: Page) =>
  page.locator('.app').evaluate((el) => {
    el.setAttribute('tabindex', '-1');
    (el as HTMLElement).focus();
    el.removeAttribute('tabindex');
  });

test('skip link, one Tab stop for 470 conversations with arrow keys inside, and Alt+M reach the message box', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/');
  await importFixtureMemory(page);
  const conversations = page.locator('button.conversation');
  await expect(conversations).toHaveCount(470);
  await conversations.first().click();
  await expect(box(page)).toBeVisible();

  // The skip link is the first Tab stop and lands in the message box.
  await fromTheTop(page);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to the message box' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(box(page)).toBeFocused();

  // Without it, Tab still gets there in a few dozen presses: the list is one stop, not 1,410 (41
  // with the title search and the open row's five actions; 2,350 if every row's were stops).
  await fromTheTop(page);
  let presses = 0;
  while (presses < 80 && !(await box(page).evaluate((el) => el === document.activeElement))) {
    await page.keyboard.press('Tab');
    presses++;
  }
  expect(presses).toBeLessThan(45);

  // Inside the list: arrows, Home and End move; Enter opens; Tab leaves after the row's actions (Rename, Delete, Move, Pin, Archive).
  const second = await conversations.nth(1).locator('.title').textContent();
  await conversations.first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(conversations.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('.conversation-head h2')).toHaveText(second!);
  await conversations.nth(1).focus(); // opening a conversation may move focus to its message box
  await page.keyboard.press('End');
  await expect(conversations.last()).toBeFocused();
  await page.keyboard.press('Home');
  await expect(conversations.first()).toBeFocused();
  await page.keyboard.press('Tab');
  expect(await focusedName(page)).toMatch(/^Rename /);
  await page.keyboard.press('Tab');
  expect(await focusedName(page)).toMatch(/^Delete /);
  await page.keyboard.press('Tab');
  expect(await focusedName(page)).toMatch(/^Move /);
  await page.keyboard.press('Tab');
  expect(await focusedName(page)).toMatch(/^Pin /);
  await page.keyboard.press('Tab');
  expect(await focusedName(page)).toMatch(/^Archive /);
  await page.keyboard.press('Tab');
  await expect(page.locator('nav button.conversation:focus')).toHaveCount(0);
  expect(await page.evaluate(() => document.activeElement?.closest('nav') === null)).toBe(true);

  // Alt+M from the search box.
  await page.getByLabel('Search memory').focus();
  await page.keyboard.press('Alt+KeyM');
  await expect(box(page)).toBeFocused();
});
