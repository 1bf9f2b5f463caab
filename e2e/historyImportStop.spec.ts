/**
 * "Stop import" stops a history import in the app promptly (it once ran to the end and then said
 * "Cancelled"), and a reload in the middle of an import says the import was partial and that
 * importing the same file again completes it without duplicates.
 */
import { expect, test, type Page } from '@playwright/test';

const CONVERSATIONS = 3_000;

/** A Claude export: 3,000 conversations of 5 turns of real length (≈ 1,100 characters). */
function claudeExport(): Buffer {
  const body =
    'We planned the allotment: which beds get tomatoes, where the beans climb, when to sow the second round of lettuce, and how to keep slugs off without pellets. '.repeat(
      7,
    );
  return Buffer.from(
    JSON.stringify(
      Array.from({ length: CONVERSATIONS }, (_, c) => ({
        uuid: `conv-${c}`,
        name: `Garden chat ${c}`,
        created_at: new Date(Date.UTC(2024, 0, 1) + c * 3_600_000).toISOString(),
        chat_messages: Array.from({ length: 5 }, (__, i) => ({
          uuid: `conv-${c}-${i}`,
          sender: i % 2 ? 'assistant' : 'human',
          text: `${c}.${i} ${body}`,
          created_at: new Date(Date.UTC(2024, 0, 1) + c * 3_600_000 + i * 60_000).toISOString(),
        })),
      })),
    ),
  );
}

async function startImport(page: Page, file: Buffer) {
  await page
    .getByLabel('Import chat history file')
    .setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: file });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('history-scan')).toContainText(`Found ${CONVERSATIONS.toLocaleString('en')} conversations`, {
    timeout: 120_000,
  });
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: /^Import [\d,]+ turns$/ }).click();
  await expect(dialog.getByTestId('history-progress')).toContainText(/[1-9][\d,]* conversations/, { timeout: 60_000 });
  return dialog;
}

const importedOf = (summary: string) => Number(/([\d,]+) conversations?,/.exec(summary)?.[1]?.replace(/,/g, '') ?? NaN);

test('Stop import stops a running history import promptly and keeps what was stored', async ({ page }) => {
  test.setTimeout(300_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  const file = claudeExport();
  const dialog = await startImport(page, file);
  await dialog.getByRole('button', { name: 'Stop import' }).click();
  const report = dialog.getByTestId('history-report');
  await expect(report).toHaveText(/^Cancelled\./, { timeout: 60_000 });
  const imported = importedOf((await report.textContent()) ?? '');
  // Stopped well before the end (it used to run all 3,000 and then say "Cancelled").
  expect(imported).toBeLessThan(CONVERSATIONS / 2);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(page.getByTestId('message-count')).toHaveText(String(imported * 5));
});

test('a reload during an import says it was partial and that importing again completes it', async ({ page }) => {
  test.setTimeout(300_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  const file = claudeExport();
  await startImport(page, file);
  await page.reload();
  const notice = page.getByTestId('partial-import');
  await expect(notice).toContainText('did not finish');
  await expect(notice).toContainText('conversations.json');
  await expect(notice).toContainText('Import it again');
  await expect(notice).toContainText('without duplicates');
});
