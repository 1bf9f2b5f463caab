/** Steps through the running app that many browser tests take: the message box, and connecting an endpoint. */
import { expect, type Page } from '@playwright/test';

export const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });

/**
 * Settings → the endpoint at `url` with model "mock-model", saved and in use. Settings closes again
 * unless `keepOpen` (a test that changes another setting next).
 */
export async function connectEndpoint(page: Page, url: string, options: { keepOpen?: boolean } = {}): Promise<void> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Base URL').fill(url);
  await page.getByLabel('Model', { exact: true }).fill('mock-model');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('endpoint-state')).toContainText('In use');
  if (!options.keepOpen) await page.getByRole('button', { name: 'Close settings' }).click();
}
