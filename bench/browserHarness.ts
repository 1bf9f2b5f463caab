/**
 * Runs a benchmark in headless Chromium: builds nothing itself (run `npm run build` first),
 * serves dist/ with Vite's preview server on 127.0.0.1 and opens bench.html with Playwright.
 * Uses Debian's Chromium when present (same rule as the browser tests).
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { preview } from 'vite';
import { existsSync } from 'node:fs';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/browser';

export interface BenchBrowser {
  readonly page: Page;
  close(): Promise<void>;
}

export async function openBenchPage(): Promise<BenchBrowser> {
  if (!existsSync('dist/bench.html')) throw new Error('dist/bench.html is missing: run `npm run build` first.');
  const server = await preview({ preview: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'error' });
  const address = server.resolvedUrls?.local[0];
  if (!address) throw new Error('The preview server did not report its URL.');
  const executablePath = chromiumExecutable();
  const browser: Browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  page.on('pageerror', (e) => process.stderr.write(`[page error] ${e.message}\n`));
  await page.goto(new URL('bench.html', address).href);
  await page.waitForFunction(() => document.getElementById('status')?.dataset.ready === 'true');
  return {
    page,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
