/**
 * A long conversation opens with a window of its newest turns, not every turn in the page: a
 * 3,000-turn Claude conversation (turns of real length) shows 200 turns, "Show earlier" adds 200
 * more and keeps the reader's place, and a search hit far back still opens at its turn.
 */
import { expect, test } from '@playwright/test';

const TURNS = 3_000;

function longClaudeConversation(): Buffer {
  const body =
    'We went through the week in detail: the bread starter, the garden beds, the train times to Porto and the packing list. '.repeat(9);
  return Buffer.from(
    JSON.stringify([
      {
        uuid: 'long-1',
        name: 'A very long chat',
        created_at: '2024-01-01T08:00:00.000Z',
        chat_messages: Array.from({ length: TURNS }, (_, i) => ({
          uuid: `long-1-${i}`,
          sender: i % 2 ? 'assistant' : 'human',
          text: `Turn ${i} ${i === 5 ? 'mentions the zeppelin museum. ' : ''}${body}`,
          created_at: new Date(Date.UTC(2024, 0, 1, 8) + i * 60_000).toISOString(),
        })),
      },
    ]),
  );
}

test('a 3,000-turn conversation draws a window of its newest turns and pages back on demand', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await page
    .getByLabel('Import chat history file')
    .setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: longClaudeConversation() });
  const dialog = page.getByRole('dialog', { name: 'Import chat history' });
  await expect(dialog.getByTestId('history-scan')).toContainText('Found 1 conversations', { timeout: 60_000 });
  await dialog.getByRole('radio', { name: /Off/ }).check();
  await dialog.getByRole('button', { name: /^Import [\d,]+ turns$/ }).click();
  await expect(dialog.getByTestId('history-report')).toContainText('3,000 turns imported', { timeout: 120_000 });
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  await page
    .getByRole('button', { name: /A very long chat/ })
    .first()
    .click();
  await expect(page.getByTestId('message').last()).toContainText(`Turn ${TURNS - 1} `);
  await expect(page.getByTestId('message')).toHaveCount(200);
  await expect(page.getByTestId('message').first()).toContainText(`Turn ${TURNS - 200} `);
  await page.getByTestId('show-earlier').click();
  await expect(page.getByTestId('message')).toHaveCount(400);
  await expect(page.getByTestId('message').first()).toContainText(`Turn ${TURNS - 400} `);

  // A search hit from the start of the conversation opens there.
  await page.getByLabel('Search memory').fill('zeppelin museum');
  await page.getByTestId('search-hit').first().click();
  await expect(page.locator('[data-message-id="claude:long-1-5"]')).toBeVisible();
  await expect(page.getByTestId('message')).toHaveCount(200);
  await page.getByTestId('show-newest').click();
  await expect(page.getByTestId('message').last()).toContainText(`Turn ${TURNS - 1} `);
  await expect(page.getByTestId('message')).toHaveCount(200);
});
