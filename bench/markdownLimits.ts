/**
 * How long one message can hold the page: the longest main-thread task (PerformanceObserver
 * 'longtask', Chromium reports tasks over 50 ms) while a conversation holding one Markdown fixture
 * (test/support/markdownFixtures.ts: 5,000 nested quotes, 40,000 emphasis openers, a plain
 * 100,000-character message, a long code block, a 40-column table, 200-deep lists, plus ordinary
 * answers and the slowest text still formatted) is opened, and while one key is then typed in the
 * message box (every key draws the chat again). The built app in headless Chromium, each fixture's
 * conversation opened from a fresh page load, repetitions in turn; medians and p95.
 *
 *   npm run build && npm run bench -- markdown-limits [--reps 5] [--dist dist] [--before <dist>]
 *       [--before-reps 2] [--cap 120] [--out bench/results/markdown-limits.md]
 *
 * `--before` measures another build too (the app before a change, built into its own folder),
 * in the same run; `--cap` is how long (s) one open or one key may take before it is reported as
 * cut (a build that re-parses a pathological message on every draw takes minutes).
 */
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import {
  FIXTURE_TITLE_PREFIX,
  MARKDOWN_FIXTURES,
  REFERENCE_MESSAGES,
  buildMarkdownMemory,
  type MarkdownFixtureName,
} from '../test/support/markdownFixtures';
import { median, percentile } from './stats';
import { commandArgs, intFlag } from './cliArgs';

export const MARKDOWN_LIMITS_USAGE =
  'usage: npm run bench -- markdown-limits [--reps 5] [--dist dist] [--before <dist>] [--before-reps 2] [--cap 120] [--out bench/results/markdown-limits.md]';

/** One open of one fixture's conversation, and one key typed after it. */
interface Sample {
  /** Longest task (ms) from the click on the conversation until its last message shows and the page is quiet; 0 when none passed 50 ms. */
  readonly openLongest: number;
  /** Sum of the parts of long tasks over 50 ms (total blocking time), same window. */
  readonly openBlocking: number;
  /** Click → the conversation's last message on screen (ms). */
  readonly openMs: number;
  readonly keyLongest: number;
  /** Key press → the character in the message box (ms). */
  readonly keyMs: number;
  /** How the fixture message was drawn: formatted, plain, or blank (the conversation could not be shown). */
  readonly shown: string;
  readonly cut: boolean;
}

const FIXTURES: readonly MarkdownFixtureName[] = [
  ...Object.keys(REFERENCE_MESSAGES),
  ...Object.keys(MARKDOWN_FIXTURES),
] as MarkdownFixtureName[];
const ALL_TEXTS: Record<string, string> = { ...REFERENCE_MESSAGES, ...MARKDOWN_FIXTURES };

/** Records long tasks from now on in window.__longTasks (durations, ms). */
async function watchLongTasks(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[]; __observer?: PerformanceObserver };
    w.__longTasks = [];
    w.__observer?.disconnect();
    w.__observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(e.duration);
    });
    w.__observer.observe({ type: 'longtask' });
  });
}

/** Waits until no long task has been reported for `quietMs`, then returns them all. */
async function settledLongTasks(page: Page, quietMs = 1_000, capMs = 60_000): Promise<number[]> {
  const started = Date.now();
  let seen = -1;
  let since = Date.now();
  for (;;) {
    const n = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.length);
    if (n !== seen) {
      seen = n;
      since = Date.now();
    }
    if (Date.now() - since >= quietMs || Date.now() - started > capMs) break;
    await page.waitForTimeout(100);
  }
  return page.evaluate(() => [...(window as unknown as { __longTasks: number[] }).__longTasks]);
}

const blocking = (tasks: readonly number[]): number => tasks.reduce((sum, d) => sum + Math.max(0, d - 50), 0);

/** Replaces the page's memory with `file` through Import… → Replace memory. */
async function importMemory(page: Page, file: string, turns: number, capMs: number): Promise<void> {
  await page.getByLabel('Import database file').setInputFiles(file);
  await page.getByRole('button', { name: 'Replace memory' }).click();
  await page.getByText(new RegExp(`Imported ${turns} messages`)).waitFor({ timeout: capMs });
  const question = page.getByRole('dialog', { name: 'Synthesise the restored memory?' });
  if (await question.isVisible()) await question.getByRole('button', { name: 'Close and keep synthesis off' }).click();
}

async function sample(page: Page, home: string, name: MarkdownFixtureName, capMs: number): Promise<Sample> {
  // A fresh page load on the start screen (a reload would reopen the last conversation).
  await page.goto('about:blank');
  await page.goto(home);
  await page.getByTestId('status').waitFor({ timeout: capMs });
  // The row's text is the title and the message count ("Markdown fixture: deep list 6").
  const row = page
    .getByRole('navigation', { name: 'Conversations' })
    .locator('button.conversation')
    .filter({ hasText: new RegExp(`^${FIXTURE_TITLE_PREFIX}: ${name}\\s*\\d`) });
  await row.waitFor({ timeout: capMs });
  await watchLongTasks(page);
  const t0 = Date.now();
  // The click returns once the page has handled it: a build that parses for a minute holds it that long.
  await row.click({ timeout: capMs });
  const lastMessage = page.getByTestId('message').nth(5).filter({ hasText: 'nothing else to add' });
  const blank = page.getByTestId('view-error');
  const opened = await Promise.race([
    lastMessage.waitFor({ timeout: capMs }).then(() => 'shown'),
    blank.waitFor({ timeout: capMs }).then(() => 'blank'),
  ]).catch(() => 'cut');
  const openMs = Date.now() - t0;
  const openTasks = await settledLongTasks(page, 1_000, capMs);
  const fixture = page.getByTestId('message').nth(3);
  // Builds before the limits drew every answer formatted, without data-shown.
  const shown =
    opened !== 'shown'
      ? opened
      : (await fixture.locator('[data-shown]').count()) > 0
        ? ((await fixture.locator('[data-shown]').getAttribute('data-shown')) ?? 'unknown')
        : (await fixture.locator('.markdown').count()) > 0
          ? 'formatted'
          : 'unknown';
  if (opened !== 'shown') {
    return {
      openLongest: Math.max(0, ...openTasks),
      openBlocking: blocking(openTasks),
      openMs,
      keyLongest: Number.NaN,
      keyMs: Number.NaN,
      shown,
      cut: opened === 'cut',
    };
  }
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  await box.focus();
  await watchLongTasks(page);
  const k0 = Date.now();
  await page.keyboard.press('a');
  const typed = await page
    .waitForFunction(() => document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.value === 'a', undefined, {
      timeout: capMs,
    })
    .then(
      () => true,
      () => false,
    );
  const keyMs = Date.now() - k0;
  const keyTasks = await settledLongTasks(page, 500, capMs);
  return {
    openLongest: Math.max(0, ...openTasks),
    openBlocking: blocking(openTasks),
    openMs,
    keyLongest: Math.max(0, ...keyTasks),
    keyMs,
    shown,
    cut: !typed,
  };
}

async function measureBuild(
  dist: string,
  file: string,
  turns: number,
  reps: number,
  capMs: number,
  progress: (line: string) => void,
): Promise<Map<MarkdownFixtureName, Sample[]>> {
  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { CHROMIUM_ARGS, chromiumExecutable } = await import('../e2e/browser');
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist}/ is missing: run \`npm run build\` first.`);
  const server = await preview({ preview: { host: '127.0.0.1', port: 0, strictPort: false }, build: { outDir: dist }, logLevel: 'error' });
  const profile = await mkdtemp(join(tmpdir(), 'recollect-markdown-bench-'));
  const executablePath = chromiumExecutable();
  // A persistent profile, as a person's browser has (see bench/browserHarness.ts on OPFS in incognito contexts).
  const context = await chromium.launchPersistentContext(profile, { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const samples = new Map<MarkdownFixtureName, Sample[]>(FIXTURES.map((f) => [f, []]));
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const home = new URL('#/', server.resolvedUrls!.local[0]!).href;
    await page.goto(home);
    await page.getByTestId('status').waitFor({ timeout: capMs });
    await importMemory(page, file, turns, capMs);
    // Warm-up: one open of an ordinary conversation (code caches, fonts, the first worker round trips).
    await sample(page, home, 'ordinary answers', capMs);
    for (let r = 1; r <= reps; r++) {
      for (const name of FIXTURES) {
        const s = await sample(page, home, name, capMs).catch((err: unknown): Sample => {
          progress(`${dist} ${r}/${reps} ${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
          return {
            openLongest: Number.NaN,
            openBlocking: Number.NaN,
            openMs: capMs,
            keyLongest: Number.NaN,
            keyMs: Number.NaN,
            shown: 'no answer',
            cut: true,
          };
        });
        samples.get(name)!.push(s);
        progress(
          `${dist} ${r}/${reps} ${name}: ${s.shown}, open ${s.openMs} ms (longest task ${Math.round(s.openLongest)} ms), key ${Number.isNaN(s.keyMs) ? '-' : `${s.keyMs} ms`} (longest task ${Number.isNaN(s.keyLongest) ? '-' : Math.round(s.keyLongest)} ms)${s.cut ? ', cut' : ''}`,
        );
      }
    }
  } finally {
    await context.close();
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
  return samples;
}

/** A longest task: Chromium reports none under 50 ms, so 0 means "under 50". */
function ms(x: number): string {
  if (Number.isNaN(x)) return '–';
  return x === 0 ? '< 50' : Math.round(x).toLocaleString('en');
}

const plainMs = (x: number): string => (Number.isNaN(x) ? '–' : Math.round(x).toLocaleString('en'));

function table(label: string, samples: Map<MarkdownFixtureName, Sample[]>, reps: number): string[] {
  const lines = [
    `**${label}** (${reps} repetition${reps === 1 ? '' : 's'}; ms; "< 50": no task long enough to be reported)`,
    '',
    '| fixture | size | drawn as | open: longest task, median / p95 | open: blocking time, median | open: click → last message, median | one key: longest task, median / p95 | one key: press → shown, median |',
    '|---|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const [name, xs] of samples) {
    const shown = [...new Set(xs.map((x) => (x.cut ? `${x.shown} (cut)` : x.shown)))].join(', ');
    // Nearest rank (bench/stats.ts): with 5 samples the p95 is the largest.
    const f = (get: (s: Sample) => number, q: 0.5 | 0.95) => {
      const v = xs.map(get).filter((x) => !Number.isNaN(x));
      return q === 0.5 ? median(v) : percentile(v, 95);
    };
    const cutMark = xs.some((x) => x.cut) ? '> ' : '';
    lines.push(
      `| ${name} | ${ALL_TEXTS[name]!.length.toLocaleString('en')} chars | ${shown} | ${cutMark}${ms(f((s) => s.openLongest, 0.5))} / ${cutMark}${ms(f((s) => s.openLongest, 0.95))} | ${plainMs(f((s) => s.openBlocking, 0.5))} | ${cutMark}${plainMs(f((s) => s.openMs, 0.5))} | ${ms(f((s) => s.keyLongest, 0.5))} / ${ms(f((s) => s.keyLongest, 0.95))} | ${plainMs(f((s) => s.keyMs, 0.5))} |`,
    );
  }
  return lines;
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export async function markdownLimitsCommand(
  argv: string[],
  progress: (line: string) => void,
  usage: (message?: string) => never,
): Promise<void> {
  const v = commandArgs(
    argv,
    {
      reps: { type: 'string' },
      dist: { type: 'string' },
      before: { type: 'string' },
      'before-reps': { type: 'string' },
      cap: { type: 'string' },
      out: { type: 'string' },
    },
    usage,
  );
  const reps = intFlag(v, 'reps', 5, usage);
  const beforeReps = intFlag(v, 'before-reps', 2, usage);
  const capMs = intFlag(v, 'cap', 120, usage) * 1000;
  const dist = (v.dist as string | undefined) ?? 'dist';
  const before = v.before as string | undefined;
  const out = (v.out as string | undefined) ?? 'bench/results/markdown-limits.md';

  const dir = await mkdtemp(join(tmpdir(), 'recollect-markdown-fixtures-'));
  try {
    const file = join(dir, 'markdown-fixtures.sqlite');
    const { turns } = await buildMarkdownMemory(file);
    const load = loadavg()[0]!;
    const after = await measureBuild(dist, file, turns, reps, capMs, progress);
    const baseline = before ? await measureBuild(before, file, turns, beforeReps, capMs, progress) : null;
    const md = [
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${gitCommit()}`,
      '',
      `Headless Debian Chromium, the built app; each fixture is the 4th of 6 messages in its own conversation, opened from a fresh page load, then one key typed in the message box. ` +
        `Load average (1 min) at the start: ${load.toFixed(1)} on a shared 2-core machine.`,
      '',
      ...table(`This build (${dist})`, after, reps),
      '',
      ...(baseline ? [...table(`Before (${before})`, baseline, beforeReps), ''] : []),
    ].join('\n');
    await mkdir(dirname(out), { recursive: true });
    await appendFile(out, `${md}\n`);
    process.stdout.write(`${md}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
