/**
 * Memory you can carry, in the running app: Claude-style lines pasted into Import memory… are
 * previewed with their kinds and dates (one already saved by hand unticked as known), imported as
 * saved memories marked with their source, and a second paste adds nothing; a chat pasted by
 * mistake is refused with Import chats… offered; Export memory… as Portable AI Memory downloads a
 * file holding exactly the saved memories with their dates. Both dialogs are used from the keyboard
 * and pass axe.
 */
import AxeBuilder from '@axe-core/playwright';
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { openSavedMemories } from './appSteps';

const PASTE = `Here is everything I have stored about you:

\`\`\`
[2025-01-14] - Works as a backend engineer at a logistics start-up in Rotterdam, mostly in Go and PostgreSQL; on call one week in four.
[2025-02-03] - Prefers answers that start with the conclusion, then the reasoning, with shell commands in code blocks and no emoji.
[2025-03-22] - Is planning a two-week cycling trip through the Loire valley in June 2026 with their partner, Sam.
[unknown] - Has a cat called Miso who is allergic to chicken.
[2025-05-05] - i am vegetarian and cook lentils every Sunday
\`\`\``;

const TRANSCRIPT = `User: My migration fails with "relation does not exist" since I renamed the schema from app to billing. I have tried reconnecting and running it twice; it is PostgreSQL 16 in Docker and the same script worked last week before the rename. What is going on?
Assistant: The rename moved every table into billing, but your session's search_path still lists app, so unqualified names no longer resolve. Qualify the names or run SET search_path TO billing, public; at the start of the script.`;

async function axe(page: Page, dialog: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include(`[data-testid="${dialog}"]`).analyze();
  return result.violations.map((v) => `${dialog}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

test('paste Claude-style lines, preview, import, paste again (nothing added), export as Portable AI Memory', async ({ page, context }) => {
  test.setTimeout(180_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  const saved = await openSavedMemories(page);
  await saved.getByLabel('Add a memory').fill('I am vegetarian and cook lentils every Sunday.');
  await saved.getByRole('button', { name: 'Save memory' }).click();
  await expect(saved.getByTestId('saved-item').filter({ hasText: 'I am vegetarian' })).toHaveCount(1);

  // The prompt for the other assistant, copied with its button.
  await saved.getByRole('button', { name: 'Import memory…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import memories from another assistant' });
  await expect(dialog.getByTestId('carry-prompt')).toContainText('[YYYY-MM-DD] - the memory');
  await dialog.getByRole('button', { name: 'Copy prompt' }).click();
  await expect(dialog.getByTestId('carry-status')).toHaveText('Prompt copied.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('one memory per line');

  // From the keyboard: the paste box has focus when the dialog opens; Tab reaches Preview.
  const box = dialog.getByLabel('Memories to import');
  await box.fill(PASTE);
  await box.focus();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Preview' })).toBeFocused();
  await page.keyboard.press('Enter');
  const items = dialog.getByTestId('carry-item');
  await expect(items).toHaveCount(5);
  await expect(dialog.getByTestId('carry-summary')).toContainText('5 memories found (dated lines ([date] - memory)); 1 already known');
  await expect(items.nth(0).getByTestId('carry-kind')).toHaveText('about you');
  await expect(items.nth(0).getByTestId('carry-date')).toHaveText('2025-01-14');
  await expect(items.nth(2).getByTestId('carry-kind')).toHaveText('plan');
  await expect(items.nth(3).getByTestId('carry-date')).toHaveText('no date');
  const known = items.filter({ hasText: 'i am vegetarian' });
  await expect(known).toHaveAttribute('data-known', 'true');
  await expect(known.getByRole('checkbox')).not.toBeChecked();
  await expect(known.getByRole('checkbox')).toBeDisabled();
  // The person leaves one out and says where the memories come from.
  await items.nth(1).getByRole('checkbox').uncheck();
  await dialog.getByLabel('Where they come from').selectOption('Claude');
  expect(await axe(page, 'import-memories')).toEqual([]);
  await dialog.getByRole('button', { name: 'Import 3 memories' }).click();
  await expect(dialog.getByTestId('carry-status')).toHaveText('Imported 3 memories from Claude. They are in Saved memories.');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  const trip = saved.getByTestId('saved-item').filter({ hasText: 'Is planning a two-week cycling trip' });
  await expect(trip).toHaveCount(1);
  await expect(trip).toContainText('imported from Claude');
  await expect(saved.getByTestId('saved-item').filter({ hasText: 'Has a cat called Miso' })).toHaveCount(1);
  await expect(saved.getByTestId('saved-item').filter({ hasText: 'Prefers answers that start with the conclusion' })).toHaveCount(0);

  // The same paste again: everything imported is known; the one left out is offered again.
  await saved.getByRole('button', { name: 'Import memory…' }).click();
  await dialog.getByLabel('Memories to import').fill(PASTE);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('carry-summary')).toContainText('4 already known');
  await dialog.getByTestId('carry-item').filter({ hasText: 'Prefers answers' }).getByRole('checkbox').uncheck();
  await expect(dialog.getByRole('button', { name: 'Import 0 memories' })).toBeDisabled();

  // A chat pasted by mistake: refused, with Import chats… at hand.
  await dialog.getByLabel('Memories to import').fill(TRANSCRIPT);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('carry-error')).toContainText('This looks like a chat');
  await expect(dialog.getByTestId('carry-error').getByRole('button', { name: 'Import chats…' })).toBeVisible();
  await expect(dialog.getByTestId('carry-item')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Close import memories from another assistant' }).click();
  await expect(dialog).toBeHidden();
  await expect(saved.getByTestId('saved-item').filter({ hasText: /vegetarian|Miso|cycling trip|backend engineer/ })).toHaveCount(4);

  // Export memory… as Portable AI Memory, chosen and downloaded from the keyboard.
  await saved.getByRole('button', { name: 'Export memory…' }).click();
  const exporter = page.getByRole('dialog', { name: 'Export memories' });
  await exporter.getByLabel('Portable AI Memory (JSON)').check();
  expect(await axe(page, 'export-memories')).toEqual([]);
  const downloading = page.waitForEvent('download');
  await exporter.getByRole('button', { name: 'Download file' }).focus();
  await page.keyboard.press('Enter');
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^recollect-memory-\d{4}-\d{2}-\d{2}\.pam\.json$/);
  const doc = JSON.parse(await readFile((await download.path())!, 'utf8'));
  expect(doc.schema).toBe('portable-ai-memory');
  const byText = new Map<string, { type: string; temporal: { created_at: string }; metadata: { recollect_kind: string } }>(
    doc.memories.map((m: { content: string }) => [m.content, m]),
  );
  expect([...byText.keys()].sort()).toEqual([
    'Has a cat called Miso who is allergic to chicken.',
    'I am vegetarian and cook lentils every Sunday.',
    'Is planning a two-week cycling trip through the Loire valley in June 2026 with their partner, Sam.',
    'Works as a backend engineer at a logistics start-up in Rotterdam, mostly in Go and PostgreSQL; on call one week in four.',
  ]);
  expect(
    byText
      .get('Works as a backend engineer at a logistics start-up in Rotterdam, mostly in Go and PostgreSQL; on call one week in four.')!
      .temporal.created_at.slice(0, 10),
  ).toBe('2025-01-14');
  const planned = byText.get('Is planning a two-week cycling trip through the Loire valley in June 2026 with their partner, Sam.')!;
  expect(planned.temporal.created_at.slice(0, 10)).toBe('2025-03-22');
  expect(planned.metadata.recollect_kind).toBe('plan');
  await expect(exporter.getByTestId('export-status')).toContainText('(4 memories)');
});
