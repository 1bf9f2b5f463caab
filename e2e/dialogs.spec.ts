/**
 * Every overlay is a real modal on a memory at daily-use scale: the platform's <dialog> shown with
 * showModal() (the page behind is inert, so Tab never leaves it), Escape closes it and focus goes
 * back where it was. Covers Import memory, Import chat history, Settings (Other… focuses Base URL;
 * Save keeps focus in the panel and Escape still closes it), Models and the delete-episode
 * confirmation.
 */
import { expect, test, type Page } from '@playwright/test';
import { ensureFixtureMemory, FIXTURE_FILE, importFixtureMemory } from './fixtureMemory';
import { expectModalThenEscape } from './modal';

test.beforeAll(async () => {
  await ensureFixtureMemory();
});

async function expectModal(page: Page, name: string) {
  await expectModalThenEscape(page, page.getByRole(name === 'Delete episode' ? 'alertdialog' : 'dialog', { name }));
}

test('every dialog is modal, traps Tab, closes on Escape, at scale', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/');

  // Import memory: the confirmation before replacing everything.
  await page.getByLabel('Import database file').setInputFiles(FIXTURE_FILE);
  await expectModal(page, 'Import memory');
  await importFixtureMemory(page);

  // Settings from the first-run checklist's Other…: Base URL has focus.
  await page.getByRole('button', { name: 'Other…' }).click();
  await expect(page.getByLabel('Base URL')).toBeFocused();
  await expectModal(page, 'Settings');
  await expect(page.getByRole('button', { name: 'Other…' })).toBeFocused(); // focus came back

  // Save keeps focus in the panel, and Escape still closes it.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await page.getByLabel('Model', { exact: true }).fill('some-model');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeFocused();
  await expectModal(page, 'Settings');

  await page.getByRole('button', { name: 'Models', exact: true }).click();
  await expectModal(page, 'Models');

  // Import chat history: a small ChatGPT export.
  const conversations = [{ id: 'x', title: 'Tiny', create_time: 1_700_000_000, current_node: 'm1', mapping: {
    root: { id: 'root', parent: null, children: ['m1'], message: null },
    m1: { id: 'm1', parent: 'root', children: [], message: { id: 'm1', author: { role: 'user' }, create_time: 1_700_000_000, content: { content_type: 'text', parts: ['Hello there.'] }, metadata: {} } },
  } }];
  await page.getByLabel('Import chat history file').setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(conversations)) });
  await expect(page.getByTestId('history-scan')).toBeVisible();
  await expectModal(page, 'Import chat history');

  // The delete-episode confirmation, on the newest of ≈ 940 episodes.
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
  await page.getByTestId('memcell-row').first().click();
  await page.getByRole('button', { name: 'Delete episode' }).click();
  await expect(page.getByRole('button', { name: 'Delete for good' })).toBeFocused();
  await expectModal(page, 'Delete episode');
  await expect(page.getByRole('button', { name: 'Delete episode' })).toBeFocused();
});
