/**
 * The two-tab hand-back, step by step, shared by storage.spec.ts (once, with its checks around it)
 * and handbackLoop.spec.ts (many times in a row, counting passes). The memory has one writer: a
 * second tab waits ("open in another tab"), can take over, and when the owning tab closes the
 * waiting one must get the memory back by itself.
 */
import { expect, type BrowserContext, type Page } from '@playwright/test';

/** Opens the app in a new tab of `context` while another tab owns the memory: it waits. */
export async function openWaitingTab(context: BrowserContext): Promise<Page> {
  const tab = await context.newPage();
  await tab.goto('/');
  await expect(tab.getByTestId('open-elsewhere')).toBeVisible();
  await expect(tab.getByText('Recollect is open in another tab')).toBeVisible();
  return tab;
}

/** "Use Recollect here" in `tab`: it owns the memory, `owner` now waits. */
export async function takeOver(tab: Page, owner: Page): Promise<void> {
  await tab.getByRole('button', { name: 'Use Recollect here' }).click();
  await expect(tab.getByTestId('open-elsewhere')).toBeHidden();
  await expect(tab.getByTestId('status')).toBeVisible();
  await expect(owner.getByTestId('open-elsewhere')).toBeVisible();
}

/**
 * Closes `tab` (the owner) and waits until `waiting` holds the memory again with `messages` stored.
 * On failure the error carries what the waiting tab shows (e.g. "could not open its memory").
 */
export async function closeAndHandBack(tab: Page, waiting: Page, messages: number): Promise<void> {
  await tab.close();
  try {
    await expect(waiting.getByTestId('open-elsewhere')).toBeHidden();
    await expect(waiting.getByTestId('message-count')).toHaveText(String(messages));
    await expect(waiting.locator('.overlay')).toHaveCount(0);
  } catch (err) {
    const shown = await waiting
      .locator('.overlay')
      .allTextContents()
      .catch(() => []);
    throw new Error(shown.length ? `the remaining tab shows: ${shown.join(' ')}` : String(err), { cause: err });
  }
}
