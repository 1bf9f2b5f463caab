/**
 * WebKit smoke run (npm run test:webkit, under xvfb-run): the built app in WebKitGTK, Safari's
 * engine, over WebDriver (webkitDriver.ts). WebKitGTK 2.50 cannot keep a memory — its OPFS gives
 * no synchronous access handles to a worker (docs/browsers.md) — so what is checked is what a person
 * meets there: no console error on load, the screen says why no memory can be kept and offers the
 * temporary session, which stores a turn and finds it by its words and by meaning (module workers,
 * SQLite's WASM, the bundled embedder), and the service worker serves the app with the server gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_SYNC_ACCESS_MESSAGE } from '../../src/storage/storageUnavailable';
import { startWebKit, webkitAvailable, type WebKitSession } from './webkitDriver';

const MESSAGE_BOX = 'textarea[aria-label="Message"]';
const SEARCH_BOX = 'input[aria-label="Search memory"]';
const ENTER = '\uE007';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!webkitAvailable())('WebKitGTK', () => {
  let wk: WebKitSession;
  beforeAll(async () => {
    wk = await startWebKit();
  });
  afterAll(async () => wk?.close());

  it('loads without console errors, says why it cannot keep a memory, and the temporary session stores and finds', async () => {
    await wk.go(wk.baseUrl);
    const screen = await wk.until<string>(
      `return document.querySelector('[data-testid="storage-unavailable"]') ? 'unavailable' : document.querySelector('[data-testid="status"]') ? 'memory'
        : document.querySelector('.overlay[role="alert"]') ? 'failed: ' + document.querySelector('.overlay[role="alert"]').innerText : ''`,
      'the memory to open or the storage notice',
    );
    // Give late load-time errors (CSP reports, worker start-up) a moment to arrive.
    await sleep(1_000);
    expect(wk.consoleErrors, 'console errors on load').toEqual([]);
    expect(screen, 'WebKitGTK now opens the memory on OPFS: make this run check the memory itself, and update docs/browsers.md').toBe(
      'unavailable',
    );
    expect(await wk.execute<string>(`return document.querySelector('[data-testid="storage-unavailable"]').innerText`)).toContain(
      NO_SYNC_ACCESS_MESSAGE,
    );

    await wk.clickButton('Use a temporary session');
    await wk.until(
      `return document.querySelector('[data-testid="temporary-session"]')?.innerText.includes('Temporary session — nothing is kept after this window closes')`,
      'the temporary-session banner',
    );
    await wk.clickButton('+ New conversation');
    await wk.type(MESSAGE_BOX, `The spare key is under the blue flowerpot.${ENTER}`);
    await wk.until(`return document.querySelector('[data-testid="message-count"]')?.textContent === '1'`, 'the turn to be stored');
    await wk.type(MESSAGE_BOX, `I adopted a puppy from the shelter last weekend.${ENTER}`);
    await wk.until(`return document.querySelector('[data-testid="message-count"]')?.textContent === '2'`, 'the second turn to be stored');

    await wk.type(SEARCH_BOX, 'flowerpot');
    await wk.until(
      `return [...document.querySelectorAll('[data-testid="search-hit"]')].some((h) => h.textContent.includes('spare key'))`,
      'a search hit for "flowerpot"',
    );
    // No word in common with the turn: only search by meaning finds it.
    // Emptied with WebDriver's Element Clear: WebKitGTK's key actions did not reach an already-filled field.
    await wk.clear(SEARCH_BOX);
    await wk.type(SEARCH_BOX, 'my new dog');
    await wk.until(
      `return document.querySelector('[data-testid="semantic-hit"]')?.textContent.includes('adopted a puppy')`,
      'a hit by meaning for "my new dog"',
      60_000,
    );
    expect(wk.consoleErrors, 'console errors during the run').toEqual([]);
  });

  it('the service worker serves the app when the server is gone', async () => {
    const script = await wk.executeAsync<string>(`return (await navigator.serviceWorker.ready).active.scriptURL`);
    expect(script).toMatch(/\/sw\.js$/);
    await wk.until(`return navigator.serviceWorker.controller?.state === 'activated'`, 'the service worker to control the page');
    await wk.stopServer();
    expect(await wk.executeAsync<string>(`return fetch('/bench.html', { cache: 'no-store' }).then(() => 'online', () => 'offline')`)).toBe(
      'offline',
    );
    await wk.go(wk.baseUrl);
    // The page, its scripts and the engine worker came from the precache: the engine answered.
    await wk.until(`return !!document.querySelector('[data-testid="storage-unavailable"]')`, 'the app to open offline');
  });
});
