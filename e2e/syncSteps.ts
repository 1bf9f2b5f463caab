/**
 * Steps of the sync browser tests (sync.spec.ts, syncFaults.spec.ts): Settings → Sync opened and
 * closed, and the top bar's search polled until sync has brought (or taken away) a turn.
 */
import { expect, type Page } from '@playwright/test';

export async function openSync(page: Page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByTestId('sync-section');
  await section.scrollIntoViewIfNeeded();
  return section;
}

export const closeSettings = (page: Page) => page.getByRole('button', { name: 'Close settings' }).click();

/** The top bar's search finds `text` in this device's memory (polled: sync brings it within seconds). */
export async function expectFound(page: Page, text: string, found: boolean): Promise<void> {
  const search = page.getByRole('searchbox', { name: 'Search memory' });
  await expect
    .poll(
      async () => {
        await search.fill('');
        await search.fill(text);
        await page.waitForTimeout(300);
        return page.getByTestId('search-hit').filter({ hasText: text }).count();
      },
      { timeout: 30_000, intervals: [500] },
    )
    .toBe(found ? 1 : 0);
  await search.fill('');
}
