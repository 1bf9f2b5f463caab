/**
 * "Remember that I'm vegetarian" through the running app: saved the moment it is sent, with
 * "Memory updated" and Undo under that message (keyboard reachable, axe clean), listed in Saved
 * memories, carried by the answer requests the endpoint receives (read from the mock server's own
 * record of them), and gone from Saved memories and the next request after Undo. Without an
 * endpoint it is saved all the same; deleting the message deletes it.
 */
import { expect, test, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { answersSince, askInNewChat, backToChat, connectEndpoint, openSavedMemories, sendMessage, waitForMessages } from './appSteps';
import { confirmIn } from './modal';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Noted — I will keep that in mind.' : synthesisResponder(req)) });
});
test.afterAll(async () => mock.close());

const ASK = "Remember that I'm vegetarian and allergic to peanuts.";
const SAVED = "I'm vegetarian and allergic to peanuts";
/** How the context prints the saved memory in a request (JSON): a numbered line of the profile section. */
const PROFILE_LINE = `] ${SAVED}\\n`;

const newChat = (page: Page) => page.getByRole('button', { name: '+ New conversation' });
const savedAbout = (page: Page) => page.getByTestId('saved-memories').getByTestId('saved-item').filter({ hasText: SAVED });

test('an explicit "remember" is saved at once: notice and Undo under the message, Saved memories, the next requests', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await newChat(page).click();
  const from = mock.requests.length;
  await sendMessage(page, ASK);
  const asked = page.getByTestId('message').filter({ hasText: ASK });
  const notice = asked.getByTestId('memory-saved');
  await expect(notice).toContainText(`Memory updated · saved “${SAVED}”`);
  await waitForMessages(page, 2);
  // The answer to that very message already had it in its memory.
  expect(answersSince(mock, from)).toContain(PROFILE_LINE);

  // Axe over the chat with the notice in it.
  const axe = await new AxeBuilder({ page }).exclude('#conversation-list').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);

  // "Saved memories" under the message opens the list, where it is, written by the person.
  await notice.getByRole('button', { name: 'Saved memories' }).click();
  await expect(savedAbout(page)).toHaveCount(1);
  await expect(savedAbout(page)).toContainText('written by you');
  await backToChat(page);

  // A question in another chat carries it to the endpoint.
  expect(await askInNewChat(page, mock, newChat(page), 'What could I cook for dinner tonight with lentils and rice?')).toContain(
    PROFILE_LINE,
  );

  // Back to the first chat: Undo, by keyboard (one Tab after the message's Edit button).
  await page.getByRole('navigation', { name: 'Conversations' }).locator('button.conversation').filter({ hasText: 'Remember that' }).click();
  await asked.getByRole('button', { name: 'Edit message' }).focus();
  await page.keyboard.press('Tab');
  const undo = asked.getByRole('button', { name: `Undo: forget “${SAVED}”` });
  await expect(undo).toBeFocused();
  await page.keyboard.press('Enter');
  const undone = asked.getByTestId('memory-undone');
  await expect(undone).toContainText(`“${SAVED}” was removed from memory`);
  await expect(undone).toBeFocused();
  await expect(asked.getByTestId('memory-saved')).toHaveCount(0);

  // Gone from Saved memories and from the next request.
  await openSavedMemories(page);
  await expect(page.getByTestId('saved-memories').getByRole('heading', { name: /About you \(0\)/ })).toBeVisible();
  await expect(savedAbout(page)).toHaveCount(0);
  await backToChat(page);
  expect(await askInNewChat(page, mock, newChat(page), 'Any ideas for a quick lunch tomorrow?')).not.toContain(PROFILE_LINE);
});

test('memory only (no endpoint): still saved; deleting the message deletes the memory', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(page.getByTestId('no-endpoint')).toBeVisible();
  await sendMessage(page, ASK);
  const asked = page.getByTestId('message').filter({ hasText: ASK });
  await expect(asked.getByTestId('memory-saved')).toContainText(`Memory updated · saved “${SAVED}”`);
  await openSavedMemories(page);
  await expect(savedAbout(page)).toHaveCount(1);
  await backToChat(page);

  await asked.getByRole('button', { name: 'Delete message' }).click();
  await confirmIn(page, 'Delete message', 'Delete message');
  await expect(page.getByTestId('message')).toHaveCount(0);
  await openSavedMemories(page);
  await expect(page.getByTestId('saved-memories').getByRole('heading', { name: /About you \(0\)/ })).toBeVisible();
  await expect(savedAbout(page)).toHaveCount(0);
});
