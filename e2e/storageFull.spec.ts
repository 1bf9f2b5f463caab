/**
 * A full storage quota (set with Chromium's quota override, the way a full disk or a small
 * browser allowance presents itself to the page): writing says storage is full and what to do —
 * never "disk I/O error" —, the draft stays, a reload still opens the memory and shows what it
 * holds (read-only while full), and a history import too large for what is left is refused
 * before anything is written.
 */
import { expect, test, type Page } from '@playwright/test';
import { messageBox as box } from './appSteps';

async function setQuota(page: Page, quotaSize: number | null) {
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(page.url()).origin;
  await cdp.send('Storage.overrideQuotaForOrigin', quotaSize === null ? { origin } : { origin, quotaSize });
}

test('at full quota the app says storage is full, keeps the draft, and the memory still opens after a reload', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  // One at a time: Enter is ignored while the previous message is still being stored.
  for (const [i, text] of ['Tomatoes go in the south bed.', 'Basil next to the tomatoes.'].entries()) {
    await box(page).fill(text);
    await box(page).press('Enter');
    await expect(page.getByTestId('message-count')).toHaveText(String(i + 1));
  }
  const used = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
  await setQuota(page, Math.max(1, used));

  const big = 'Soil notes: compost, mulch, water deeply twice a week, and rotate the beds every year. '.repeat(400);
  let full = false;
  for (let i = 0; i < 20 && !full; i++) {
    await box(page).fill(`${i} ${big}`);
    await box(page).press('Enter');
    const alert = page.getByRole('alert').filter({ hasText: /storage|disk|Database error/ });
    full = await alert
      .first()
      .isVisible({ timeout: 2_000 })
      .catch(() => false);
  }
  const alert = page
    .getByRole('alert')
    .filter({ hasText: /storage|disk|Database error/ })
    .first();
  await expect(alert).toContainText('storage this browser gives the site is full');
  await expect(alert).not.toContainText('disk I/O error');
  await expect(box(page)).not.toHaveValue('');

  await page.reload();
  await expect(page.getByTestId('status')).toBeVisible({ timeout: 30_000 });
  await page
    .getByRole('button', { name: /Tomatoes go in the south bed/ })
    .first()
    .click();
  await expect(page.getByTestId('message').filter({ hasText: 'Basil next to the tomatoes.' })).toBeVisible();
  await setQuota(page, null);
});

test('a history import larger than the storage left is refused before anything is written', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  const used = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
  await setQuota(page, used + 200_000);
  // Headless Chromium's estimate() ignores the quota override: report the same figure from it.
  await page.evaluate((quota) => {
    const real = navigator.storage.estimate.bind(navigator.storage);
    navigator.storage.estimate = async () => ({ ...(await real()), quota });
  }, used + 200_000);
  const conversations = Array.from({ length: 300 }, (_, c) => ({
    uuid: `c-${c}`,
    name: `Chat ${c}`,
    created_at: '2024-02-01T09:00:00.000Z',
    chat_messages: [
      {
        uuid: `c-${c}-0`,
        sender: 'human',
        text: `Question ${c}: ${'how do I keep the starter alive over the holidays? '.repeat(20)}`,
        created_at: '2024-02-01T09:00:00.000Z',
      },
    ],
  }));
  await page
    .getByLabel('Import chat history file')
    .setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(conversations)) });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('history-scan')).toContainText('Found 300 conversations');
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: /^Import [\d,]+ turns$/ }).click();
  await expect(dialog.getByRole('alert')).toContainText('This import needs about');
  await expect(page.getByTestId('message-count')).toHaveText('0');
  await setQuota(page, null);
});
