/**
 * A very long conversation restored from a memory file (issue: a 100,000-turn conversation once
 * took 145 s to open and put every turn in the page): built in Node
 * (scripts/build-long-conversation.ts) and imported through Import… → Replace memory, it opens at
 * its newest turn with a window of turns in the page (the engine sends only that window), pages
 * back on demand, and a search hit from its first minutes opens at that turn.
 *
 * The suite runs it at 10,000 turns (a smoke test, ≈28 MB). The full size is a command, since
 * restoring the ≈150 MB file takes well over the suite's budget on a 2-core machine:
 *   npm run bench:long-conversation        (100,000 turns of ≈800 characters; prints the times)
 * Files are kept in .cache/ under a hash of their builder and src/ (fileCache.ts: Playwright
 * empties test-results/ at each run, and a file from an older schema must not be reused).
 */
import { expect, test } from '@playwright/test';
import { replaceMemory } from './appSteps';
import { buildOnce, cachedPath } from './fileCache';
import { buildLongConversation, LONG_CONVERSATION } from '../scripts/build-long-conversation';

const TURNS = Number(process.env.LONG_CONVERSATION_TURNS ?? 10_000);
/**
 * Real ChatGPT turns average ≈1,150 characters; at 100,000 turns that is a ≈200 MB file, so turns
 * of ≈800 characters keep it near 150 MB.
 */
const CHARS = 800;
const FILE = cachedPath(`long-conversation-${TURNS}x${CHARS}`, 'sqlite', ['scripts/build-long-conversation.ts', 'src']);
/** Turns the chat draws at once (ChatView's WINDOW). */
const WINDOW = 200;
const full = TURNS > 20_000;
const seconds = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

test.beforeAll(async () => {
  test.setTimeout(full ? 1_800_000 : 300_000);
  await buildOnce(FILE, (file) => buildLongConversation(file, { turns: TURNS, chars: CHARS }));
});

test(`a ${TURNS.toLocaleString('en-US')}-turn conversation opens at its newest turn with a bounded page, pages back, and search jumps far back`, async ({
  page,
}) => {
  test.setTimeout(full ? 3_600_000 : 480_000);
  const log = (line: string) => test.info().annotations.push({ type: 'time', description: line });
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  let t0 = Date.now();
  await replaceMemory(page, FILE, `Imported ${TURNS.toLocaleString('en-US')} messages in 1 conversation`, full ? 3_000_000 : 400_000);
  log(`restore (Import… → Replace memory): ${seconds(t0)}`);

  t0 = Date.now();
  await page
    .getByRole('button', { name: new RegExp(LONG_CONVERSATION.title) })
    .first()
    .click();
  const messages = page.getByTestId('message');
  await expect(messages.last()).toContainText(`Turn ${TURNS - 1} `, { timeout: 300_000 });
  log(`open at the newest turn: ${seconds(t0)}`);
  await expect(messages).toHaveCount(WINDOW);
  await expect(messages.first()).toContainText(`Turn ${TURNS - WINDOW} `);

  // Scrolled up to the top of the window, the reader asks for earlier turns; their place is kept.
  await page.getByTestId('messages').evaluate((el) => {
    el.scrollTop = 0;
  });
  t0 = Date.now();
  await page.getByTestId('show-earlier').click();
  await expect(messages).toHaveCount(2 * WINDOW, { timeout: 120_000 });
  await expect(messages.first()).toContainText(`Turn ${TURNS - 2 * WINDOW} `);
  await expect(page.locator(`[data-message-id="long:${TURNS - WINDOW}"]`)).toBeInViewport();
  log(`200 earlier turns: ${seconds(t0)}`);

  t0 = Date.now();
  await page.getByLabel('Search memory').fill('zeppelin museum');
  await page.getByTestId('search-hit').first().click({ timeout: 300_000 });
  await expect(page.locator('[data-message-id="long:5"]')).toBeVisible({ timeout: 300_000 });
  log(`search hit at turn 5 opened: ${seconds(t0)}`);
  await expect(messages).toHaveCount(WINDOW);
  await expect(messages.first()).toContainText('Turn 0 ');
  await page.getByTestId('show-newest').click();
  await expect(messages.last()).toContainText(`Turn ${TURNS - 1} `, { timeout: 120_000 });
  await expect(messages).toHaveCount(WINDOW);
  for (const a of test.info().annotations) console.log(`${TURNS.toLocaleString('en-US')} turns: ${a.description}`);
});
