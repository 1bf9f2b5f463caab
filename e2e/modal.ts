/**
 * What "modal" means for a browser test: the dialog is the platform's modal <dialog> (:modal, in
 * the top layer), Tab and Shift+Tab never land on the app behind it (past the dialog's last control
 * the platform hands focus to the browser's own UI, where the page sees <body>, then back), the
 * app's controls cannot take focus, and Escape closes it.
 */
import { expect, type Locator, type Page } from '@playwright/test';

/** Tab (and Shift+Tab) presses whose focus landed on the app behind the open modal. */
async function pressesIntoApp(page: Page, key: 'Tab' | 'Shift+Tab', n: number): Promise<number> {
  let behind = 0;
  for (let i = 0; i < n; i++) {
    await page.keyboard.press(key);
    if (await page.evaluate(() => document.getElementById('root')!.contains(document.activeElement))) behind++;
  }
  return behind;
}

/**
 * `dialog` is modal: the platform's modal <dialog>, focus inside it, Tab and Shift+Tab never land on
 * the app behind it, and the app's controls cannot take focus.
 */
export async function expectModal(page: Page, dialog: Locator): Promise<void> {
  await expect(dialog).toBeVisible();
  expect(await dialog.evaluate((d) => d.tagName === 'DIALOG' && d.matches(':modal'))).toBe(true);
  expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  expect(await pressesIntoApp(page, 'Tab', 12)).toBe(0);
  expect(await pressesIntoApp(page, 'Shift+Tab', 5)).toBe(0);
  expect(
    await page.evaluate(() => {
      const behind = document.querySelector<HTMLElement>('#root button');
      behind?.focus();
      return behind !== null && document.activeElement === behind;
    }),
  ).toBe(false);
}

export async function expectModalThenEscape(page: Page, dialog: Locator): Promise<void> {
  await expectModal(page, dialog);
  // Focus back inside before Escape (it may sit in the browser's UI after the last Tab).
  await dialog.locator('button').first().focus();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
}

/**
 * Answers one of the app's in-app confirmations (an alertdialog on the platform's modal <dialog>,
 * never `window.confirm`): checks it is modal and has focus on Cancel (the safe choice), then clicks
 * its confirming button.
 */
export async function confirmIn(page: Page, title: string, confirmLabel: string): Promise<void> {
  const dialog = page.getByRole('alertdialog', { name: title });
  await expect(dialog).toBeVisible();
  expect(await dialog.evaluate((d) => d.matches(':modal'))).toBe(true);
  const confirm = dialog.getByRole('button', { name: confirmLabel, exact: true });
  await expect(dialog.getByRole('button', { name: 'Cancel', exact: true })).toBeFocused();
  await confirm.click();
  await expect(dialog).toBeHidden();
}
