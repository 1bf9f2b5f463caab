/**
 * Runs a benchmark in headless Chromium: builds nothing itself (run `npm run build` first, or let
 * the recall CLI do it), serves dist/ with Vite's preview server on 127.0.0.1 and opens bench.html
 * with Playwright. Uses Debian's Chromium when present (same rule as the browser tests). Progress
 * lines the page reports (window.recollectBenchProgress) go to `onProgress`.
 */
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { preview } from 'vite';
import { existsSync } from 'node:fs';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/browser';
import { browserPidForProfile, describeSlowdown, startCpuSlowdown } from './cpuSlowdown';

export interface BenchBrowser {
  readonly page: Page;
  /** The slowdown `slowed` applies (BenchPageOptions.slowdown), null without one. */
  readonly slowdown: { readonly factor: number; readonly covers: string } | null;
  /** Runs `work` with the page and its workers slowed (a no-op wrapper without a slowdown). */
  slowed<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface BenchPageOptions {
  readonly onProgress?: (line: string) => void;
  /** A browser profile folder to use and keep (its OPFS holds a prepared database); default: a fresh temporary one. */
  readonly profileDir?: string;
  /** The build to serve (default: dist/), e.g. a copy of an earlier build for a before/after comparison. */
  readonly distDir?: string;
  /**
   * The preview server's port. OPFS belongs to an origin, port included: a kept profile's database
   * is found again only on the same port (default with `profileDir`: KEPT_PROFILE_PORT; else any free port).
   */
  readonly port?: number;
  /**
   * CPU slowdown factor for `slowed` work (a phone: 4): the renderer processes, which run the page
   * and every worker, are duty-cycled (bench/cpuSlowdown.ts). Page loads and growth outside
   * `slowed` run at full speed.
   */
  readonly slowdown?: number;
}

export const KEPT_PROFILE_PORT = 4179;

export async function openBenchPage(options: BenchPageOptions = {}): Promise<BenchBrowser> {
  const distDir = options.distDir ?? 'dist';
  if (!existsSync(join(distDir, 'bench.html'))) throw new Error(`${distDir}/bench.html is missing: run \`npm run build\` first.`);
  const port = options.port ?? (options.profileDir !== undefined ? KEPT_PROFILE_PORT : 0);
  const server = await preview({ preview: { host: '127.0.0.1', port, strictPort: port !== 0 }, build: { outDir: distDir }, logLevel: 'error' });
  const address = server.resolvedUrls?.local[0];
  if (!address) throw new Error('The preview server did not report its URL.');
  const executablePath = chromiumExecutable();
  // A persistent profile (a fresh temporary one): Playwright's default browser contexts are
  // incognito-like, where OPFS lives in memory in the browser process and every sync-access-handle
  // call is an IPC round trip (≈1 ms per 4 KiB write here), which no real profile pays.
  const keepProfile = options.profileDir !== undefined;
  const profile = options.profileDir ?? (await mkdtemp(join(tmpdir(), 'recollect-bench-profile-')));
  if (keepProfile) await mkdir(profile, { recursive: true });
  const context: BrowserContext = await chromium.launchPersistentContext(profile, { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => process.stderr.write(`[page error] ${e.message}\n`));
  const onProgress = options.onProgress;
  if (onProgress) await page.exposeFunction('recollectBenchProgress', (line: string) => onProgress(line));
  await page.goto(new URL('bench.html', address).href);
  await page.waitForFunction(() => document.getElementById('status')?.dataset.ready === 'true');
  const factor = options.slowdown ?? 1;
  const browserPid = factor > 1 ? browserPidForProfile(profile) : null;
  return {
    page,
    slowdown: browserPid ? { factor, covers: describeSlowdown(factor) } : null,
    async slowed(work) {
      if (!browserPid) return work();
      const cycle = startCpuSlowdown(browserPid, factor);
      try {
        return await work();
      } finally {
        await cycle.stop();
      }
    },
    async close() {
      await context.close();
      await server.close();
      if (!keepProfile) await rm(profile, { recursive: true, force: true });
    },
  };
}
