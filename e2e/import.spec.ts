/**
 * A handful of the import fuzz cases (test/storage/importFuzzCases.ts) through the real UI on
 * OPFS: refusals say why in a sentence (no SQLite text), leave the memory as it was and do not
 * keep "Replace memory" on offer; hostile but readable files are imported without their schema
 * objects, and the app's next turn is stored as typed.
 */
import { expect, test, type Page } from '@playwright/test';
import { FUZZ_CASES } from '../test/storage/importFuzzCases';

const RAW_SQLITE = /Database error|no such|sqlite3_|SQLITE_|constraint failed|malformed|attached databases/i;

async function fileOf(name: string): Promise<Buffer> {
  const c = FUZZ_CASES.find((x) => x.name === name);
  if (!c) throw new Error(`no fuzz case ${name}`);
  return Buffer.from(await c.build());
}

async function openWithOneTurn(page: Page) {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Keep this turn safe.');
  await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await expect(page.getByTestId('message-count')).toHaveText('1');
}

async function choose(page: Page, name: string) {
  await page
    .getByLabel('Import database file')
    .setInputFiles({ name: 'shared.sqlite', mimeType: 'application/octet-stream', buffer: await fileOf(name) });
  await expect(page.getByRole('dialog', { name: 'Import memory' })).toBeVisible();
}

for (const [name, sentence] of [
  ['UTF-16le database', /stores its text as UTF-16/],
  ['our mark and version, no tables', /part of its structure is missing/],
  ['a 5,000,000-character message', /too long to store/],
  ['negative version -1', /no valid schema version/],
] as const) {
  test(`refused in the browser: ${name}`, async ({ page }) => {
    await openWithOneTurn(page);
    await choose(page, name);
    await page.getByRole('button', { name: 'Replace memory' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Import failed' });
    await expect(alert).toContainText(sentence);
    await expect(alert).toContainText('Your current memory is unchanged.');
    expect(await alert.textContent()).not.toMatch(RAW_SQLITE);
    // The same file would be refused again: the dialog offers another file, not the replacement.
    await expect(page.getByRole('button', { name: 'Replace memory' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Choose another file…' })).toBeVisible();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('message-count')).toHaveText('1');
    await page.reload();
    await expect(page.getByTestId('message-count')).toHaveText('1');
  });
}

test('a file whose trigger rewrites every new turn is imported without it', async ({ page }) => {
  await openWithOneTurn(page);
  await choose(page, 'trigger rewrites each new turn');
  await page.getByRole('button', { name: 'Replace memory' }).click();
  await expect(page.getByText(/Imported 12 messages in 1 conversation\b/)).toBeVisible();
  await expect(page.getByText(/left out; only its rows were imported/)).toBeVisible();
  await page
    .getByRole('button', { name: /Garden/ })
    .first()
    .click();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Zucchini goes in the raised bed.');
  await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await expect(page.getByTestId('message').filter({ hasText: 'Zucchini goes in the raised bed.' })).toBeVisible();
  await expect(page.getByTestId('message-count')).toHaveText('13');
  await page.reload();
  await expect(page.getByTestId('message-count')).toHaveText('13');
  await page.getByLabel('Search memory').fill('zucchini');
  await expect(page.getByTestId('search-hit').first()).toContainText('Zucchini goes in the raised bed.');
  await expect(page.getByText('pwned')).toHaveCount(0);
});

test('a file naming an unknown embedder and injected settings is imported with a notice', async ({ page }) => {
  await openWithOneTurn(page);
  await choose(page, 'unknown embedder, absurd budget, endpoint settings');
  await page.getByRole('button', { name: 'Replace memory' }).click();
  await expect(page.getByText(/"evil\/model".*re-indexed with the bundled model/)).toBeVisible();
  await expect(page.getByTestId('message-count')).toHaveText('12');
});
