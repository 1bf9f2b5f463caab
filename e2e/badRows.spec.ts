/**
 * One bad value never blanks the app: a memory file with a date past the end of the calendar is
 * refused with a sentence saying so, and a file whose answer metadata holds `requests` that is not
 * a list opens — its conversation reads normally and "what was sent" shows a notice in its place,
 * with the rest of the app still working.
 */
import { expect, test, type Page } from '@playwright/test';
import { FUZZ_CASES } from '../test/storage/importFuzzCases';

async function importFile(page: Page, name: string) {
  const c = FUZZ_CASES.find((x) => x.name === name);
  if (!c) throw new Error(`no fuzz case ${name}`);
  await page
    .getByLabel('Import database file')
    .setInputFiles({ name: 'memory.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from(await c.build()) });
  await page.getByRole('button', { name: 'Replace memory' }).click();
}

test('a memory file with an out-of-range date is refused with a reason; one with odd answer metadata opens with a notice', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();

  await importFile(page, 'a message dated past the end of the calendar');
  const alert = page.getByRole('alert').filter({ hasText: 'Import failed' });
  await expect(alert).toContainText('holds a date outside 1900–2999');
  await expect(alert).toContainText('Your current memory is unchanged.');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await importFile(page, 'answer metadata whose requests is not a list');
  await expect(page.getByText(/Imported 12 messages in 1 conversation\b/)).toBeVisible();
  await page
    .getByRole('button', { name: /Garden/ })
    .first()
    .click();
  await expect(page.getByTestId('message')).toHaveCount(12);
  await page.getByTestId('message').nth(1).getByRole('button', { name: 'what was sent' }).click();
  const notice = page.getByTestId('view-error');
  await expect(notice).toContainText('What was sent could not be shown.');
  await expect(notice).toContainText('Your memory is unchanged');
  await notice.getByRole('button', { name: 'Close' }).click();
  await expect(notice).toHaveCount(0);
  // The rest of the app still works: the conversation is there and the explorer opens.
  await expect(page.getByTestId('message')).toHaveCount(12);
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await expect(page.getByRole('tab', { name: 'Overview' })).toBeVisible();
  expect(errors).toEqual([]);
});
