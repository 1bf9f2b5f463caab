import { expect, test, type Page } from '@playwright/test';
import { replaceMemory } from './appSteps';
import { closeAndHandBack, openWaitingTab, takeOver } from './handBack';
import { readFile } from 'node:fs/promises';
import { chooseFromMore } from './moreMenu';

async function openApp(page: Page) {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
}

async function newConversation(page: Page) {
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toBeVisible();
}

async function send(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await expect(page.getByTestId('message').filter({ hasText: text })).toBeVisible();
}

test('stored turns survive a reload and are found by search (OPFS)', async ({ page }) => {
  await openApp(page);
  await newConversation(page);
  await send(page, 'My sister Priya moved to Lisbon in March.');
  await send(page, 'Remind me that the dentist appointment is on Friday.');
  await expect(page.getByTestId('message-count')).toHaveText('2');
  // Commits go to the write-ahead log next to the database (openOpfsStore), not a rollback journal.
  const walBytes = await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    return (await (await root.getFileHandle('recollect.sqlite-wal')).getFile()).size;
  });
  // A write-ahead log is a 32-byte header and whole frames (a 24-byte frame header and a 4 KiB
  // page each), and the two commits wrote at least one frame.
  expect((walBytes - 32) % (24 + 4096)).toBe(0);
  expect(walBytes).toBeGreaterThanOrEqual(32 + 24 + 4096);

  await page.reload();
  await expect(page.getByTestId('message-count')).toHaveText('2');
  const title = (await page.locator('button.conversation .title').first().textContent())!.trim();
  await page.getByLabel('Search memory').fill('where did priya move');
  const hit = page.getByTestId('search-hit').first();
  await expect(hit).toContainText('Lisbon');
  // Each hit says which conversation it is in, by name.
  await expect(hit.getByTestId('hit-conversation')).toHaveText(`“${title}”`);
  await expect(hit.locator('mark').first()).toHaveText(/priya/i);
  // hostile search input is harmless
  await page.getByLabel('Search memory').fill('"NEAR( -* OR');
  await expect(page.getByText('Nothing stored matches these words.')).toBeVisible();
  await page.getByLabel('Search memory').fill('');
  await page.locator('button.conversation').first().click();
  await expect(page.getByTestId('message')).toHaveCount(2);
});

test('export downloads a valid SQLite file and importing it restores the memory', async ({ page }, info) => {
  await openApp(page);
  await newConversation(page);
  await send(page, 'The wifi password for the cabin is juniper-42.');
  const downloadPromise = page.waitForEvent('download');
  await chooseFromMore(page, 'Export');
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toMatch(/^recollect-\d{4}-\d{2}-\d{2}\.sqlite$/);
  const path = info.outputPath('export.sqlite');
  await download.saveAs(path);
  const bytes = await readFile(path);
  expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  // A standalone file: marked rollback-journal (1/1) although the live database logs ahead (2/2).
  expect([bytes[18], bytes[19]]).toEqual([1, 1]);

  // Change the memory, then restore the export.
  await send(page, 'This turn was added after the export.');
  await expect(page.getByTestId('message-count')).toHaveText('2');
  await replaceMemory(page, path, /Imported 1 message in 1 conversation/);
  await expect(page.getByTestId('message-count')).toHaveText('1');
  await page.reload();
  await expect(page.getByTestId('message-count')).toHaveText('1');
  await page.getByLabel('Search memory').fill('cabin wifi');
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
});

test('a broken import shows why and leaves the memory untouched', async ({ page }) => {
  await openApp(page);
  await newConversation(page);
  await send(page, 'Keep this turn safe.');
  await page
    .getByLabel('Import database file')
    .setInputFiles({ name: 'notes.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from('not a database at all') });
  await page.getByRole('button', { name: 'Replace memory' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'not a SQLite database' })).toBeVisible();
  await expect(page.getByText('Your current memory is unchanged.')).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('message-count')).toHaveText('1');
});

test('a second tab never opens a second writer', async ({ page, context }) => {
  await openApp(page);
  await newConversation(page);
  await send(page, 'Written from the first tab.');

  const second = await openWaitingTab(context);
  // The first tab keeps working.
  await send(page, 'Still writing from the first tab.');

  // Taking over moves the single writer to the second tab; the first now shows the notice.
  await takeOver(second, page);
  await expect(second.getByTestId('message-count')).toHaveText('2');

  // Closing the owner hands the database back to the waiting tab automatically.
  await closeAndHandBack(second, page, 2);
});
