/**
 * A plan outlives nothing it came from: a date plan taken from a user's
 * message ("I am flying to Lisbon next Friday", rule-based date foresight, no LLM needed) is listed
 * under Saved memories → Plans ahead and sent with later answers; deleting the message, or editing
 * it so the date is gone, removes the plan from both, and the episode in the explorer says that
 * something derived from a deleted message was removed.
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { confirmIn } from './modal';
import { backToChat, connectEndpoint, messageBox, openSavedMemories, sendMessage, waitForMessages } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Noted, have a good time.' : synthesisResponder(req)) });
});
test.afterAll(async () => mock.close());

const PLAN = 'I am flying to Lisbon next Friday.';

/** Saved memories, once its Plans ahead heading reads `count` (all of them shown: "1 of 1"). */
async function plansAhead(page: Page, count: number) {
  const saved = await openSavedMemories(page);
  await expect(saved.getByRole('heading', { name: `Plans ahead (${count} of ${count})` })).toBeVisible({ timeout: 30_000 });
  return saved;
}

/** A new conversation whose first message states PLAN, once Saved memories lists the plan. */
async function startWithPlan(page: Page): Promise<void> {
  test.setTimeout(180_000);
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, PLAN);
  await waitForMessages(page, 2);
  await expect(await plansAhead(page, 1)).toContainText('flying to Lisbon');
  await backToChat(page);
}

/** The text of "what was sent" for the last answer in the open conversation. */
async function lastSent(page: Page): Promise<string> {
  await page.getByTestId('message').last().getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('sent-content').first()).toBeVisible();
  const text = (await dialog.textContent()) ?? '';
  await dialog.getByRole('button', { name: 'Close what was sent' }).click();
  await expect(dialog).toBeHidden();
  return text;
}

test('deleting the message a plan came from removes the plan from saved memories and later answers, and the episode says so', async ({
  page,
}) => {
  await startWithPlan(page);
  // Listed (above), and sent with the next answer as a plan.
  await sendMessage(page, 'What should I pack for a long weekend?');
  await waitForMessages(page, 4);
  const before = await lastSent(page);
  expect(before).toContain('Plans and expectations still valid');
  expect(before).toContain('flying to Lisbon');

  // Delete the message the plan came from.
  const planTurn = page.getByTestId('message').filter({ hasText: 'flying to Lisbon' });
  await expect(planTurn).toHaveCount(1);
  await planTurn.getByRole('button', { name: 'Delete message' }).click();
  await confirmIn(page, 'Delete message', 'Delete message');
  await expect(page.getByTestId('message')).toHaveCount(3);

  const saved = await plansAhead(page, 0);
  await expect(saved).toContainText('No upcoming plans remembered.');
  await expect(saved).not.toContainText('Lisbon');

  // The episode it belonged to says what went with the message.
  await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
  const rows = page.getByTestId('memcell-row');
  await expect(rows.first()).toBeVisible();
  const detail = page.getByTestId('memcell-detail');
  let notice = false;
  for (let i = 0; i < (await rows.count()) && !notice; i++) {
    await rows.nth(i).click();
    await expect(rows.nth(i)).toHaveAttribute('aria-current', 'true');
    await expect(detail.getByRole('heading', { level: 2 })).toBeVisible();
    notice = (await detail.getByTestId('lost-turns').count()) > 0;
  }
  expect(notice).toBe(true);
  await expect(detail.getByTestId('lost-turns')).toContainText('1 message of this episode was deleted or edited');

  // The next answer is sent without it.
  await backToChat(page);
  await expect(page.getByTestId('message')).toHaveCount(3);
  await sendMessage(page, 'And what shoes should I take?');
  await waitForMessages(page, 5);
  const after = await lastSent(page);
  expect(after).toContain('And what shoes should I take?');
  expect(after).not.toContain('Lisbon');
  expect(after).not.toContain('Plans and expectations still valid');
});

test('editing the message so the date is gone removes the plan from saved memories and from what is sent', async ({ page }) => {
  await startWithPlan(page);

  // ↑ in the empty box edits the last message; sending replaces it (and its answer).
  await messageBox(page).focus();
  await messageBox(page).press('ArrowUp');
  await expect(page.getByTestId('editing-note')).toBeVisible();
  await messageBox(page).fill('I am flying to Lisbon at some point.');
  await messageBox(page).press('Enter');
  await expect(page.getByTestId('message').filter({ hasText: 'at some point' })).toHaveCount(1);
  await waitForMessages(page, 2);
  await expect(page.getByTestId('message').filter({ hasText: 'next Friday' })).toHaveCount(0);

  const saved = await plansAhead(page, 0);
  await expect(saved).toContainText('No upcoming plans remembered.');
  await expect(saved).not.toContainText('next Friday');

  await backToChat(page);
  await sendMessage(page, 'Which shoes should I take?');
  await waitForMessages(page, 4);
  const sent = await lastSent(page);
  expect(sent).toContain('at some point');
  expect(sent).not.toContain('Plans and expectations still valid');
  expect(sent).not.toContain('next Friday');
});
