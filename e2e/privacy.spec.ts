/**
 * What deleting and temporary chat guarantee, checked through the running app: a deleted turn is
 * gone from "what was sent" and from the bytes of an exported file; a temporary message typed
 * right after clicking "Temporary chat" stays temporary.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box } from './appSteps';
import { confirmIn } from './modal';
import { chooseFromMore } from './moreMenu';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => (req.stream ? 'I hear you. Take your time before you decide [1].' : synthesisResponder(req)),
  });
});
test.afterAll(async () => mock.close());

async function send(page: Page, text: string) {
  await box(page).fill(text);
  await box(page).press('Enter');
  await expect(page.getByTestId('message').filter({ hasText: text.slice(0, 60) })).toHaveCount(1);
}

async function answered(page: Page, count: number) {
  await expect(page.getByTestId('message')).toHaveCount(count, { timeout: 30_000 });
  await expect(page.getByTestId('streaming-answer')).toBeHidden({ timeout: 30_000 });
}

const SECRET = 'Just between us: I am thinking of quitting my job at Quillfeather Logistics before the spring review.';
const LONG_SECRET = `${SECRET} ${'The commute is wearing me down and the new manager keeps moving deadlines without telling anyone. '.repeat(10)}Nobody at Quillfeather knows yet.`;

test('a deleted message is gone from what was sent and from the exported file', async ({ page }, info) => {
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, LONG_SECRET);
  await answered(page, 2);
  await send(page, 'Should I tell anyone at work about it yet?');
  await answered(page, 4);

  const secretTurn = page.getByTestId('message').filter({ hasText: 'thinking of quitting' }).first();
  await secretTurn.getByRole('button', { name: 'Delete message' }).click();
  await confirmIn(page, 'Delete message', 'Delete message');
  await expect(page.getByTestId('message')).toHaveCount(3);

  // The later answer's stored request carried the deleted turn as history: now redacted.
  const last = page.getByTestId('message').last();
  await last.getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('sent-content').filter({ hasText: 'Should I tell anyone at work about it yet?' }).first()).toBeVisible();
  await expect(dialog).toContainText('[deleted]');
  await expect(dialog).not.toContainText('thinking of quitting');
  await expect(dialog).not.toContainText('wearing me down');
  await dialog.getByRole('button', { name: 'Close what was sent' }).click();

  const downloadPromise = page.waitForEvent('download');
  await chooseFromMore(page, 'Export');
  const path = info.outputPath('export.sqlite');
  await (await downloadPromise).saveAs(path);
  const bytes = await readFile(path);
  expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  for (const needle of ['thinking of quitting', 'wearing me down', 'Nobody at Quillfeather knows yet', 'commute']) {
    expect(bytes.includes(Buffer.from(needle, 'utf8')), `export holds "${needle}"`).toBe(false);
  }
  expect(bytes.includes(Buffer.from('Should I tell anyone at work about it yet?', 'utf8'))).toBe(true);
  expect(bytes.readUInt32BE(36)).toBe(0); // no free page
});

test('typing right after clicking Temporary chat stays temporary', async ({ page }) => {
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, 'I need to plan the garden beds for spring.');
  await answered(page, 2);
  const stored = page.getByRole('navigation', { name: 'Conversations' }).locator('li.active');
  await expect(stored).toHaveCount(1);
  // The status line counts both stored messages once its figures catch up (they refresh after the answer).
  await expect(page.getByTestId('message-count')).toHaveText('2');
  const sentBefore = mock.requests.length;

  await page.getByRole('button', { name: 'Temporary chat' }).click();
  // No pause: every key goes where focus is right after the click.
  await page.keyboard.type('Just between us: I am thinking of quitting');
  await expect(page.getByTestId('temporary-banner')).toBeVisible();
  await expect(box(page)).toHaveValue('Just between us: I am thinking of quitting');
  // The previous conversation is not shown as the current one.
  await expect(page.getByRole('navigation', { name: 'Conversations' }).locator('li.active')).toHaveCount(0);
  // Space and Enter on the toggle itself do not turn temporary mode off.
  await page.getByRole('button', { name: /Temporary chat/ }).focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('temporary-banner')).toBeVisible();
  await expect(box(page)).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(page.getByTestId('temp-message')).toHaveCount(2, { timeout: 30_000 });
  await expect(page.getByTestId('temp-message').first()).toHaveText(/Just between us: I am thinking of quitting/);
  await expect(page.getByTestId('message-count')).toHaveText('2');
  // What was sent: the whole message, with no memory of the stored conversation.
  const chats = mock.requests.slice(sentBefore).filter((r) => r.path.endsWith('/chat/completions'));
  const sent = JSON.stringify(chats.map((r) => r.body?.messages));
  expect(sent).toContain('Just between us: I am thinking of quitting');
  expect(sent).not.toContain('garden beds');
  // Stored nowhere.
  await page.getByLabel('Search memory').fill('quitting');
  await expect(page.getByText('Nothing stored matches these words.')).toBeVisible();
  await page.getByLabel('Search memory').fill('');
  await page.getByRole('button', { name: 'Leave' }).click();
  await expect(page.getByTestId('temporary-banner')).toBeHidden();
  await page.locator('button.conversation').first().click();
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(page.getByTestId('message').filter({ hasText: 'quitting' })).toHaveCount(0);
});
