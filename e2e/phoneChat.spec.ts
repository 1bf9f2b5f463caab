/**
 * The chat on a phone (390×844): the conversation's title is in its header (it was hidden), and
 * the empty message box's placeholder fits on one line (the desktop's keyboard hints wrapped it
 * to three lines). The desktop keeps its hints.
 */
import { expect, test, type Page } from '@playwright/test';
import { messageBox as box, sendMessage } from './appSteps';

/** How many lines the box's placeholder needs at the box's width, in its own font. */
const placeholderLines = (page: Page) =>
  box(page).evaluate((el: HTMLTextAreaElement) => {
    const style = getComputedStyle(el);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const width = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return Math.ceil(context.measureText(el.placeholder).width / width);
  });

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('the header names the conversation, and the placeholder fits on one line', async ({ page }) => {
    test.setTimeout(120_000);
    await page.goto('/');
    await page.getByRole('button', { name: 'Chats' }).tap();
    await page.getByRole('button', { name: '+ New conversation' }).tap();
    expect(await placeholderLines(page)).toBe(1);
    await sendMessage(page, 'Our first trip was to Lisbon in May, with a day in Sintra.');
    const title = page.locator('.conversation-head h2');
    await expect(title).toBeVisible();
    await expect(title).toContainText('Our first trip was to Lisbon');
    const box = (await title.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  });
});

test('on a desktop the placeholder keeps its keyboard hints', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(box(page)).toHaveAttribute('placeholder', /Enter sends/);
});
