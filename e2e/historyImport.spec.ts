import { expect, test, type Page } from '@playwright/test';
import { replaceMemory } from './appSteps';
import { strToU8, zipSync } from 'fflate';
import {
  T0,
  ambiguousTranscript,
  boldLabelTranscript,
  chatGptBranchCopies,
  chatGptConversations,
  chatGptMicroseconds,
  claudeBranchedConversations,
  headingTranscript,
  nameLineTranscript,
} from '../test/import/historyFixtures';
import { chooseFromMore } from './moreMenu';

/** The hand-written ChatGPT fixture plus enough filler conversations that the import takes a moment. */
function exportZip(): Buffer {
  const filler = Array.from({ length: 400 }, (_, i) => ({
    id: `filler-${i}`,
    title: `Filler chat ${i}`,
    create_time: T0 - 86_400 * (i + 1),
    current_node: `f${i}-4`,
    mapping: Object.fromEntries(
      Array.from({ length: 5 }, (__, k) => [
        `f${i}-${k}`,
        {
          id: `f${i}-${k}`,
          parent: k ? `f${i}-${k - 1}` : null,
          children: k < 4 ? [`f${i}-${k + 1}`] : [],
          message: {
            id: `f${i}-${k}`,
            author: { role: k % 2 ? 'assistant' : 'user' },
            create_time: T0 - 86_400 * (i + 1) + k * 30,
            content: { content_type: 'text', parts: [`Filler turn ${k} of chat ${i} about gardening, recipes and travel plans.`] },
          },
        },
      ]),
    ),
  }));
  return Buffer.from(
    zipSync({ 'conversations.json': strToU8(JSON.stringify([...chatGptConversations, ...filler])), 'user.json': strToU8('{}') }),
  );
}

test('a ChatGPT export zip imports through the dialog with progress, and its turns are found with their original date', async ({
  page,
}) => {
  test.setTimeout(240_000); // the machine running e2e may be shared; nothing here is timed
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await page
    .getByLabel('Import chat history file')
    .setInputFiles({ name: 'chatgpt-export.zip', mimeType: 'application/zip', buffer: exportZip() });
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
  await expect(dialog.getByTestId('history-report')).toHaveText(/^402 conversations, 2,008 turns imported; 2 skipped: /, {
    timeout: 60_000,
  });
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  await page.getByLabel('Search memory').fill('pastéis Belém');
  const hit = page.getByTestId('search-hit').first();
  await expect(hit).toContainText('Try the pastéis de nata');
  await expect(hit).toContainText(/May 8, 2023/);
  await hit.click();
  await expect(page.getByTestId('message')).toHaveCount(6);
  await expect(page.getByTestId('message').nth(3)).toContainText('[image]');
});

async function importThroughDialog(page: Page, name: string, mimeType: string, buffer: Buffer, turns: string) {
  await page.getByLabel('Import chat history file').setInputFiles({ name, mimeType, buffer });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('history-scan')).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: `Import ${turns} turns` }).click();
  const report = dialog.getByTestId('history-report');
  await expect(report).toBeVisible({ timeout: 60_000 });
  const text = await report.textContent();
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  return text ?? '';
}

test('a ChatGPT import with microsecond times exports a memory that imports again', async ({ page }, info) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  expect(
    await importThroughDialog(page, 'conversations.json', 'application/json', Buffer.from(JSON.stringify(chatGptMicroseconds)), '2'),
  ).toMatch(/^1 conversation, 2 turns imported/);
  const downloadPromise = page.waitForEvent('download');
  await chooseFromMore(page, 'Export');
  const path = info.outputPath('after-chatgpt.sqlite');
  await (await downloadPromise).saveAs(path);
  await replaceMemory(page, path, /Imported 2 messages/);
  await page.getByLabel('Search memory').fill('Tordesillas');
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
});

test('"Branch in new chat" copies keep the original whole, newest first in the sidebar, no empty shell', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  expect(
    await importThroughDialog(page, 'conversations.json', 'application/json', Buffer.from(JSON.stringify(chatGptBranchCopies)), '8'),
  ).toMatch(/^2 conversations, 7 turns imported; 1 skipped: 1 conversation refused/);
  const sidebar = page.locator('button.conversation');
  await expect(sidebar).toHaveCount(2);
  await expect(sidebar.nth(0)).toContainText('Branch · Packing list');
  await expect(sidebar.nth(1)).toContainText('Packing list');
  await sidebar.nth(1).click();
  await expect(page.getByTestId('message')).toHaveCount(4);
});

test('a Claude export with edits and retries imports only the branch the user saw', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  expect(
    await importThroughDialog(
      page,
      'conversations.json',
      'application/json',
      Buffer.from(JSON.stringify(claudeBranchedConversations)),
      '8',
    ),
  ).toMatch(/^2 conversations, 8 turns imported\.$/);
  await page.getByLabel('Search memory').fill('Gyllenhal');
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
  await page.getByTestId('search-hit').first().click();
  await expect(page.getByTestId('message')).toHaveCount(4);
  await expect(page.getByTestId('message').nth(2)).toContainText('Something funnier');
  await page.getByLabel('Search memory').fill('Audrey Hepburn');
  await expect(page.getByText('Nothing stored matches these words.')).toBeVisible();
});

test('transcripts: the dialog shows how the speakers were read, and asks before storing an uncertain reading', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await page
    .getByLabel('Import chat history file')
    .setInputFiles({ name: 'claude-session.md', mimeType: 'text/markdown', buffer: Buffer.from(headingTranscript) });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  const turns = dialog.getByTestId('transcript-turn');
  await expect(turns).toHaveCount(4);
  await expect(turns.nth(0)).toHaveAttribute('data-role', 'user');
  await expect(turns.nth(1)).toHaveAttribute('data-role', 'assistant');
  await expect(turns.nth(1)).toContainText('Assistant (Claude): Sure. HTTP caching');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page
    .getByLabel('Import chat history file')
    .setInputFiles({ name: 'hydra.txt', mimeType: 'text/plain', buffer: Buffer.from(ambiguousTranscript) });
  await expect(dialog.getByTestId('transcript-reading')).toContainText(
    'Recollect is not sure who is speaking (no speaker is recognised as the assistant)',
  );
  const importButton = dialog.getByRole('button', { name: 'Import 4 turns' });
  await expect(importButton).toBeDisabled();
  await dialog.getByRole('checkbox', { name: 'These speakers and roles are right' }).check();
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await importButton.click();
  await expect(dialog.getByTestId('history-report')).toHaveText(/^1 conversation, 4 turns imported/, { timeout: 60_000 });
});

/** Imports a clear transcript through the dialog: the preview's roles first, then the stored turns' roles and speakers. */
async function importTranscript(
  page: Page,
  name: string,
  text: string,
  speakers: readonly (readonly [string, 'user' | 'assistant'])[],
  searchFor: string,
) {
  await page.getByLabel('Import chat history file').setInputFiles({ name, mimeType: 'text/markdown', buffer: Buffer.from(text) });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('transcript-reading')).toContainText('The first turns read as:', { timeout: 60_000 });
  await expect(dialog.getByTestId('transcript-reading')).not.toContainText('not sure who is speaking');
  const preview = dialog.getByTestId('transcript-turn');
  await expect(preview).toHaveCount(speakers.length);
  for (const [i, [speaker, role]] of speakers.entries()) {
    await expect(preview.nth(i)).toHaveAttribute('data-role', role);
    await expect(preview.nth(i)).toContainText(`${role === 'assistant' ? 'Assistant' : 'User'} (${speaker}):`);
  }
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: `Import ${speakers.length} turns` }).click();
  await expect(dialog.getByTestId('history-report')).toHaveText(new RegExp(`^1 conversation, ${speakers.length} turns imported`), {
    timeout: 60_000,
  });
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  await page.getByLabel('Search memory').fill(searchFor);
  await page.getByTestId('search-hit').first().click();
  const messages = page.getByTestId('message');
  await expect(messages).toHaveCount(speakers.length);
  for (const [i, [speaker, role]] of speakers.entries()) {
    await expect(messages.nth(i)).toHaveClass(new RegExp(`\\bmessage ${role}\\b`));
    await expect(messages.nth(i).locator('.message-head strong')).toHaveText(speaker);
  }
  return messages;
}

test('transcripts with bold labels (**Human**: / **GPT**:) and Name: lines import through the dialog with the right roles and speakers', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();

  // The answer's own bullets (- **Headers**: …) stay in the answer: no speaker "Headers" or "Emphasis".
  const bold = await importTranscript(
    page,
    'markdown-chat.md',
    boldLabelTranscript,
    [
      ['Human', 'user'],
      ['GPT', 'assistant'],
      ['Human', 'user'],
      ['GPT', 'assistant'],
    ],
    'Emphasis asterisks',
  );
  await expect(bold.nth(1)).toContainText('Headers');
  await expect(bold.nth(1)).toContainText('Emphasis');
  await expect(bold.nth(3)).toContainText('¥300');

  // A code block's "# comment" and "key: value" lines and a "Note:" line are part of the answer.
  const lines = await importTranscript(
    page,
    'compose-chat.txt',
    nameLineTranscript,
    [
      ['User', 'user'],
      ['ChatGPT', 'assistant'],
      ['User', 'user'],
      ['ChatGPT', 'assistant'],
    ],
    'pgadmin',
  );
  await expect(lines.nth(1)).toContainText('image: postgres:16');
  await expect(lines.nth(1)).toContainText('Note: change the password before you deploy.');
  await expect(page.getByTestId('message').filter({ hasText: /^\s*(Note|services|Headers|Emphasis)\b/ })).toHaveCount(0);
});
