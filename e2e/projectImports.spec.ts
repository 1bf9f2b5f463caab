import { expect, test, type Page } from '@playwright/test';
import { chatGptProjectZip, claudeProjectFilesZip, claudeProjectZip } from '../test/import/projectFixtures';

async function pick(page: Page, name: string, bytes: Uint8Array) {
  await page.getByLabel('Import chat history file').setInputFiles({ name, mimeType: 'application/zip', buffer: Buffer.from(bytes) });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('history-scan')).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole('radio', { name: /Off/ }).check();
  return dialog;
}

test('a ChatGPT export with project chats and a Claude export with projects.json import into projects shown in the sidebar', async ({
  page,
}) => {
  test.setTimeout(240_000); // the machine may be shared; nothing here is timed
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();

  // ChatGPT: the scan names the project (from its id: the export has no names) and counts its chats.
  let dialog = await pick(page, 'chatgpt-export.zip', chatGptProjectZip());
  const found = dialog.getByTestId('history-projects');
  await expect(found).toContainText('ChatGPT project 685bb5 — 2 chats (new)');
  await dialog.getByRole('button', { name: 'Import 10 turns' }).click();
  await expect(dialog.getByTestId('history-report')).toContainText('4 conversations, 10 turns imported; 1 project created', {
    timeout: 60_000,
  });
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  const sidebar = page.getByRole('navigation', { name: 'Conversations' });
  const chatgptProject = sidebar.getByRole('region', { name: 'Project ChatGPT project 685bb5' });
  await expect(chatgptProject).toContainText('Calibration after storms');
  await expect(chatgptProject).toContainText('Grant data management section');
  await expect(chatgptProject.getByRole('button', { name: 'ChatGPT project 685bb5', exact: true })).toHaveAttribute(
    'title',
    'Shared memory',
  );
  const loose = sidebar.getByRole('list', { name: 'Chats in no project' });
  await expect(loose).toContainText('Moving day checklist'); // a custom GPT's chat is not a project chat
  await expect(loose).toContainText('Irregular Portuguese verbs');

  // Claude: projects.json brings names and instructions; the person keeps their memory inside them.
  dialog = await pick(page, 'data-2025-04-10.zip', claudeProjectZip());
  await expect(dialog.getByTestId('history-projects')).toContainText(
    'Thesis — soil moisture — no chats in this file, with its instructions (new)',
  );
  await expect(dialog.getByTestId('history-projects')).toContainText('House move — no chats in this file (new)');
  await dialog.getByRole('checkbox', { name: /Keep imported projects' memory inside them/ }).check();
  await dialog.getByRole('button', { name: 'Import 4 turns' }).click();
  await expect(dialog.getByTestId('history-report')).toHaveText(
    "2 conversations, 4 turns imported; 1 skipped: 1 Claude's example project (not imported); 2 projects created.",
    { timeout: 60_000 },
  );
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  const thesis = sidebar.getByRole('region', { name: 'Project Thesis — soil moisture' });
  await expect(thesis.getByRole('button', { name: 'Thesis — soil moisture 🔒' })).toHaveAttribute('title', 'Project-only memory');
  await expect(sidebar.getByRole('region', { name: 'Project House move' })).toBeVisible();
  await expect(loose).toContainText('Storm drift in capacitive sensors');
  await thesis.getByRole('button', { name: 'Edit project Thesis — soil moisture' }).click();
  await expect(page.getByRole('dialog').getByRole('textbox', { name: /Instructions/ })).toHaveValue(/soil physics PhD thesis/);

  // The same ChatGPT export again: the project is reused, not doubled.
  dialog = await pick(page, 'chatgpt-export.zip', chatGptProjectZip());
  await expect(dialog.getByTestId('history-projects')).toContainText(
    'ChatGPT project 685bb5 — 2 chats (already here from an earlier import: reused)',
  );
});

test('a Claude chat that names its project (project_uuid) lands in it, listed after the chats in the zip', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  const dialog = await pick(page, 'data-2026-05-01.zip', claudeProjectFilesZip());
  await dialog.getByRole('button', { name: 'Import 4 turns' }).click();
  await expect(dialog.getByTestId('history-report')).toContainText('2 projects created', { timeout: 60_000 });
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  const thesis = page.getByRole('navigation', { name: 'Conversations' }).getByRole('region', { name: 'Project Thesis — soil moisture' });
  await expect(thesis).toContainText('Storm drift in capacitive sensors');
});
