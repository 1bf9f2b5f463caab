/**
 * On a touch screen (no hover), tapping anywhere on a conversation's row opens it: the row's
 * hidden Delete must not appear under the finger and take the tap. The open conversation's row
 * shows Rename, Delete, Pin and Archive, so touch has a way to each; Delete asks, with focus on Cancel.
 */
import { expect, test } from '@playwright/test';
import { conversationRow, sendMessage } from './appSteps';

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

test('a tap on the right end of a row opens the conversation, never its Delete; the open row offers Rename, Delete, Pin and Archive', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto('/');
  expect(await page.evaluate(() => matchMedia('(hover: none)').matches)).toBe(true);
  for (const text of ['Our first trip was to Lisbon in May.', 'The second notebook holds the garden plans.']) {
    await page.getByRole('button', { name: 'Chats' }).tap();
    await page.getByRole('button', { name: '+ New conversation' }).tap();
    await sendMessage(page, text);
  }
  await page.getByRole('button', { name: 'Chats' }).tap();
  const other = conversationRow(page, 'Our first trip was to Lisbon');
  await expect(other).toBeVisible();
  const box = (await other.boundingBox())!;
  // The right end of the row, where the hidden actions would appear.
  await page.touchscreen.tap(box.x + box.width - 6, box.y + box.height / 2);
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(page.getByTestId('message').filter({ hasText: 'Our first trip was to Lisbon' })).toHaveCount(1);

  // The open conversation's row shows its actions; Delete asks, Cancel has focus and keeps it.
  await page.getByRole('button', { name: 'Chats' }).tap();
  const remove = page.getByRole('button', { name: /^Delete Our first trip was to Lisbon/ });
  await expect(remove).toBeVisible();
  await expect(page.getByRole('button', { name: /^Rename Our first trip was to Lisbon/ })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Pin Our first trip was to Lisbon/ })).toBeInViewport();
  await expect(page.getByRole('button', { name: /^Archive Our first trip was to Lisbon/ })).toBeInViewport();
  await expect(page.getByRole('button', { name: /^Delete The second notebook/ })).not.toBeInViewport();
  await remove.tap();
  const dialog = page.getByRole('alertdialog', { name: 'Delete conversation' });
  await expect(dialog.getByRole('button', { name: 'Cancel', exact: true })).toBeFocused();
  await dialog.getByRole('button', { name: 'Cancel', exact: true }).tap();
  await expect(dialog).toBeHidden();
  await expect(conversationRow(page, 'Our first trip was to Lisbon')).toHaveCount(1);

  // Pin and Archive are in the same row menu: a tap pins it on top, another archives it.
  await page.getByRole('button', { name: /^Pin Our first trip was to Lisbon/ }).tap();
  await expect(page.getByRole('list', { name: 'Pinned' }).locator('button.conversation')).toHaveText([/Our first trip was to Lisbon/]);
  await page.getByRole('button', { name: /^Archive Our first trip was to Lisbon/ }).tap();
  await expect(conversationRow(page, 'Our first trip was to Lisbon')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Archived (1)' })).toBeVisible();
});
