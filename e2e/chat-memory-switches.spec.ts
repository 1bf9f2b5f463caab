/**
 * The memory switches of a conversation, through the running app with the mock LLM
 * server: a conversation that is not remembered never reaches another conversation's answer, a
 * conversation with "use memory in answers" off sends no memory (and "What was sent" says so),
 * the switches persist, and Settings sets them for new conversations; with an endpoint set, the
 * first exchange is titled by it. Pipeline behaviour only.
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, conversationRow, messageBox as box } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Noted.' : synthesisResponder(req)) });
});
test.afterAll(async () => mock.close());
test.beforeEach(() => test.setTimeout(180_000)); // shared machine; nothing here is timed

const switches = (page: Page) => page.getByTestId('memory-switches');

async function newConversation(page: Page) {
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(page.getByTestId('message')).toHaveCount(0);
  await expect(box(page)).toBeFocused();
}

/** Sends `text` and waits for its answer; returns what the answer's "What was sent" showed. */
async function say(page: Page, text: string, messagesAfter: number): Promise<string> {
  await box(page).fill(text);
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(messagesAfter, { timeout: 60_000 });
  await page.getByTestId('message').last().getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog).toBeVisible();
  return await dialog.innerText();
}

async function closeSent(page: Page) {
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await dialog.getByRole('button', { name: /Close/ }).click();
  // A native modal leaves the page inert until it has closed: a click before then does nothing.
  await expect(dialog).toBeHidden();
}

test('a conversation that is not remembered stays out of other answers; memory off sends no memory and says so', async ({ page }) => {
  await page.goto('/');
  await connectEndpoint(page, mock.url);

  // A remembered fact, and one said in a conversation that is not remembered.
  await newConversation(page);
  await expect(switches(page).getByLabel('Remember this conversation')).toBeChecked();
  await say(page, 'My dog Biscuit is a beagle.', 2);
  await closeSent(page);
  // With an endpoint set, the first exchange is titled by it (the mock's title starts "About:").
  await expect(conversationRow(page, 'About: My dog Biscuit is a beagle')).toBeVisible();
  await expect(page.locator('.conversation-head h2')).toHaveText('About: My dog Biscuit is a beagle');

  await newConversation(page);
  const remember = switches(page).getByLabel('Remember this conversation');
  await remember.focus();
  await page.keyboard.press('Space'); // keyboard reachable
  await expect(remember).not.toBeChecked();
  await expect(switches(page)).toContainText('never used as memory');
  await say(page, 'My cat is called Zorblax.', 2);
  await closeSent(page);
  await page.reload();
  await conversationRow(page, 'My cat is called Zorblax').click();
  await expect(switches(page).getByLabel('Remember this conversation')).not.toBeChecked();

  // Another conversation asks about both: the remembered turn is sent, the other is not.
  await newConversation(page);
  const sent = await say(page, 'What do you know about Biscuit and Zorblax?', 2);
  expect(sent).toContain('My dog Biscuit is a beagle.');
  expect(sent).not.toContain('My cat is called Zorblax.');
  await closeSent(page);

  // Memory off here: the next answer is sent no memory, only this conversation's recent turns.
  // The box follows the engine's answer; on a loaded machine that can come after Playwright's own
  // check of uncheck(), so click and wait for the state instead.
  await switches(page).getByLabel('Use memory in answers').click();
  await expect(switches(page).getByLabel('Use memory in answers')).not.toBeChecked();
  await expect(switches(page)).toContainText("only this conversation's recent messages");
  const off = await say(page, 'And what breed is Biscuit?', 4);
  expect(off).toContain('Memory was off for this answer');
  expect(off).toContain('What do you know about Biscuit and Zorblax?'); // its own recent turn
  expect(off).not.toContain('My dog Biscuit is a beagle.');
  await closeSent(page);
  await expect(page.getByTestId('message').last().getByTestId('memory-off-mark')).toBeVisible();
});

test('Settings sets the switches new conversations start with', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByRole('region', { name: 'New conversations' });
  await expect(section.getByLabel('Remember this conversation')).toBeChecked();
  await section.getByLabel('Remember this conversation').click();
  await expect(section.getByLabel('Remember this conversation')).not.toBeChecked();
  await page.getByRole('button', { name: 'Close settings' }).click();
  await newConversation(page);
  await expect(switches(page).getByLabel('Remember this conversation')).not.toBeChecked();
  await expect(switches(page).getByLabel('Use memory in answers')).toBeChecked();
});
