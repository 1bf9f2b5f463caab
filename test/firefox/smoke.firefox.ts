/**
 * Firefox smoke run, part of `npm test` (npm run test:firefox): what a person does first, in
 * Firefox ESR over WebDriver BiDi (firefoxDriver.ts). First run memory-only, turns stored and found
 * (Chinese too), a streamed answer from the mock endpoint with a citation, Export and Import, the two-tab
 * hand-back five times in a row, an offline reload served by the service worker, and no console error on load. HANDBACK_RUNS=20 makes the hand-back test a loop that
 * counts its passes (npm run test:handback-firefox).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import {
  MESSAGE_BOX,
  SEARCH_BOX,
  clickButton,
  collectErrors,
  connectEndpoint,
  fill,
  firefoxAvailable,
  openApp,
  send,
  startFirefox,
  text,
  until,
  type FirefoxSession,
} from './firefoxDriver';

const HANDBACK_RUNS = Number(process.env.HANDBACK_RUNS ?? 5);
const ONLY_HANDBACK = process.env.HANDBACK_RUNS !== undefined;

describe.skipIf(!firefoxAvailable())('Firefox ESR', () => {
  let ff: FirefoxSession;
  let mock: MockLlmServer;
  beforeAll(async () => {
    ff = await startFirefox();
    mock = await startMockLlmServer({
      responder: (req) => (req.stream ? 'Your cat is called **Xiaobai** and loves fish [1].' : synthesisResponder(req)),
    });
  });
  afterAll(async () => {
    await ff?.close();
    await mock?.close();
  });

  it.skipIf(ONLY_HANDBACK)(
    'first run memory-only, search (Chinese too), a cited answer from the endpoint, Export and Import, no console error on load',
    async () => {
      const page = await ff.browser.newPage();
      try {
        await firstRun(page, ff);
      } finally {
        await page.close();
      }
    },
  );

  async function firstRun(page: Page, ff: FirefoxSession) {
    const errors = collectErrors(page);
    await openApp(page, ff.baseUrl);
    await page.waitForSelector('[data-testid="first-run"]');
    // Give late load-time errors (CSP reports, worker start-up) a moment to arrive.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(errors, 'console errors on load').toEqual([]);

    await clickButton(page, 'Continue memory-only');
    await clickButton(page, '+ New conversation');
    await page.waitForSelector(MESSAGE_BOX, { visible: true });
    await send(page, 'I adopted a white cat named Xiaobai who loves fish.', 1);
    await send(page, '我的猫叫小白，它最喜欢吃鱼。', 2);

    await fill(page, SEARCH_BOX, 'Xiaobai');
    await until(page, () => (document.querySelector('[data-testid="search-hit"] mark')?.textContent ?? '') === 'Xiaobai', null);
    await fill(page, SEARCH_BOX, '小白');
    await until(page, () => (document.querySelector('[data-testid="search-hit"]')?.textContent ?? '').includes('我的猫叫小白'), null);
    expect(await text(page, '[data-testid="search-hit"] mark')).toBe('小白');
    await fill(page, SEARCH_BOX, '');

    await connectEndpoint(page, mock.url);
    // Asked in a new conversation: turns of the asking one's recent history go to the model as
    // history and are not recalled (or cited) again, so the cited turn is the other conversation's.
    await clickButton(page, '+ New conversation');
    await send(page, 'What is my cat called?', 3);
    await until(
      page,
      () => {
        const messages = document.querySelectorAll('[data-testid="message"]');
        return messages.length === 2 && !document.querySelector('[data-testid="streaming-answer"]');
      },
      null,
      60_000,
    );
    const answer = '[data-testid="message"]:last-of-type';
    await until(page, (s) => (document.querySelector(s)?.textContent ?? '').includes('Your cat is called Xiaobai'), answer);
    // Rendered Markdown: the name is bold, not wrapped in asterisks.
    expect(await page.$eval(answer, (el) => [...el.querySelectorAll('strong')].map((s) => s.textContent))).toContain('Xiaobai');
    expect(await text(page, `${answer} [data-testid="citations"]`)).toContain('[1]');
    await page.click(`${answer} button[aria-label="Source 1"]`);
    await until(page, () => (document.querySelector('.message.highlight')?.textContent ?? '').includes('named Xiaobai'), null);

    // Export is in the top bar's More menu.
    await clickButton(page, 'More', 'header');
    await clickButton(page, 'Export', 'header [role="menu"]');
    const file = await waitForDownload(ff.downloads, /^recollect-\d{4}-\d{2}-\d{2}\.sqlite$/);
    const bytes = await readFile(file);
    expect(bytes.subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    expect(bytes.includes(Buffer.from('我的猫叫小白'))).toBe(true);

    // Import… → Replace memory with that export: the same four turns come back.
    const input = await page.$('input[aria-label="Import database file"]');
    await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(file);
    await clickButton(page, 'Replace memory');
    await until(page, () => (document.body.textContent ?? '').includes('Imported 4 messages'), null);
    expect(await text(page, '[data-testid="message-count"]')).toBe('4');
    expect(errors, 'console errors during the run').toEqual([]);
  }

  it.skipIf(ONLY_HANDBACK)('after one visit the app and its memory open offline (service worker)', async () => {
    const page = await ff.browser.newPage();
    try {
      const errors = collectErrors(page);
      await openApp(page, ff.baseUrl);
      await clickButton(page, '+ New conversation');
      await page.waitForSelector(MESSAGE_BOX, { visible: true });
      const before = Number(await text(page, '[data-testid="message-count"]'));
      await send(page, 'My sister Priya moved to Lisbon in March.', before + 1);
      await until(page, () => navigator.serviceWorker.controller?.state === 'activated', null, 60_000);

      // Firefox's offline mode for this tab, over BiDi (emulation.setNetworkConditions); Firefox ESR
      // 140 does not have that command, so there every request that reaches the network is failed
      // (BiDi network interception): what the service worker serves from its cache still loads.
      const goOffline = await offlineSwitch(page);
      await goOffline(true);
      try {
        // Really offline: a file the service worker does not precache cannot be fetched.
        expect(
          await page.evaluate(() =>
            fetch('/bench.html', { cache: 'no-store' }).then(
              () => 'online',
              () => 'offline',
            ),
          ),
        ).toBe('offline');
        await page.reload();
        await page.waitForSelector('[data-testid="status"]', { timeout: 30_000 });
        expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
        await until(page, (n) => document.querySelector('[data-testid="message-count"]')?.textContent === String(n), before + 1);
        await fill(page, SEARCH_BOX, 'Lisbon');
        await until(
          page,
          () => (document.querySelector('[data-testid="search-hit"]')?.textContent ?? '').includes('Priya moved to Lisbon'),
          null,
        );
        await fill(page, SEARCH_BOX, '');
        // Still writes offline: the engine worker and SQLite's WASM came from the precache.
        await clickButton(page, '+ New conversation');
        await page.waitForSelector(MESSAGE_BOX, { visible: true });
        await send(page, 'Written while offline.', before + 2);
      } finally {
        await goOffline(false);
      }
      expect(errors, 'console errors during the offline run').toEqual([]);
    } finally {
      await page.close();
    }
  });

  it(
    `the memory goes back to the waiting tab when the owning tab closes (${HANDBACK_RUNS}×)`,
    async () => {
      const first = await ff.browser.newPage();
      await openApp(first, ff.baseUrl);
      const failures: string[] = [];
      let holder = first;
      for (let run = 1; run <= HANDBACK_RUNS; run++) {
        try {
          await handBack(holder, ff.baseUrl, run).then((next) => (holder = next));
        } catch (err) {
          failures.push(`run ${run}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
          // Start the next run from a fresh tab that owns the memory.
          await Promise.all((await ff.browser.pages()).map((p) => p.close().catch(() => undefined)));
          holder = await ff.browser.newPage();
          await openApp(holder, ff.baseUrl);
        }
      }
      console.info(
        `Firefox hand-back: ${HANDBACK_RUNS - failures.length} of ${HANDBACK_RUNS} passed${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`,
      );
      expect(failures).toEqual([]);
      await holder.close();
    },
    60_000 + HANDBACK_RUNS * 30_000,
  );
});

describe.skipIf(ONLY_HANDBACK || !firefoxAvailable())('Firefox ESR, private windows', () => {
  let ff: FirefoxSession;
  beforeAll(async () => {
    ff = await startFirefox({ privateWindows: true });
  });
  afterAll(async () => ff?.close());

  it('say that they cannot keep a memory and offer a temporary session that stores, finds and exports', async () => {
    const page = await ff.browser.newPage();
    await page.goto(ff.baseUrl);
    await page.waitForSelector('[data-testid="storage-unavailable"]', { timeout: 30_000 });
    expect(await text(page, '[data-testid="storage-unavailable"]')).toContain(
      'Private windows in Firefox cannot keep a memory; open Recollect in a normal window',
    );
    await clickButton(page, 'Use a temporary session');
    await page.waitForSelector('[data-testid="temporary-session"]');
    expect(await text(page, '[data-testid="temporary-session"]')).toContain('Temporary session — nothing is kept after this window closes');
    await clickButton(page, '+ New conversation');
    await page.waitForSelector(MESSAGE_BOX, { visible: true });
    await send(page, 'The spare key is under the blue flowerpot.', 1);
    await fill(page, SEARCH_BOX, 'flowerpot');
    await until(page, () => (document.querySelector('[data-testid="search-hit"]')?.textContent ?? '').includes('spare key'), null);
    await fill(page, SEARCH_BOX, '');
    await clickButton(page, 'Export', '[data-testid="temporary-session"]');
    const bytes = await readFile(await waitForDownload(ff.downloads, /^recollect-\d{4}-\d{2}-\d{2}\.sqlite$/));
    expect(bytes.includes(Buffer.from('The spare key is under the blue flowerpot.'))).toBe(true);
    await page.close();
  });
});

/**
 * One hand-back: `owner` holds the memory; a second tab opens and waits ("open in another tab"),
 * takes over, writes, and is closed; the first tab must get the memory back and see the turn.
 * Returns the tab that holds the memory afterwards.
 */
async function handBack(owner: Page, baseUrl: string, run: number): Promise<Page> {
  await until(
    owner,
    () => !document.querySelector('[data-testid="open-elsewhere"]') && !!document.querySelector('[data-testid="status"]'),
    null,
  );
  const before = Number(await text(owner, '[data-testid="message-count"]'));
  const second = await owner.browser().newPage();
  await second.goto(baseUrl);
  await second.waitForSelector('[data-testid="open-elsewhere"]', { timeout: 30_000 });
  await clickButton(second, 'Use Recollect here');
  await until(second, () => !document.querySelector('[data-testid="open-elsewhere"]') && !document.querySelector('.overlay'), null);
  await owner.waitForSelector('[data-testid="open-elsewhere"]', { timeout: 30_000 });
  await clickButton(second, '+ New conversation');
  await second.waitForSelector(MESSAGE_BOX, { visible: true });
  await send(second, `Hand-back run ${run}.`, before + 1);
  await second.close();
  // The waiting tab takes over by itself, with the turn the closed tab wrote.
  await until(
    owner,
    (n) =>
      !document.querySelector('[data-testid="open-elsewhere"]') &&
      !document.querySelector('.overlay') &&
      document.querySelector('[data-testid="message-count"]')?.textContent === String(n),
    before + 1,
    20_000,
  ).catch(async (err: unknown) => {
    const overlay = await text(owner, '.overlay');
    throw new Error(overlay ? `the remaining tab shows: ${overlay}` : String(err));
  });
  return owner;
}

async function waitForDownload(dir: string, name: RegExp, timeout = 15_000): Promise<string> {
  const start = Date.now();
  while (Date.now() - start < timeout) {
    // Firefox creates the target name empty at once and writes into `<name>.part` until the
    // download completes: the file is done once the .part is gone and it has bytes.
    const files = await readdir(dir);
    const done = files.find((f) => name.test(f));
    if (done && !files.includes(`${done}.part`) && (await stat(join(dir, done))).size > 0) return join(dir, done);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no download matching ${name} in ${dir}: ${(await readdir(dir)).join(', ')}`);
}

/** A switch that takes `page` offline and back: the browser's offline mode where it has one, else failing every network request. */
async function offlineSwitch(page: Page): Promise<(offline: boolean) => Promise<void>> {
  try {
    await page.setOfflineMode(false);
    return (offline) => page.setOfflineMode(offline);
  } catch {
    const fail = (request: HTTPRequest) => void request.abort().catch(() => undefined);
    return async (offline) => {
      if (offline) {
        await page.setRequestInterception(true);
        page.on('request', fail);
      } else {
        page.off('request', fail);
        await page.setRequestInterception(false);
      }
    };
  }
}
