/**
 * Drives Debian's Firefox ESR headless over WebDriver BiDi with puppeteer-core, against the built
 * app served by `vite preview` (the same server and CSP the Playwright specs use). Playwright's
 * stock-Firefox channel does not work with ESR 153 (context creation sends an emulation command it
 * lacks), so Firefox gets its own small driver; the steps are the Playwright specs' steps.
 *
 * Helpers find things the way a person does — a button by its text, a field by its label — with
 * CSS and in-page checks only: the ARIA query handler needs CDP's accessibility tree.
 */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { preview, type PreviewServer } from 'vite';

export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/**
 * Whether the Firefox run can happen here. Missing Firefox is a failure under CI (the CI script
 * installs it) and a loud skip elsewhere.
 */
let warned = false;
export function firefoxAvailable(): boolean {
  if (existsSync(FIREFOX)) return true;
  const message = `Firefox smoke run: ${FIREFOX} is not installed. Install it with \`apt-get install -y firefox-esr\` (or set FIREFOX_PATH).`;
  if (process.env.CI && process.env.CI !== 'false') throw new Error(`${message} Under CI this is a failure.`);
  if (!warned) console.warn(`\n${'!'.repeat(100)}\n!! SKIPPED — ${message}\n${'!'.repeat(100)}\n`);
  warned = true;
  return false;
}

export interface FirefoxSession {
  readonly browser: Browser;
  readonly baseUrl: string;
  readonly downloads: string;
  close(): Promise<void>;
}

/**
 * Serves dist/ (built by `npm run build`) and launches Firefox with downloads going to a temp
 * folder. `privateWindows`: every window is private (Firefox's own autostart pref), as a person's
 * private window is — OPFS is refused there.
 */
export async function startFirefox(options: { readonly privateWindows?: boolean } = {}): Promise<FirefoxSession> {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npm run build` first (npm test builds it in test:e2e).');
  const server: PreviewServer = await preview({ logLevel: 'warn', preview: { host: '127.0.0.1', port: 0, strictPort: false } });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('vite preview did not listen on a port');
  const downloads = await mkdtemp(join(tmpdir(), 'recollect-ff-downloads-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    protocol: 'webDriverBiDi',
    headless: true,
    extraPrefsFirefox: {
      'browser.download.dir': downloads,
      'browser.download.folderList': 2,
      'browser.download.useDownloadDir': true,
      'browser.download.always_ask_before_handling_new_types': false,
      'browser.download.start_downloads_in_tmp_dir': false,
      ...(options.privateWindows ? { 'browser.privatebrowsing.autostart': true } : {}),
    },
  });
  return {
    browser,
    baseUrl: `http://127.0.0.1:${address.port}/`,
    downloads,
    async close() {
      await browser.close().catch(() => undefined);
      await server.close();
    },
  };
}

/** Console errors and uncaught page errors of `page`, from now on. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e instanceof Error ? e.message : String(e)}`));
  return errors;
}

/**
 * Waits until `predicate(arg)` is true in the page, polling from here every 100 ms. Not puppeteer's
 * waitForFunction: its in-page poller builds the predicate with Function(), which the app's CSP
 * (no 'unsafe-eval') blocks in Firefox ESR 140 ("call to Function() blocked by CSP"); page.evaluate
 * goes through WebDriver BiDi's callFunction, which the page's CSP does not govern.
 */
export async function until<A>(page: Page, predicate: (arg: A) => boolean, arg: A, timeout = 30_000): Promise<void> {
  const end = Date.now() + timeout;
  for (;;) {
    if (await page.evaluate(predicate as (arg: unknown) => boolean, arg).catch(() => false)) return;
    if (Date.now() > end) throw new Error(`Waited ${timeout / 1000} s in vain for: ${predicate.toString().slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? '').catch(() => '');

/** Clicks the enabled button (within `scope`, a CSS selector) whose visible text is `label`, once it shows. */
export async function clickButton(page: Page, label: string, scope = 'body'): Promise<void> {
  await until(
    page,
    ([s, l]) =>
      [...document.querySelectorAll(`${s} button`)].some(
        (b) => b.textContent?.trim() === l && !(b as HTMLButtonElement).disabled && (b as HTMLElement).offsetParent !== null,
      ),
    [scope, label] as const,
  );
  const button = await page.evaluateHandle(
    ([s, l]) =>
      [...document.querySelectorAll(`${s} button`)].find((b) => b.textContent?.trim() === l && (b as HTMLElement).offsetParent !== null)!,
    [scope, label] as const,
  );
  await (button as unknown as { click(): Promise<void> }).click();
}

/** Replaces the value of the field at `selector` by typing, as a person does (React hears every key). */
export async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.waitForSelector(selector, { visible: true });
  await page.click(selector, { count: 3 });
  await page.$eval(selector, (el) => (el as HTMLInputElement).select());
  await page.keyboard.press('Backspace');
  await page.type(selector, value);
  await until(page, ([s, v]) => (document.querySelector(s) as HTMLInputElement | null)?.value === v, [selector, value] as const, 10_000);
}

export const MESSAGE_BOX = 'textarea[aria-label="Message"]';
export const SEARCH_BOX = 'input[aria-label="Search memory"]';

/** Sends `message` from the message box and waits until the status line counts `count` messages. */
export async function send(page: Page, message: string, count: number): Promise<void> {
  await fill(page, MESSAGE_BOX, message);
  await page.keyboard.press('Enter');
  await until(page, (n) => document.querySelector('[data-testid="message-count"]')?.textContent === String(n), count);
}

/** Settings → the endpoint at `url` with model "mock-model", saved and in use. */
export async function connectEndpoint(page: Page, url: string): Promise<void> {
  await clickButton(page, 'Settings', 'header');
  await fill(page, '#llm-base-url', url);
  await fill(page, '#llm-model', 'mock-model');
  await clickButton(page, 'Save', 'dialog');
  await until(page, () => (document.querySelector('[data-testid="endpoint-state"]')?.textContent ?? '').includes('In use'), null);
  await page.click('button[aria-label="Close settings"]');
}

/** Opens the app in `page` and waits for the memory to be open (the status line shows). */
export async function openApp(page: Page, baseUrl: string): Promise<void> {
  await page.goto(baseUrl);
  await page.waitForSelector('[data-testid="status"]', { timeout: 30_000 }).catch(async (err: unknown) => {
    const shown = await page.evaluate(
      () => document.querySelector('.overlay')?.textContent ?? document.body.textContent?.slice(0, 300) ?? '',
    );
    throw new Error(`the memory did not open: the page shows "${shown}"`, { cause: err });
  });
}
