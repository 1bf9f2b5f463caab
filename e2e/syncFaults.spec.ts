/**
 * Sync's faults in the running app (docs/sync.md, "Conflicts and faults"): two or three browser
 * contexts with separate storage (devices) and a relay on 127.0.0.1 that this test stops, restarts
 * and wipes.
 *
 * - Both devices cut off (the relay down): the same chat renamed on both, the same message edited
 *   on both, a turn deleted on A, new turns on each. Back online, the two memories are identical
 *   (the same fingerprint, a hash over everything each holds), the later rename and the later edit
 *   win on both (the earlier edit stays a version on its device), the deletion holds, nothing is lost.
 * - The relay wiped and restarted: the devices fill it again, so a third device joining later gets
 *   the whole memory. It then reads every event twice (both devices uploaded all of it): a
 *   duplicated delivery, which must double nothing.
 * - B's clock 10 minutes ahead: the order stays the same on both devices ("later" is the engine's
 *   clock, so B's earlier rename wins), and A's Settings say that another device's clock is ahead.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DurableStreamTestServer } from '@durable-streams/server';
import { conversationRow, sendMessage } from './appSteps';
import { confirmIn } from './modal';
import { closeSettings, expectFound, openSync } from './syncSteps';
import { stopRelay } from '../test/support/relayServer';

/** A relay on a fixed port of 127.0.0.1, so devices find it again after a restart or a wipe. */
class Relay {
  server: DurableStreamTestServer | null = null;
  private constructor(
    readonly port: number,
    readonly dataDir: string,
  ) {}

  static async start(): Promise<Relay> {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const relay = new Relay(port, await mkdtemp(join(tmpdir(), 'recollect-e2e-faults-')));
    await relay.up();
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    this.server = new DurableStreamTestServer({ host: '127.0.0.1', port: this.port, dataDir: this.dataDir, longPollTimeout: 2_000 });
    await this.server.start();
  }

  async down(): Promise<void> {
    if (this.server) await stopRelay(this.server);
    this.server = null;
  }

  /** Down, every file gone, up again empty. */
  async wipe(): Promise<void> {
    await this.down();
    await rm(this.dataDir, { recursive: true, force: true });
    await mkdir(this.dataDir, { recursive: true });
    await this.up();
  }

  async close(): Promise<void> {
    await this.down();
    await rm(this.dataDir, { recursive: true, force: true });
  }
}

const marker = () => `zq${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const TEN_MINUTES = 10 * 60_000;

/**
 * A device: a context of its own. `aheadMs` moves the engine worker's clock forward (Date.now
 * shifted inside the worker, which the engine's clock reads on every call), as on a device whose
 * clock is set wrong.
 */
async function device(browser: Browser, aheadMs = 0): Promise<Page> {
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL, serviceWorkers: 'block' });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible({ timeout: 30_000 });
  if (aheadMs) {
    const engine = page.workers().find((w) => w.url().includes('engine.worker'));
    expect(engine, 'the engine worker is running').toBeDefined();
    await engine!.evaluate((ahead) => {
      const wall = Date.now.bind(Date);
      Date.now = () => wall() + ahead;
    }, aheadMs);
    expect(await engine!.evaluate(() => Date.now() - performance.timeOrigin - performance.now())).toBeGreaterThan(aheadMs - 5_000);
  }
  return page;
}

/** A turns sync on; returns the phrase. */
async function enable(a: Page, relay: Relay): Promise<string> {
  const sync = await openSync(a);
  await sync.getByLabel('Relay address').fill(relay.url);
  await sync.getByRole('button', { name: 'Sync this memory' }).click();
  const shown = sync.getByTestId('recovery-phrase');
  await expect(shown).toBeVisible({ timeout: 30_000 });
  const words = await shown.locator('ol li').allTextContents();
  await shown.getByRole('button', { name: 'I have written it down' }).click();
  await expect(sync.getByTestId('sync-state')).toContainText('synced', { timeout: 30_000 });
  await closeSettings(a);
  return words.join(' ');
}

async function joinWith(page: Page, relay: Relay, phrase: string): Promise<void> {
  const sync = await openSync(page);
  await sync.getByLabel('Relay address').fill(relay.url);
  await sync.getByLabel(/recovery phrase/).fill(phrase);
  await sync.getByRole('button', { name: 'Join with a phrase' }).click();
  await expect(sync.getByTestId('sync-state')).toBeVisible({ timeout: 30_000 });
  await closeSettings(page);
}

/** This device's memory fingerprint after a Sync now (Settings → Sync); '' while it cannot reach the relay. */
async function settledFingerprint(page: Page): Promise<string> {
  const sync = await openSync(page);
  await sync.getByRole('button', { name: 'Sync now' }).click();
  await expect(sync.getByRole('button', { name: 'Sync now' })).toBeEnabled({ timeout: 30_000 });
  const state = (await sync.getByTestId('sync-state').textContent()) ?? '';
  const synced = state.includes(': synced');
  const print = synced ? ((await sync.getByTestId('sync-fingerprint').textContent()) ?? '') : '';
  await closeSettings(page);
  return print;
}

/** Polls until every device is synced with the same fingerprint; returns it. */
async function sameMemory(...pages: Page[]): Promise<string> {
  let prints: string[] = [];
  await expect
    .poll(
      async () => {
        prints = [];
        for (const p of pages) prints.push(await settledFingerprint(p));
        return prints.every((p) => p !== '' && p === prints[0]);
      },
      { timeout: 90_000, intervals: [1_000, 2_000, 3_000] },
    )
    .toBe(true);
  return prints[0]!;
}

async function rename(page: Page, from: string | RegExp, to: string): Promise<void> {
  const row = conversationRow(page, from).locator('xpath=..');
  await row.hover();
  await row.getByRole('button', { name: /^Rename / }).click();
  const box = page.getByRole('textbox', { name: 'Conversation title' });
  await box.fill(to);
  await box.press('Enter');
  await expect(conversationRow(page, to)).toHaveCount(1);
}

/** Edits the first message of the open chat (a new version of it, docs/using.md). */
async function editFirstMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('message').first().getByRole('button', { name: 'Edit message' }).click();
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  await box.fill(text);
  await box.press('Enter');
  await expect(page.getByTestId('message').first()).toContainText(text.slice(0, 60));
}

async function expectIndicator(page: Page, text: string | RegExp): Promise<void> {
  await expect(page.getByTestId('sync-indicator')).toContainText(text, { timeout: 60_000 });
}

test('cut off, both devices rename, delete and write; back, they hold one memory; a wiped relay is refilled and a third device reads it once', async ({
  browser,
}) => {
  test.setTimeout(420_000);
  const relay = await Relay.start();
  try {
    const a = await device(browser);
    const b = await device(browser);
    const phrase = await enable(a, relay);
    const kept = marker();
    const doomed = marker();
    await a.getByRole('button', { name: '+ New conversation' }).click();
    await sendMessage(a, `The allotment water butt is labelled ${kept}; it fills from the shed roof.`);
    await sendMessage(a, `The old hose code ${doomed} goes to the tip on Saturday.`);
    const title = 'Allotment';
    await rename(a, /./, title);
    const shed = marker();
    await a.getByRole('button', { name: '+ New conversation' }).click();
    await sendMessage(a, `The shed padlock code is ${shed}.`);
    await rename(a, /shed padlock/, 'Shed');
    await joinWith(b, relay, phrase);
    await expectFound(b, doomed, true);
    await expectFound(b, kept, true);
    await expectFound(b, shed, true);
    await expect(conversationRow(b, title)).toHaveCount(1);

    // Cut off: the relay goes down; each device says so, and keeps working.
    await relay.down();
    await expectIndicator(a, 'relay unreachable');
    await expectIndicator(b, 'relay unreachable');
    await rename(a, title, 'Allotment (named on A)');
    await conversationRow(a, 'Allotment (named on A)').click();
    await a.getByTestId('message').filter({ hasText: doomed }).getByRole('button', { name: 'Delete message' }).click();
    await confirmIn(a, 'Delete message', 'Delete message');
    await expect(a.getByTestId('message').filter({ hasText: doomed })).toHaveCount(0);
    const fromA = marker();
    await a.getByRole('button', { name: '+ New conversation' }).click();
    await sendMessage(a, `Seed potatoes, order ${fromA}, arrive in February.`);
    await expectIndicator(a, /relay unreachable · \d+ waiting/);
    // B renames later than A: by the stated rule (the later edit by the engine's clock wins) B's name stays.
    await b.waitForTimeout(50);
    await rename(b, title, 'Allotment (named on B)');
    const fromB = marker();
    await conversationRow(b, 'Allotment (named on B)').click();
    await sendMessage(b, `The compost bin ${fromB} needs turning every fortnight.`);
    // The same message edited on both, B's edit later: B's stays on both, A's is kept as a version on A.
    const editA = marker();
    const editB = marker();
    await conversationRow(a, 'Shed').click();
    await editFirstMessage(a, `The shed padlock code changed to ${editA}.`);
    await b.waitForTimeout(50);
    await conversationRow(b, 'Shed').click();
    await editFirstMessage(b, `The shed padlock code is now ${editB}.`);

    // Back: one memory on both.
    await relay.up();
    const print = await sameMemory(a, b);
    for (const page of [a, b]) {
      await conversationRow(page, 'Shed').click();
      await expect(page.getByTestId('message')).toHaveCount(1);
      await expect(page.getByTestId('message').first()).toContainText(editB);
      await expectFound(page, editA, false);
    }
    await expect(a.getByTestId('version-switcher').first()).toContainText('Version 3 of 3');
    for (const page of [a, b]) {
      await expect(conversationRow(page, 'Allotment (named on B)')).toHaveCount(1);
      await expect(conversationRow(page, 'Allotment (named on A)')).toHaveCount(0);
      await expectFound(page, doomed, false);
      for (const text of [kept, fromA, fromB]) await expectFound(page, text, true);
    }

    // Wiped: the relay comes back empty; the devices fill it again with what they hold.
    await relay.wipe();
    expect(await sameMemory(a, b)).toBe(print);

    // A third device joins the refilled relay: the whole memory, each turn once (it read every event twice).
    const c = await device(browser);
    await joinWith(c, relay, phrase);
    expect(await sameMemory(a, c)).toBe(print);
    await expectFound(c, doomed, false);
    for (const text of [kept, fromA, fromB]) await expectFound(c, text, true);
    await expect(conversationRow(c, 'Allotment (named on B)')).toHaveCount(1);
    await conversationRow(c, 'Allotment (named on B)').click();
    await expect(c.getByTestId('message').filter({ hasText: kept })).toHaveCount(1);
    await expect(c.getByTestId('message').filter({ hasText: fromB })).toHaveCount(1);
    await expect(c.getByTestId('message')).toHaveCount(2);
  } finally {
    await relay.close();
  }
});

test("B's clock 10 minutes ahead: both devices keep one order, B's rename wins though A's came later, and A is told", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const relay = await Relay.start();
  try {
    const a = await device(browser);
    const b = await device(browser, TEN_MINUTES);
    const phrase = await enable(a, relay);
    const seeds = marker();
    await a.getByRole('button', { name: '+ New conversation' }).click();
    await sendMessage(a, `Tomato seeds ${seeds} go in the propagator in March.`);
    const title = 'Seeds';
    await rename(a, /./, title);
    await joinWith(b, relay, phrase);
    await expectFound(b, seeds, true);
    await expect(conversationRow(b, title)).toHaveCount(1);

    // Cut off, B renames first, then A (later by the wall clock, earlier by the engines' clocks).
    await relay.down();
    await expectIndicator(a, 'relay unreachable');
    await expectIndicator(b, 'relay unreachable');
    await rename(b, title, 'Seeds (named on B)');
    await a.waitForTimeout(1_000);
    await rename(a, title, 'Seeds (named on A)');
    await relay.up();

    await sameMemory(a, b);
    for (const page of [a, b]) await expect(conversationRow(page, 'Seeds (named on B)')).toHaveCount(1);
    const sync = await openSync(a);
    await expect(sync).toContainText(/Another device.s clock is 1\d minutes ahead of this one/);
    await closeSettings(a);
  } finally {
    await relay.close();
  }
});
