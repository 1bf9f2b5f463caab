/**
 * Sync in the running app (docs/sync.md): a relay on 127.0.0.1 started by this test, two browser
 * contexts with separate storage (two devices). A turns sync on in Settings → Sync and gets the
 * phrase once; B joins with it. A's turn is found by B's search, A's deletion reaches B, B's turn
 * reaches A, the status line says sync's state, leaving keeps B's memory, and the relay's files
 * never hold the words (ciphertext only). Also: the relay client works inside the engine worker
 * (it once failed there on Node's process.nextTick; vite.config.ts browserFastq).
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DurableStreamTestServer } from '@durable-streams/server';
import { messageBox, sendMessage } from './appSteps';
import { confirmIn } from './modal';
import { closeSettings, expectFound, openSync } from './syncSteps';
import { filesUnder, stopRelay } from '../test/support/relayServer';

let relay: DurableStreamTestServer;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'recollect-e2e-relay-'));
  relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir, longPollTimeout: 2_000 });
  await relay.start();
});
test.afterAll(async () => {
  await stopRelay(relay);
  await rm(dataDir, { recursive: true, force: true });
});

const marker = () => `zq${randomUUID().replaceAll('-', '').slice(0, 12)}`;

async function device(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible({ timeout: 30_000 });
  return page;
}

test('two devices pair by phrase and share turns and deletions; the relay holds only ciphertext', async ({ browser }) => {
  test.setTimeout(180_000);
  const a = await device(browser);
  const b = await device(browser);

  // A: sync this memory → the phrase, once, with copy and QR.
  const syncA = await openSync(a);
  await expect(syncA).toContainText('Off.');
  await syncA.getByLabel('Relay address').fill(relay.url);
  await syncA.getByRole('button', { name: 'Sync this memory' }).click();
  const shown = syncA.getByTestId('recovery-phrase');
  await expect(shown).toBeVisible({ timeout: 30_000 });
  await expect(shown.getByRole('img', { name: 'QR code of the recovery phrase' })).toBeVisible();
  const words = await shown.locator('ol li').allTextContents();
  expect(words).toHaveLength(12);
  const axe = await new AxeBuilder({ page: a }).include('[data-testid="sync-section"]').analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
  await shown.getByRole('button', { name: 'I have written it down' }).click();
  await expect(shown).toBeHidden();
  await expect(syncA.getByTestId('sync-state')).toContainText('synced', { timeout: 30_000 });
  await closeSettings(a);
  await expect(a.getByTestId('sync-indicator')).toContainText('Sync: synced');

  // A writes a turn (no endpoint needed: turns are stored).
  const fromA = marker();
  await a.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(a, `The greenhouse humidity probe is labelled ${fromA} on the board.`);

  // B: a wrong phrase is refused with its reason; A's phrase joins.
  const syncB = await openSync(b);
  await syncB.getByLabel('Relay address').fill(relay.url);
  await syncB.getByLabel(/recovery phrase/).fill(words.slice(0, 11).join(' '));
  await syncB.getByRole('button', { name: 'Join with a phrase' }).click();
  await expect(syncB.getByRole('alert')).toContainText('12 words');
  await syncB.getByLabel(/recovery phrase/).fill(words.join(' '));
  await syncB.getByRole('button', { name: 'Join with a phrase' }).click();
  await expect(syncB.getByTestId('sync-state')).toBeVisible({ timeout: 30_000 });
  await closeSettings(b);
  await expectFound(b, fromA, true);

  // B → A.
  const fromB = marker();
  await b.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(b, `Order two spare probes, code ${fromB}, before the frost.`);
  await expectFound(a, fromB, true);

  // A deletes its turn → gone from B's search too.
  await a.getByRole('searchbox', { name: 'Search memory' }).fill('');
  const conversationA = a.getByRole('navigation', { name: 'Conversations' }).locator('button.conversation').first();
  await conversationA.click();
  const message = a.getByTestId('message').filter({ hasText: fromA });
  if ((await message.count()) === 0) {
    // The newest conversation may be B's: open the one holding A's turn.
    await a.getByRole('navigation', { name: 'Conversations' }).locator('button.conversation').nth(1).click();
  }
  await a.getByTestId('message').filter({ hasText: fromA }).getByRole('button', { name: 'Delete message' }).click();
  await confirmIn(a, 'Delete message', 'Delete message');
  await expectFound(b, fromA, false);

  // B leaves: its memory stays.
  const leaveB = await openSync(b);
  await leaveB.getByRole('button', { name: 'Leave sync…' }).click();
  await confirmIn(b, 'Leave sync', 'Leave sync');
  await expect(leaveB).toContainText('Off.', { timeout: 30_000 });
  await closeSettings(b);
  await expectFound(b, fromB, true);
  await expect(b.getByTestId('sync-indicator')).toHaveCount(0);
  await expect(messageBox(b)).toBeVisible();

  // The relay's files hold no plaintext: neither marker, nor the turn's other words.
  const files = await filesUnder(dataDir);
  expect(files.length).toBeGreaterThan(0);
  for (const needle of [fromA, fromB, 'greenhouse humidity']) expect(files.some((f) => f.includes(Buffer.from(needle)))).toBe(false);
});
