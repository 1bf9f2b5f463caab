/**
 * The two-tab hand-back many times in a row in Chromium, counting how often it works: the owning tab
 * is closed while another waits, and the waiting tab must get the memory back by itself. When a tab
 * closes, its Web Locks can be released before its OPFS access handles close, so one pass proves
 * little; `npm run test:handback-chromium` runs it HANDBACK_RUNS=20 times and prints "N of 20
 * passed". In the ordinary e2e run it goes round once.
 */
import { expect, test, type Page } from '@playwright/test';
import { messageBox, sendMessage } from './appSteps';
import { closeAndHandBack, openWaitingTab, takeOver } from './handBack';

const RUNS = Number(process.env.HANDBACK_RUNS ?? 1);

async function openOwner(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
}

test(`the memory goes back to the waiting tab when the owning tab closes (${RUNS}×)`, async ({ page, context }) => {
  test.setTimeout(60_000 + RUNS * 45_000);
  let owner = page;
  await openOwner(owner);
  const failures: string[] = [];
  for (let run = 1; run <= RUNS; run++) {
    try {
      const before = Number(await owner.getByTestId('message-count').textContent());
      const second = await openWaitingTab(context);
      await takeOver(second, owner);
      await second.getByRole('button', { name: '+ New conversation' }).click();
      await expect(messageBox(second)).toBeVisible();
      await sendMessage(second, `Hand-back run ${run}.`);
      await closeAndHandBack(second, owner, before + 1);
    } catch (err) {
      failures.push(`run ${run}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      // Start the next run from a fresh tab that owns the memory.
      await Promise.all(context.pages().map((p) => p.close().catch(() => undefined)));
      owner = await context.newPage();
      await openOwner(owner);
    }
  }
  console.info(`Chromium hand-back: ${RUNS - failures.length} of ${RUNS} passed${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`);
  expect(failures).toEqual([]);
});
