/**
 * Every overlay is a real modal on a memory at daily-use scale: the platform's <dialog> shown with
 * showModal() (the page behind is inert, so Tab never leaves it), Escape closes it and focus goes
 * back where it was. Covers Import memory, Import chat history, Settings (Other… focuses Base URL;
 * Save keeps focus in the panel and Escape still closes it), Models and the delete-episode
 * confirmation; and every delete's in-app confirmation (a conversation, a message, an episode's fact,
 * a profile item, a saved memory): modal, Escape cancels and hands focus back to the control, the
 * confirming button deletes. No `window.confirm` is left: a native dialog fails the test.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { FIXTURE_FILE, shareFixturePage } from './fixtureMemory';
import { backToChat, scanTinyChatGptExport } from './appSteps';
import { confirmIn, expectModalThenEscape } from './modal';
import { chooseFromMore } from './moreMenu';

// One import serves both tests: the first only opens and closes dialogs (it saves an endpoint the
// second never calls), the second deletes.
const sharedPage = shareFixturePage();

async function expectModal(page: Page, name: string) {
  await expectModalThenEscape(page, page.getByRole(name === 'Delete episode' ? 'alertdialog' : 'dialog', { name }));
}

test('every dialog is modal, traps Tab, closes on Escape, at scale', async () => {
  test.setTimeout(180_000);
  const page = sharedPage();

  // Import memory: the confirmation before replacing everything (Escape keeps the memory).
  await page.getByLabel('Import database file').setInputFiles(FIXTURE_FILE);
  await expectModal(page, 'Import memory');

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

  await chooseFromMore(page, 'Models');
  await expectModal(page, 'Models');

  // Import chat history: a small ChatGPT export.
  await scanTinyChatGptExport(page);
  await expectModal(page, 'Import chat history');

  // The delete-episode confirmation, on the newest of ≈ 940 episodes.
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
  await page.getByTestId('memcell-row').first().click();
  await page.getByRole('button', { name: 'Delete episode' }).click();
  await expect(page.getByRole('button', { name: 'Cancel', exact: true })).toBeFocused();
  await expectModal(page, 'Delete episode');
  await expect(page.getByRole('button', { name: 'Delete episode' })).toBeFocused();
});

/**
 * Opens a delete's confirmation from `opener`: it is modal, Escape cancels (nothing deleted, focus
 * back on `opener`); opened again, its confirming button deletes (`count` drops by one).
 */
async function cancelThenConfirm(page: Page, opener: Locator, title: string, confirmLabel: string, count: Locator) {
  const before = await count.count();
  await opener.click();
  await expectModalThenEscape(page, page.getByRole('alertdialog', { name: title }));
  await expect(opener).toBeFocused();
  await expect(count).toHaveCount(before);
  await opener.click();
  await confirmIn(page, title, confirmLabel);
  await expect(count).toHaveCount(before - 1);
}

test('every delete asks in the app: modal, Escape cancels and focus returns, confirm deletes', async () => {
  test.setTimeout(480_000);
  const page = sharedPage();
  page.on('dialog', (d) => {
    throw new Error(`a native ${d.type()} dialog opened: ${d.message()}`);
  });
  await backToChat(page);

  // A conversation, from the list of 470 (its row's actions show while it holds focus).
  const rows = page.locator('button.conversation');
  await expect(rows).toHaveCount(470);
  const title = (await rows.first().locator('.title').textContent())!;
  await rows.first().click();
  await cancelThenConfirm(
    page,
    page.getByRole('button', { name: `Delete ${title}`, exact: true }),
    'Delete conversation',
    'Delete conversation',
    rows,
  );

  // A message of the conversation now first in the list.
  await rows.first().click();
  const messages = page.getByTestId('message');
  await expect(messages).toHaveCount(10);
  await cancelThenConfirm(
    page,
    messages.last().getByRole('button', { name: 'Delete message' }),
    'Delete message',
    'Delete message',
    messages,
  );

  // A fact of an episode the deletes above did not touch (a deleted message takes its episode's facts).
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
  await page.getByTestId('memcell-row').nth(5).click();
  const facts = page.getByTestId('fact');
  await expect(facts).toHaveCount(2);
  await cancelThenConfirm(page, facts.first().getByRole('button', { name: 'Delete fact' }), 'Delete fact', 'Forget for good', facts);

  // A profile item (the saved memories written by hand are profile items).
  await page.getByRole('tab', { name: 'Profile', exact: true }).click();
  const items = page.getByTestId('profile-item');
  await expect(items.first()).toBeVisible();
  const key = (await items.first().locator('strong').first().textContent())!;
  await cancelThenConfirm(
    page,
    items.first().getByRole('button', { name: `Delete ${key}`, exact: true }),
    'Delete profile item',
    'Forget for good',
    items,
  );

  // A saved memory.
  await page.getByRole('tab', { name: 'Saved memories', exact: true }).click();
  const saved = page.getByTestId('saved-item');
  await expect(saved.first()).toBeVisible();
  // Counted once the first page of facts is in too (it follows the profile items and plans).
  await expect(page.getByRole('button', { name: /^Show all / })).toBeVisible();
  await cancelThenConfirm(page, saved.first().getByRole('button', { name: /^Delete “/ }), 'Delete saved memory', 'Forget for good', saved);
});
