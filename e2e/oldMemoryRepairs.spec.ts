/**
 * Memory written by earlier versions, restored through Import… → Replace memory, is repaired by
 * the migrations on the way in (test/support/oldMemories.ts builds the files from raw rows):
 * - schema 10: ChatGPT's private-use citation markup in imported turns is gone from the chat
 *   (an entity link keeps its name), and search still finds the turns by their words;
 * - schema 7: fractional-ms times (a ChatGPT import before v8) are whole again, so the app's own
 *   Export of that memory imports again (it was refused: "should hold a whole number").
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { replaceMemory } from './appSteps';
import { fractionalMemoryV7File, markedMemoryV10File } from '../test/support/oldMemories';
import { loadDatabaseFile } from '../src/storage/openNodeDatabase';
import { chooseFromMore } from './moreMenu';

const sqliteFile = (name: string, bytes: Uint8Array) => ({ name, mimeType: 'application/vnd.sqlite3', buffer: Buffer.from(bytes) });

test('a schema-10 backup with ChatGPT citation markup shows no raw markers once restored', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await replaceMemory(
    page,
    sqliteFile('recollect-old.sqlite', await markedMemoryV10File()),
    /Imported 5 messages in 2 conversations/,
    90_000,
  );
  await page
    .getByRole('button', { name: /Trains to Lisbon/ })
    .first()
    .click();
  const messages = page.getByTestId('messages');
  await expect(page.getByTestId('message')).toHaveCount(4);
  await expect(messages).toContainText('The Alfa Pendular runs hourly on Sundays. The Intercidades is slower but cheaper.');
  await expect(messages).toContainText('the station is Porto Campanhã.');
  await expect(messages).toContainText('cited the guide like this and this.');
  const text = await messages.innerText();
  expect(text).not.toMatch(/[\ue200-\ue2ff]|turn0search|image_group|filecite|†/);
  await page.getByLabel('Search memory').fill('Intercidades');
  await expect(page.getByTestId('search-hit')).toHaveCount(1, { timeout: 30_000 });
  expect(await page.getByTestId('search-hit').innerText()).not.toMatch(/[\ue200-\ue2ff]|turn0search/);
});

test('a schema-7 backup with fractional times restores, and its Export imports again', async ({ page }, info) => {
  test.setTimeout(180_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await replaceMemory(
    page,
    sqliteFile('recollect-2024.sqlite', await fractionalMemoryV7File()),
    /Imported 2 messages in 1 conversation/,
    90_000,
  );
  await page
    .getByRole('button', { name: /Microsecond times/ })
    .first()
    .click();
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(page.getByTestId('messages')).toContainText('signed on 7 June 1494');

  const downloading = page.waitForEvent('download');
  await chooseFromMore(page, 'Export');
  const path = info.outputPath('export.sqlite');
  await (await downloading).saveAs(path);
  // Every time in the exported file is a whole number of ms.
  const exported = await loadDatabaseFile(path, { migrateSchema: false });
  try {
    const [row] = await exported.query<{ n: number }>(`SELECT
      (SELECT count(*) FROM messages WHERE typeof(occurred_at) <> 'integer' OR typeof(ingested_at) <> 'integer')
      + (SELECT count(*) FROM conversations WHERE typeof(created_at) <> 'integer' OR typeof(updated_at) <> 'integer')
      + (SELECT count(*) FROM jobs WHERE typeof(run_after) <> 'integer') AS n`);
    expect(row!.n).toBe(0);
  } finally {
    await exported.close();
  }
  // The export is a SQLite file of whole pages.
  const file = await readFile(path);
  expect(file.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
  expect(file.byteLength % file.readUInt16BE(16)).toBe(0);

  // The export restores in turn.
  await replaceMemory(page, path, /Imported 2 messages in 1 conversation from export\.sqlite/, 90_000);
  await page
    .getByRole('button', { name: /Microsecond times/ })
    .first()
    .click();
  await expect(page.getByTestId('messages')).toContainText('signed on 7 June 1494');
});
