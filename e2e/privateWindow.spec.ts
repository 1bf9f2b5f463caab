/**
 * A window that cannot keep files, as a Firefox private window is: `navigator.storage.getDirectory()`
 * rejects with SecurityError. Simulated in Chromium by patching the engine worker's script (init
 * scripts do not run in workers) and the page. The app says what is true, offers a temporary
 * session, and that session works end to end: a message is stored and found, the banner stays
 * on screen, and Export downloads the memory.
 */
import { readFile } from 'node:fs/promises';
import { expect, test, type BrowserContext } from '@playwright/test';
import { sendMessage } from './appSteps';

const REFUSE_OPFS = `StorageManager.prototype.getDirectory = function () {
  return Promise.reject(new DOMException('The operation is insecure.', 'SecurityError'));
};\n`;

async function refuseOpfs(context: BrowserContext): Promise<void> {
  await context.addInitScript(REFUSE_OPFS);
  // A bundled worker is one file without imports: a statement put first runs before its code.
  await context.route('**/assets/*.worker-*.js', async (route) => {
    try {
      const response = await route.fetch();
      await route.fulfill({ response, body: REFUSE_OPFS + (await response.text()) });
    } catch {
      // The test ended (context closed) while a worker script was still on its way: nothing to do.
    }
  });
}

test('without OPFS the app says private windows cannot keep a memory and offers a temporary session that works', async ({ page, context }, info) => {
  await refuseOpfs(context);
  await page.goto('/');
  const screen = page.getByTestId('storage-unavailable');
  await expect(screen).toContainText('Private windows in Firefox cannot keep a memory; open Recollect in a normal window');
  await expect(screen).not.toContainText('Try reloading');
  await screen.getByRole('button', { name: 'Use a temporary session' }).click();

  const banner = page.getByTestId('temporary-session');
  await expect(banner).toContainText('Temporary session — nothing is kept after this window closes');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'The locker code at the climbing gym is 4471.');
  await expect(page.getByTestId('message-count')).toHaveText('1');

  await page.getByLabel('Search memory').fill('climbing locker');
  await expect(page.getByTestId('search-hit').first()).toContainText('4471');
  await page.getByLabel('Search memory').fill('');
  await expect(banner).toBeVisible();

  const downloading = page.waitForEvent('download');
  await banner.getByRole('button', { name: 'Export' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^recollect-\d{4}-\d{2}-\d{2}\.sqlite$/);
  const path = info.outputPath('temporary.sqlite');
  await download.saveAs(path);
  const bytes = await readFile(path);
  expect(bytes.subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
  expect(bytes.includes(Buffer.from('The locker code at the climbing gym is 4471.'))).toBe(true);
  await expect(banner).toBeVisible();
});
