import { expect, test } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';
import { T0, chatGptConversations } from '../test/import/historyFixtures';

/** The hand-written ChatGPT fixture plus enough filler conversations that the import takes a moment. */
function exportZip(): Buffer {
  const filler = Array.from({ length: 400 }, (_, i) => ({
    id: `filler-${i}`, title: `Filler chat ${i}`, create_time: T0 - 86_400 * (i + 1), current_node: `f${i}-4`,
    mapping: Object.fromEntries(Array.from({ length: 5 }, (__, k) => [`f${i}-${k}`, {
      id: `f${i}-${k}`, parent: k ? `f${i}-${k - 1}` : null, children: k < 4 ? [`f${i}-${k + 1}`] : [],
      message: { id: `f${i}-${k}`, author: { role: k % 2 ? 'assistant' : 'user' }, create_time: T0 - 86_400 * (i + 1) + k * 30,
        content: { content_type: 'text', parts: [`Filler turn ${k} of chat ${i} about gardening, recipes and travel plans.`] } },
    }])),
  }));
  return Buffer.from(zipSync({ 'conversations.json': strToU8(JSON.stringify([...chatGptConversations, ...filler])), 'user.json': strToU8('{}') }));
}

test('a ChatGPT export zip imports through the dialog with progress, and its turns are found with their original date', async ({ page }) => {
  test.setTimeout(240_000); // the machine running e2e may be shared; nothing here is timed
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await page.getByLabel('Import chat history file').setInputFiles({ name: 'chatgpt-export.zip', mimeType: 'application/zip', buffer: exportZip() });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  // The scan reports what the file holds and the cost per policy before anything is written.
  await expect(dialog.getByTestId('history-scan')).toContainText('Found 402 conversations with 2,008 turns');
  await expect(dialog.getByTestId('history-scan')).toContainText('1 empty conversations');
  await expect(dialog.getByTestId('estimate-off')).toHaveText('0 calls, ~0 tokens');
  await expect(dialog.getByTestId('estimate-eager')).not.toHaveText(/^0 calls/);
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: 'Import 2,008 turns' }).click();
  await expect(dialog.getByRole('progressbar', { name: 'Import progress' })).toBeVisible();
  await expect(dialog.getByTestId('history-progress')).toContainText(/[1-9][\d,]* conversations · [1-9][\d,]* turns/);
  await expect(dialog.getByTestId('history-report')).toHaveText(/^402 conversations, 2,008 turns imported; 2 skipped: /, { timeout: 60_000 });
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  await page.getByLabel('Search memory').fill('pastéis Belém');
  const hit = page.getByTestId('search-hit').first();
  await expect(hit).toContainText('Try the pastéis de nata');
  await expect(hit).toContainText(/May 8, 2023/);
  await hit.click();
  await expect(page.getByTestId('message')).toHaveCount(6);
  await expect(page.getByTestId('message').nth(3)).toContainText('[image]');
});
