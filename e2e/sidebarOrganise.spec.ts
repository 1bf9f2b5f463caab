/**
 * Organising the conversation list in the running app: a pinned conversation heads the list under
 * "Pinned" and stays there after a reload; an archived one leaves the list for the Archived view,
 * which says its memory still counts, and Unarchive brings it back; the title search finds an
 * English and a Chinese title and opens one by keyboard alone (Alt+C, ↓, Enter, Esc).
 */
import { expect, test, type Page } from '@playwright/test';
import { conversationRow, sendMessage } from './appSteps';
import { nextMidnight } from '../src/app/useDayChange';

/** A real-length turn (≈1,100 characters, a table and a code block) whose first line is the title. */
const turn = (title: string) => `${title}
${'The plan changed twice this week, so I wrote down who agreed to what and when, to stop the same discussion starting again on Monday. '.repeat(6)}
| item | owner | due |
|---|---|---|
| quote | me | Friday |

\`\`\`text
status: waiting for the landlord
\`\`\``;

const TITLES = ['Heating in Leipzig: meter readings', '北京的天气和周末安排', 'Garden plans for the allotment'];

const list = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });

async function threeConversations(page: Page): Promise<void> {
  await page.goto('/');
  for (const title of TITLES) {
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await sendMessage(page, turn(title));
    await expect(conversationRow(page, title)).toHaveCount(1);
  }
}

test('pin puts a conversation on top and survives a reload; archive hides it and the Archived view restores it', async ({ page }) => {
  test.setTimeout(180_000);
  await threeConversations(page);
  const rows = list(page).locator('button.conversation');
  await expect(list(page).getByRole('heading', { name: 'Today' })).toBeVisible();
  await expect(rows.first()).toContainText('Garden plans'); // the newest first

  // Pin the oldest: it heads the list under "Pinned".
  const oldest = conversationRow(page, 'Heating in Leipzig');
  await oldest.hover();
  await page.getByRole('button', { name: 'Pin Heating in Leipzig: meter readings' }).click();
  const pinned = list(page).getByRole('list', { name: 'Pinned' });
  await expect(pinned.locator('button.conversation')).toHaveText([/Heating in Leipzig/]);
  await expect(rows.first()).toContainText('Heating in Leipzig');
  await page.reload();
  await expect(list(page).getByRole('list', { name: 'Pinned' }).locator('button.conversation')).toHaveText([/Heating in Leipzig/]);
  await expect(rows.first()).toContainText('Heating in Leipzig');

  // Archive another: it leaves the list; the Archived view lists it, says its memory counts, and restores it.
  await conversationRow(page, 'Garden plans').hover();
  await page.getByRole('button', { name: 'Archive Garden plans for the allotment' }).click();
  await expect(conversationRow(page, 'Garden plans')).toHaveCount(0);
  await expect(rows).toHaveCount(2);
  await page.getByRole('button', { name: 'Archived (1)' }).click();
  const archived = page.getByTestId('archived-view');
  await expect(archived).toContainText('still counts in answers');
  await expect(archived.getByRole('list', { name: 'Archived conversations' }).getByRole('listitem')).toHaveCount(1);
  await archived.getByRole('button', { name: 'Unarchive Garden plans for the allotment' }).click();
  await expect(archived).toContainText('Nothing is archived.');
  await archived.getByRole('button', { name: /Close/ }).first().click();
  await expect(conversationRow(page, 'Garden plans')).toHaveCount(1);
  await expect(page.getByRole('button', { name: /^Archived \(/ })).toHaveCount(0);
  // Unarchived and reloaded, the pinned one still leads.
  await page.reload();
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText('Heating in Leipzig');
});

test('the title search finds an English and a Chinese title and opens one by keyboard', async ({ page }) => {
  test.setTimeout(180_000);
  await threeConversations(page);
  const search = page.getByRole('searchbox', { name: 'Search conversation titles' });
  const heading = page.getByRole('region', { name: 'Conversation' }).getByRole('heading', { level: 2 });

  await page.getByRole('textbox', { name: 'Message', exact: true }).focus();
  await page.keyboard.press('Alt+KeyC');
  await expect(search).toBeFocused();
  await page.keyboard.type('天气');
  const found = list(page).getByRole('list', { name: 'Conversations found' }).locator('button.conversation');
  await expect(found).toHaveText([/北京的天气和周末安排/]);
  await page.keyboard.press('ArrowDown');
  await expect(found.first()).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(heading).toHaveText('北京的天气和周末安排');

  // Esc on a result clears the search and goes back to the box; an English query in any case.
  await found.first().focus();
  await page.keyboard.press('Escape');
  await expect(search).toBeFocused();
  await expect(search).toHaveValue('');
  await expect(list(page).locator('button.conversation')).toHaveCount(3);
  await page.keyboard.type('leipzig METER');
  await expect(found).toHaveText([/Heating in Leipzig/]);
  await page.keyboard.press('Enter'); // Enter in the box opens the first title found
  await expect(heading).toHaveText('Heating in Leipzig: meter readings');
  await search.focus();
  await page.keyboard.press('Escape');
  await expect(search).toHaveValue('');
  await search.fill('no such title');
  await expect(list(page).getByRole('status')).toHaveText('No conversation title matches.');
});

test.describe("the date groups at the person's midnight", () => {
  test.use({ timezoneId: 'Asia/Tokyo' });

  test('a conversation of today moves under Yesterday when the day changes in Tokyo, with no reload', async ({ page }) => {
    await page.clock.install();
    await page.goto('/');
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await sendMessage(page, turn(TITLES[0]!));
    await expect(conversationRow(page, TITLES[0]!)).toHaveCount(1);
    await expect(list(page).getByRole('heading', { name: 'Today' })).toBeVisible();
    const now = await page.evaluate(() => Date.now());
    await page.clock.fastForward(nextMidnight('Asia/Tokyo', now) - now + 60_000);
    await expect(list(page).getByRole('heading', { name: 'Yesterday' })).toBeVisible();
    await expect(list(page).getByRole('heading', { name: 'Today' })).toHaveCount(0);
  });
});
