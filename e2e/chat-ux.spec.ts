/**
 * The chat's major usability fixes, end to end in the built app:
 * scroll to the newest message, ↑-edit that changes nothing until the new text is sent (then keeps the old as a version),
 * "List models" with no model typed, and dialogs that are modal for the keyboard.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { connectEndpoint, conversationRow, messageBox as box, replaceMemory } from './appSteps';
import { expectModalThenEscape } from './modal';
import { moreButton } from './moreMenu';

const FILE = 'test-results/chat-ux-long.sqlite';
const TURNS = 120;
let mock: MockLlmServer;

test.beforeAll(async () => {
  mock = await startMockLlmServer({
    chunkDelayMs: 150,
    // A long streamed answer, so the streaming text itself overflows the view.
    responder: (req) =>
      req.stream
        ? Array.from({ length: 12 }, (_, i) => `Line ${i + 1} of the answer about your notes.`).join('\n\n')
        : synthesisResponder(req),
  });
  // A conversation of 120 turns, written in Node and imported through the UI.
  const store = await openNodeStore();
  await store.createConversation({ id: 'long', title: 'A long conversation' });
  const t0 = Date.now() - 3 * 3_600_000;
  await store.appendTurns(
    Array.from({ length: TURNS }, (_, i) => ({
      id: `t${i}`,
      conversationId: 'long',
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      speaker: i % 2 === 0 ? 'You' : 'Assistant',
      content: `Note number ${i + 1}: something worth keeping.`,
      occurredAt: t0 + i * 60_000,
    })),
  );
  mkdirSync('test-results', { recursive: true });
  writeFileSync(FILE, await store.exportDatabase());
});
test.afterAll(async () => mock.close());

// The machine is shared: give each flow room (no timing is asserted).
test.beforeEach(() => test.setTimeout(180_000));

const configure = (page: Page) => connectEndpoint(page, mock.url);

test('a long conversation opens at its newest message, and streaming, finished and failed answers stay in view', async ({ page }) => {
  await page.goto('/');
  await replaceMemory(page, FILE, `Imported ${TURNS} messages`);
  await configure(page);
  await conversationRow(page, 'A long conversation').click();
  await expect(page.getByTestId('message')).toHaveCount(TURNS);
  await expect(page.getByTestId('message').last()).toContainText(`Note number ${TURNS}:`);
  await expect(page.getByTestId('message').last()).toBeInViewport();
  await expect(page.getByTestId('message').first()).not.toBeInViewport();

  await box(page).fill('What did I note last?');
  await box(page).press('Enter');
  const streaming = page.getByTestId('streaming-answer');
  await expect(streaming).toContainText('Line 3 of the answer', { timeout: 60_000 }); // mid-stream
  await expect(streaming.getByRole('button', { name: 'Stop (Esc)' })).toBeInViewport();
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message').last()).toContainText('Line 12 of the answer');
  await expect(page.getByTestId('message').last().getByRole('button', { name: 'copy' })).toBeInViewport();

  mock.setBehaviour({ serverErrorNext: 10 });
  await box(page).fill('And before that?');
  await box(page).press('Enter');
  const failure = page.getByRole('alert').filter({ hasText: 'The answer failed' });
  await expect(failure).toBeVisible({ timeout: 30_000 });
  await expect(failure.getByRole('button', { name: 'Try again' })).toBeInViewport();
  mock.setBehaviour({ serverErrorNext: 0 });
});

test('↑ edits the last message without deleting anything until the new text is sent', async ({ page }) => {
  await page.goto('/');
  await configure(page);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(box(page)).toBeFocused(); // focus lands in the message box
  await box(page).fill('My cat is named Tom.');
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(2, { timeout: 30_000 });
  // The conversation took its title from the first message.
  await expect(conversationRow(page, 'My cat is named Tom')).toBeVisible();

  await box(page).press('ArrowUp');
  await expect(page.getByTestId('editing-note')).toBeVisible();
  await expect(box(page)).toHaveValue('My cat is named Tom.');
  await expect(page.getByTestId('message')).toHaveCount(2); // nothing deleted yet

  // Leaving the conversation while editing loses nothing.
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await conversationRow(page, 'My cat is named Tom').click();
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(page.getByTestId('message').first()).toContainText('My cat is named Tom.');

  // Esc cancels an edit.
  await box(page).press('ArrowUp');
  await box(page).press('Escape');
  await expect(page.getByTestId('editing-note')).toBeHidden();
  await expect(box(page)).toHaveValue('');

  // Sending the edit shows the new turn and its answer; the old ones stay as version 1 of 2.
  await box(page).press('ArrowUp');
  await box(page).fill('My cat is named Tim.');
  await box(page).press('Enter');
  await expect(page.getByTestId('streaming-answer')).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(page.getByTestId('message').first()).toContainText('My cat is named Tim.');
  await page.reload();
  // The title was made from the replaced turn: it is made again from the edit (hidden words leave titles too).
  await conversationRow(page, 'My cat is named Tim').click();
  await expect(conversationRow(page, 'My cat is named Tom')).toHaveCount(0);
  await expect(page.getByTestId('message').filter({ hasText: 'named Tom' })).toHaveCount(0);
  await expect(page.getByTestId('message').filter({ hasText: 'named Tim' })).toHaveCount(1);
  await expect(page.getByTestId('version-switcher')).toContainText('Version 2 of 2');
});

test('"List models" works with only the address typed, and a listed model can be picked', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Base URL').fill(mock.url);
  await expect(page.getByLabel('Model', { exact: true })).toHaveValue('');
  await page.getByRole('button', { name: 'List models' }).click();
  const found = page.getByTestId('found-models');
  await expect(found.getByRole('button', { name: 'mock-model' })).toBeVisible();
  await expect(page.getByRole('dialog', { name: 'Settings' }).getByRole('alert')).toHaveCount(0);
  await found.getByRole('button', { name: 'mock-model' }).click();
  await expect(page.getByLabel('Model', { exact: true })).toHaveValue('mock-model');
});

/** Opens a dialog with `open`, then checks it is modal for the keyboard and gives focus back. */
async function checkModal(page: Page, name: string, open: () => Promise<void>, opener: () => ReturnType<Page['getByRole']>) {
  await opener().focus();
  await open();
  await expectModalThenEscape(page, page.getByRole('dialog', { name }));
  await expect(opener()).toBeFocused();
}

test('the More menu opens from the keyboard, moves with the arrows and Escape gives focus back', async ({ page }) => {
  await page.goto('/');
  await configure(page); // the top bar is usable once the memory is open
  const more = moreButton(page);
  await expect(more).toHaveAttribute('aria-haspopup', 'menu');
  await expect(more).toHaveAttribute('aria-expanded', 'false');
  await more.focus();
  await more.press('ArrowDown');
  const menu = page.getByRole('menu', { name: 'More' });
  await expect(more).toHaveAttribute('aria-expanded', 'true');
  const items = menu.getByRole('menuitem');
  await expect(items.first()).toHaveText('Models');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(1)).toBeFocused();
  await page.keyboard.press('End');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(more).toBeFocused();
  await expect(more).toHaveAttribute('aria-expanded', 'false');
});

test('dialogs trap focus, are aria-modal, close on Escape and give focus back', async ({ page }) => {
  await page.goto('/');
  await configure(page);
  const settings = () => page.getByRole('button', { name: 'Settings', exact: true });
  await checkModal(page, 'Settings', () => settings().press('Enter'), settings);
  // Models is an item of the More menu: Enter opens the menu on its first item; the dialog hands
  // focus back to the More button.
  const more = () => moreButton(page);
  const openModels = async () => {
    await more().press('Enter');
    const item = page.getByRole('menuitem', { name: 'Models', exact: true });
    await expect(item).toBeFocused();
    await item.press('Enter');
  };
  await checkModal(page, 'Models', openModels, more);

  await page.getByRole('button', { name: '+ New conversation' }).click();
  await box(page).fill('Remember that the meeting is on Friday.');
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(2, { timeout: 30_000 });
  const sent = () => page.getByTestId('message').last().getByRole('button', { name: 'what was sent' });
  await checkModal(page, 'What was sent', () => sent().press('Enter'), sent);
  // The app is interactive again once the last dialog closed.
  await box(page).focus();
  await expect(box(page)).toBeFocused();
});
