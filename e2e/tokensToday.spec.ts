/**
 * Tokens spent "today" (Settings → Tokens spent) counts from midnight in the user's time zone, not
 * the page's. The browser reports UTC; the memory holds ledger rows placed
 * around the two midnights (UTC's and Kiritimati's, UTC+14), so the "today" figure differs by zone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { replaceMemory } from './appSteps';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { startOfDay } from '../src/core/base/timeZone';

test.use({ timezoneId: 'UTC', locale: 'en-US' });

const FILE = 'test-results/tokens-today.sqlite';
const ZONE = 'Pacific/Kiritimati';
const H = 3_600_000;

/** Expected "today" totals per zone for rows written now (the test's clock = the page's). */
async function prefill(now: number): Promise<{ utc: number; zone: number }> {
  const store = await openNodeStore();
  await store.createConversation({ id: 'c', title: 'Spend' });
  await store.appendTurn({ id: 'm1', conversationId: 'c', role: 'user', content: 'Hello there.' });
  const utcStart = startOfDay('UTC', now);
  const zoneStart = startOfDay(ZONE, now);
  const [early, late] = utcStart < zoneStart ? [utcStart, zoneStart] : [zoneStart, utcStart];
  const row = (createdAt: number, promptTokens: number) =>
    store.llmCalls.record({
      stage: 'answer',
      model: 'mock-model',
      promptTokens,
      completionTokens: 0,
      tokensEstimated: false,
      latencyMs: 10,
      outcome: 'ok',
      error: null,
      attempt: 1,
      jobId: null,
      createdAt,
    });
  await row(early - H, 50_000); // yesterday in both zones
  await row(early + (late - early) / 2, 1_000); // today only in the zone whose day began first
  await row(Math.max(late, now - 60_000), 7); // today in both
  mkdirSync('test-results', { recursive: true });
  writeFileSync(FILE, await store.exportDatabase());
  await store.db.close();
  return utcStart < zoneStart ? { utc: 1_007, zone: 7 } : { utc: 7, zone: 1_007 };
}

test('Tokens spent today counts from midnight in the chosen time zone', async ({ page }) => {
  const expected = await prefill(Date.now());
  await page.goto('/');
  await replaceMemory(page, FILE, /Imported 1 message in 1 conversation/);

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const answerRow = page
    .getByRole('region', { name: 'Spend' })
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: 'answer', exact: true }) });
  // All three calls in total; "today" from the browser's (UTC) midnight while no zone is chosen.
  await expect(answerRow.getByRole('cell').nth(1)).toHaveText('3');
  await expect(answerRow.getByRole('cell').nth(4)).toHaveText(expected.utc.toLocaleString('en-US'));

  await page.getByLabel('Your time zone').selectOption(ZONE);
  await expect(page.getByLabel('Your time zone')).toHaveValue(ZONE);
  await expect(answerRow.getByRole('cell').nth(4)).toHaveText(expected.zone.toLocaleString('en-US'));
});
