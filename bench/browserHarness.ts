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
import { setTreePriority } from './cpuSlowdownCycle';

/** One slowed stretch of work: the slowdown a fixed loop in the page measured just before and after it. */
export interface SlowdownCalibration {
  readonly label: string;
  /** The loop at full speed, ms. */
  readonly loopMs: number;
  readonly before: number;
  readonly after: number;
  /** Share of the stretch the renderers were stopped (1 − 1/factor when the cycle kept its ratio). */
  readonly stoppedShare: number;
}

export interface BenchSlowdown {
  readonly factor: number;
  readonly covers: string;
  /** Every `slowed` call's calibration, in order (JSON reports keep them). */
  readonly calibrations: SlowdownCalibration[];
  /** The nice value measured stretches ran at (BenchPageOptions.nice); absent = the default 0. */
  readonly nice?: number;
}

export interface BenchBrowser {
  readonly page: Page;
  /** The slowdown `slowed` applies (BenchPageOptions.slowdown), null without one. */
  readonly slowdown: BenchSlowdown | null;
  /** Runs `work` with the page and its workers slowed (a no-op wrapper without a slowdown). */
  slowed<T>(work: () => Promise<T>, label?: string): Promise<T>;
  /** Runs `work` at full speed, with the same scheduling priority as `slowed` (BenchPageOptions.nice). */
  fullSpeed<T>(work: () => Promise<T>): Promise<T>;
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
  /**
   * Nice value (−20…19) for the browser's threads while `slowed` or `fullSpeed` work runs, back to
   * 0 after: on a machine loaded by other work, −10 keeps the measured processes from waiting
   * behind it, so both speeds are measured as on a quiet machine. Needs root for values below 0.
   */
  readonly nice?: number;
}

export const KEPT_PROFILE_PORT = 4179;

/** Median of 5 runs of a fixed integer loop in the page's main thread, ms. */
async function fixedLoopMs(page: Page): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    runs.push(
      await page.evaluate(() => {
        const t = performance.now();
        let x = 0;
        for (let k = 0; k < 2e7; k++) x = (x + k * 7) % 1000003;
        return performance.now() - t + x * 0;
      }),
    );
  }
  return runs.sort((a, b) => a - b)[2]!;
}

export async function openBenchPage(options: BenchPageOptions = {}): Promise<BenchBrowser> {
  const distDir = options.distDir ?? 'dist';
  if (!existsSync(join(distDir, 'bench.html'))) throw new Error(`${distDir}/bench.html is missing: run \`npm run build\` first.`);
  const port = options.port ?? (options.profileDir !== undefined ? KEPT_PROFILE_PORT : 0);
  const server = await preview({
    preview: { host: '127.0.0.1', port, strictPort: port !== 0 },
    build: { outDir: distDir },
    logLevel: 'error',
  });
  const address = server.resolvedUrls?.local[0];
  if (!address) throw new Error('The preview server did not report its URL.');
  const executablePath = chromiumExecutable();
  // A persistent profile (a fresh temporary one): Playwright's default browser contexts are
  // incognito-like, where OPFS lives in memory in the browser process and every sync-access-handle
  // call is an IPC round trip (≈1 ms per 4 KiB write here), which no real profile pays.
  const keepProfile = options.profileDir !== undefined;
  const profile = options.profileDir ?? (await mkdtemp(join(tmpdir(), 'recollect-bench-profile-')));
  if (keepProfile) await mkdir(profile, { recursive: true });
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    ...(executablePath ? { executablePath } : {}),
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => process.stderr.write(`[page error] ${e.message}\n`));
  const onProgress = options.onProgress;
  if (onProgress) await page.exposeFunction('recollectBenchProgress', (line: string) => onProgress(line));
  await page.goto(new URL('bench.html', address).href);
  await page.waitForFunction(() => document.getElementById('status')?.dataset.ready === 'true');
  const factor = options.slowdown ?? 1;
  const browserPid = factor > 1 || options.nice !== undefined ? browserPidForProfile(profile) : null;
  const slowdown: BenchSlowdown | null =
    browserPid && factor > 1
      ? { factor, covers: describeSlowdown(factor), calibrations: [], ...(options.nice !== undefined ? { nice: options.nice } : {}) }
      : null;
  const prioritised = async <T>(work: () => Promise<T>): Promise<T> => {
    if (options.nice === undefined || !browserPid) return work();
    if (setTreePriority(browserPid, options.nice) === 0)
      throw new Error(`Could not set nice ${options.nice} on the browser's threads (lowering a nice value needs root).`);
    try {
      return await work();
    } finally {
      setTreePriority(browserPid, 0);
    }
  };
  return {
    page,
    slowdown,
    fullSpeed: (work) => prioritised(work),
    slowed: (work, label = 'work') =>
      prioritised(async () => {
        if (!browserPid || !slowdown) return work();
        // A fixed loop in the page (the same renderer process as the workers), at full speed and then
        // slowed, before and after the work: what the cycle really gave on this machine's load. It is
        // reported, not corrected for (a longer stop to make the loop F× slower over-slows work that
        // waits on other processes, such as a cold open: tried, 18× on one).
        const base = await fixedLoopMs(page);
        const cycle = startCpuSlowdown(browserPid, factor);
        const before = (await fixedLoopMs(page)) / base;
        try {
          return await work();
        } finally {
          let after = Number.NaN;
          try {
            after = (await fixedLoopMs(page)) / base;
          } catch {
            // the page is navigating (a cold open left it mid-load): no after-figure
          }
          const run = await cycle.stop();
          const c = {
            label,
            loopMs: base,
            before,
            after,
            stoppedShare: run ? run.stoppedMs / Math.max(1, run.runningMs + run.stoppedMs) : Number.NaN,
          };
          slowdown.calibrations.push(c);
          options.onProgress?.(
            `slowdown (${label}): a fixed loop ran ${before.toFixed(1)}× slower before, ${after.toFixed(1)}× after (${base.toFixed(0)} ms at full speed); renderers stopped ${(100 * c.stoppedShare).toFixed(0)}% of the time`,
          );
        }
      }),
    async close() {
      await context.close();
      await server.close();
      if (!keepProfile) await rm(profile, { recursive: true, force: true });
    },
  };
}
