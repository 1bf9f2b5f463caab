import { expect, test } from '@playwright/test';

// The browser reports New York; the user picks Tokyo in Settings; the choice is kept in the memory
// database (it survives a reload) and can be cleared back to the browser's zone.
test.use({ timezoneId: 'America/New_York' });

test('the time zone follows the browser until the user picks one in Settings, and the choice is kept', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const zone = page.getByLabel('Your time zone');
  await expect(zone.locator('option').first()).toHaveText("Browser's (America/New_York)");
  await expect(zone).toHaveValue('');
  await zone.selectOption('Asia/Tokyo');
  await expect(zone).toHaveValue('Asia/Tokyo');

  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByLabel('Your time zone')).toHaveValue('Asia/Tokyo');
  await page.getByLabel('Your time zone').selectOption('');
  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByLabel('Your time zone')).toHaveValue('');
});
