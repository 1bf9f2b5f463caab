/**
 * A history import stores turns with their words first and indexes the rest after (the
 * turn index with neighbour context, vectors, episodes). Right after the import's report every
 * turn is found by its words, and the indexing shows its progress until done — also after a
 * reload in the middle of it.
 */
import type { EngineApi } from '../src/core/protocol';
import { expect, test, type Page } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';
import { printPageOnFailure } from './appSteps';

const T0 = Date.UTC(2023, 2, 1) / 1000;

/** `conversations` chats of 10 turns; each turn has a word of its own (`zq<c>k<k>`). */
function exportZip(conversations: number): Buffer {
  const data = Array.from({ length: conversations }, (_, c) => ({
    id: `trail-${c}`,
    title: `Trailing chat ${c}`,
    create_time: T0 + c * 86_400,
    current_node: `t${c}-9`,
    mapping: Object.fromEntries(
      Array.from({ length: 10 }, (__, k) => [
        `t${c}-${k}`,
        {
          id: `t${c}-${k}`,
          parent: k ? `t${c}-${k - 1}` : null,
          children: k < 9 ? [`t${c}-${k + 1}`] : [],
          message: {
            id: `t${c}-${k}`,
            author: { role: k % 2 ? 'assistant' : 'user' },
            create_time: T0 + c * 86_400 + k * 30,
            content: {
              content_type: 'text',
              parts: [`Turn ${k} of chat ${c}: the marker zq${c}k${k} and some words about ferries, gardens and bread.`],
            },
          },
        },
      ]),
    ),
  }));
  return Buffer.from(zipSync({ 'conversations.json': strToU8(JSON.stringify(data)) }));
}

async function importZip(page: Page, zip: Buffer, turns: string) {
  await page.getByLabel('Import chat history file').setInputFiles({ name: 'export.zip', mimeType: 'application/zip', buffer: zip });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('history-scan')).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: `Import ${turns} turns` }).click();
  await expect(dialog.getByTestId('history-report')).toBeVisible({ timeout: 120_000 });
  return dialog;
}

printPageOnFailure();

test('after a history import the words are searchable at once and the indexing progress reaches done', async ({ page }) => {
  test.setTimeout(300_000); // shared machine; nothing here is timed
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  const dialog = await importZip(page, exportZip(60), '600');
  await expect(dialog.getByTestId('history-report')).toHaveText(/^60 conversations, 600 turns imported/);
  // The dialog says how far the indexing is, and then that it is done.
  const indexing = dialog.getByTestId('indexing-status');
  await expect(indexing).toBeVisible();
  await expect(indexing).toHaveAttribute('data-total', '600');
  await expect(indexing).toHaveAttribute('data-state', 'idle', { timeout: 240_000 });
  await expect(indexing).toHaveText('Indexing done: every turn is searchable by meaning too.');
  await expect(indexing).toHaveAttribute('data-indexed', '600');
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  for (const marker of ['zq0k0', 'zq31k6', 'zq59k9']) {
    await page.getByLabel('Search memory').fill(marker);
    // The episodes are still being built from the imported turns: the search is answered between
    // two of their slices, within the default wait.
    await expect(page.getByTestId('search-hit')).toHaveCount(1);
    await expect(page.getByTestId('search-hit').first()).toContainText(marker);
  }
});

test('words are found while the indexing still trails, and a reload resumes it to the end', async ({ page }) => {
  test.setTimeout(300_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  const dialog = await importZip(page, exportZip(150), '1,500');
  // Right after the report, before the trailing indexing is done: searched through the engine the
  // UI uses (the dialog is modal), a turn is found by its words.
  const found = await page.evaluate(async () => {
    const engine = (window as unknown as { recollectEngine: EngineApi }).recollectEngine;
    const [status, hits] = await Promise.all([engine.indexing.status(), engine.conversations.search('zq149k9')]);
    return { status, hits: hits.map((h) => h.message.content) };
  });
  expect(found.hits).toHaveLength(1);
  expect(found.hits[0]).toContain('zq149k9');
  expect(found.status.total).toBe(1_500);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  // A reload (possibly mid-indexing): the engine resumes, the status line shows it while it runs,
  // and it ends with every turn indexed.
  await page.reload();
  await expect(page.getByTestId('status')).toBeVisible({ timeout: 60_000 });
  await expect
    .poll(
      async () =>
        page.evaluate(async () => {
          const s = await (window as unknown as { recollectEngine: EngineApi }).recollectEngine.indexing.status();
          return `${s.state} ${s.indexed}/${s.total}`;
        }),
      { timeout: 240_000, intervals: [1_000] },
    )
    .toBe('idle 1500/1500');
  await expect(page.getByTestId('indexing-status')).toHaveCount(0);
  await page.getByLabel('Search memory').fill('zq77k3');
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
});
