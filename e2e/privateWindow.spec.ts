/**
 * A window that cannot keep files, as a Firefox private window is: `navigator.storage.getDirectory()`
 * rejects with SecurityError. Simulated in Chromium by patching the engine worker's script (init
 * scripts do not run in workers) and the page. The app says what is true, offers a temporary
 * session, and that session works end to end: a message is stored and found, the banner stays
 * on screen, and Export downloads the memory.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { refuseOpfs, sendMessage } from './appSteps';

test('without OPFS the app says private windows cannot keep a memory and offers a temporary session that works', async ({
  page,
  context,
}, info) => {
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
  await banner.getByRole('button', { name: 'Export', exact: true }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^recollect-\d{4}-\d{2}-\d{2}\.sqlite$/);
  const path = info.outputPath('temporary.sqlite');
  await download.saveAs(path);
  const bytes = await readFile(path);
  expect(bytes.subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
  expect(bytes.includes(Buffer.from('The locker code at the climbing gym is 4471.'))).toBe(true);
  await expect(banner).toBeVisible();
});
