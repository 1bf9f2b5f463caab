/**
 * How long a person waits for a delete right after opening a memory whose turns are still being
 * embedded, against the same delete once indexing is done, in one run of the real app:
 *
 *   npm run bench -- delete-during-indexing [--reps 5] [--warmup 1] [--conversations 500] [--dist dist] [--out report.json]
 *
 * Each repetition puts a fresh copy of the fixture memory (scripts/build-fixture-memory.ts, 10
 * turns a conversation, no vectors) in place as the app's OPFS file, opens the app, and while the
 * status line still says "Indexing …" deletes a conversation, then a message, through the
 * app's own controls (the row's Delete, the message's Delete, the in-app confirmation). It then
 * waits for indexing to finish and deletes another conversation and message the same way. A
 * delete is timed from the click on the confirming button until the list shows one fewer (the
 * engine's transaction, its full-text merge and log truncation, the list's refetch and render).
 *
 * Reported: median and p95 (nearest rank, bench/stats.ts) of each kind, and the ratio of
 * during-indexing to idle. A sample counts as "during indexing" only if indexing was still running
 * when its confirm was clicked (the count of such samples is printed). Warm-up repetitions are
 * run the same way and not counted. `--incognito` uses a Playwright default (incognito-like)
 * context as the browser tests do, where OPFS lives in the browser process's memory and every
 * write is a round trip to it (slower writes, so indexing lasts longer); by default a real profile
 * on disk, as a person has. Builds nothing: run `npm run build` first.
 */
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { chromium, type Locator, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/browser';
import { buildOnce, cachedPath } from '../e2e/fileCache';
import { buildFixtureMemory } from '../scripts/build-fixture-memory';
import { median, percentile } from './stats';
import { commandArgs, intFlag } from './cliArgs';

export const DELETE_DURING_INDEXING_USAGE =
  'usage: npm run bench -- delete-during-indexing [--reps 5] [--warmup 1] [--conversations 500] [--dist dist] [--incognito] [--out report.json]';

type Kind = 'conversation' | 'message';
type Phase = 'indexing' | 'idle';

interface Sample {
  readonly rep: number;
  readonly kind: Kind;
  readonly phase: Phase;
  readonly ms: number;
  /** Whether the status line still said "Indexing" when the confirm was clicked. */
  readonly indexingAtStart: boolean;
  /** Turns embedded / total when the confirm was clicked (from the status line; null when hidden). */
  readonly indexedAtStart: string | null;
}

const SEED_PAGE = '/__seed-memory';
const APP_FILE = 'recollect.sqlite';

/** Replaces the origin's OPFS with `file` as the app's memory (the app must not be open). */
export async function seed(page: Page, file: string): Promise<void> {
  await page.route(`**${SEED_PAGE}`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>seeding</title>' }));
  await page.route(`**${SEED_PAGE}.sqlite`, (route) => route.fulfill({ path: file, contentType: 'application/octet-stream' }));
  await page.goto(SEED_PAGE);
  await page.evaluate(async (name) => {
    const data = await (await fetch('/__seed-memory.sqlite')).arrayBuffer();
    const root = await navigator.storage.getDirectory();
    // The previous page's worker may hold its access handles for a moment after it unloads.
    for (let attempt = 0; ; attempt++) {
      try {
        for await (const key of (root as unknown as { keys(): AsyncIterable<string> }).keys())
          await root.removeEntry(key, { recursive: true });
        const writable = await (await root.getFileHandle(name, { create: true })).createWritable();
        await writable.write(data);
        await writable.close();
        return;
      } catch (err) {
        if (attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }, APP_FILE);
  await page.unroute(`**${SEED_PAGE}`);
  await page.unroute(`**${SEED_PAGE}.sqlite`);
}

async function indexingState(page: Page): Promise<{ running: boolean; indexed: string | null }> {
  return page.evaluate(() => {
    const el = document.querySelector<HTMLElement>('[data-testid="indexing-status"]');
    return { running: el?.dataset.state === 'running', indexed: el ? `${el.dataset.indexed}/${el.dataset.total}` : null };
  });
}

/** Clicks `confirm` and times until `count` shows `expected` items (polled every animation frame). */
async function timedConfirm(page: Page, confirm: Locator, countSelector: string, expected: number): Promise<number> {
  await confirm.waitFor();
  const start = Date.now();
  await confirm.click();
  await page.waitForFunction(
    ({ sel, n }) => document.querySelectorAll(sel).length === n,
    { sel: countSelector, n: expected },
    { polling: 'raf', timeout: 300_000 },
  );
  return Date.now() - start;
}

const ROWS = 'nav[aria-label="Conversations"] button.conversation';
const MESSAGES = '[data-testid="message"]';

async function deleteConversation(page: Page): Promise<{ ms: number; state: Awaited<ReturnType<typeof indexingState>> }> {
  const rows = page.locator(ROWS);
  const before = await rows.count();
  const title = (await rows.first().locator('.title').textContent())!;
  await rows.first().click();
  await page.getByRole('button', { name: `Delete ${title}`, exact: true }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete conversation' });
  const state = await indexingState(page);
  const ms = await timedConfirm(page, dialog.getByRole('button', { name: 'Delete conversation', exact: true }), ROWS, before - 1);
  return { ms, state };
}

async function deleteMessage(page: Page): Promise<{ ms: number; state: Awaited<ReturnType<typeof indexingState>> }> {
  await page.locator(ROWS).first().click();
  const messages = page.locator(MESSAGES);
  await messages.first().waitFor();
  await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 2, MESSAGES);
  const before = await messages.count();
  await messages.last().getByRole('button', { name: 'Delete message' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete message' });
  const state = await indexingState(page);
  const ms = await timedConfirm(page, dialog.getByRole('button', { name: 'Delete message', exact: true }), MESSAGES, before - 1);
  return { ms, state };
}

export interface DeleteBenchSummary {
  readonly kind: Kind;
  readonly indexing: { readonly n: number; readonly duringIndexing: number; readonly median: number; readonly p95: number };
  readonly idle: { readonly n: number; readonly median: number; readonly p95: number };
  /** Median during indexing / median idle. */
  readonly ratio: number;
}

export function summarise(samples: readonly Sample[]): DeleteBenchSummary[] {
  return (['conversation', 'message'] as const).map((kind) => {
    const during = samples.filter((s) => s.kind === kind && s.phase === 'indexing').map((s) => s.ms);
    const idle = samples.filter((s) => s.kind === kind && s.phase === 'idle').map((s) => s.ms);
    const duringIndexing = samples.filter((s) => s.kind === kind && s.phase === 'indexing' && s.indexingAtStart).length;
    return {
      kind,
      indexing: { n: during.length, duringIndexing, median: median(during), p95: percentile(during, 95) },
      idle: { n: idle.length, median: median(idle), p95: percentile(idle, 95) },
      ratio: median(during) / median(idle),
    };
  });
}

export async function deleteDuringIndexingCommand(
  argv: string[],
  progress: (line: string) => void,
  usage: (message?: string) => never,
): Promise<void> {
  const v = commandArgs(
    argv,
    {
      reps: { type: 'string' },
      warmup: { type: 'string' },
      conversations: { type: 'string' },
      dist: { type: 'string' },
      out: { type: 'string' },
      incognito: { type: 'boolean' },
    },
    usage,
  );
  const reps = intFlag(v, 'reps', 5, usage);
  const warmup = intFlag(v, 'warmup', 1, usage, { min: 0 });
  const conversations = intFlag(v, 'conversations', 500, usage, { min: 10 });
  const dist = (v.dist as string | undefined) ?? 'dist';
  if (!existsSync(join(dist, 'index.html'))) usage(`${dist}/index.html is missing: run \`npm run build\` first.`);

  const file = cachedPath(`fixture${conversations}-memory`, 'sqlite', ['scripts/build-fixture-memory.ts', 'src']);
  progress(`fixture: ${file} (${conversations} conversations × 10 turns; built once, then cached)`);
  await buildOnce(file, (out) => buildFixtureMemory(out, { conversations }), 12 * 3_600_000);

  const { preview } = await import('vite');
  const server = await preview({ preview: { host: '127.0.0.1', port: 0, strictPort: false }, build: { outDir: dist }, logLevel: 'error' });
  const home = server.resolvedUrls?.local[0];
  if (!home) throw new Error('The preview server did not report its URL.');
  const executablePath = chromiumExecutable();
  // A real profile (see bench/browserHarness.ts: incognito OPFS is an IPC round trip per write).
  const profile = await mkdtemp(join(tmpdir(), 'recollect-delete-bench-'));
  const launch = { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS };
  const browser = v.incognito ? await chromium.launch(launch) : null;
  const context = browser
    ? await browser.newContext({ serviceWorkers: 'block', baseURL: home })
    : await chromium.launchPersistentContext(profile, { ...launch, serviceWorkers: 'block', baseURL: home });
  const samples: Sample[] = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => process.stderr.write(`[page error] ${e.message}\n`));
    if (process.env.DELETE_BENCH_CONSOLE) page.on('console', (m) => process.stderr.write(`[console] ${m.text()}\n`));
    for (let r = 0; r < warmup + reps; r++) {
      const counted = r >= warmup;
      await seed(page, file);
      await page.goto('/');
      await page.getByText('Opening your memory…').waitFor({ state: 'hidden', timeout: 180_000 });
      await page.locator(ROWS).first().waitFor({ timeout: 180_000 });
      // The first open of a file without vectors embeds every turn; the status line says so.
      await page.locator('[data-testid="indexing-status"][data-state="running"]').waitFor({ timeout: 60_000 });
      const add = (kind: Kind, phase: Phase, d: { ms: number; state: { running: boolean; indexed: string | null } }) => {
        if (counted)
          samples.push({ rep: r - warmup, kind, phase, ms: d.ms, indexingAtStart: d.state.running, indexedAtStart: d.state.indexed });
        progress(
          `${counted ? `rep ${r - warmup + 1}/${reps}` : `warm-up ${r + 1}/${warmup}`}: ${kind} delete ${phase === 'indexing' ? `while indexing (${d.state.running ? `at ${d.state.indexed}` : 'it had ended'})` : 'after indexing'}: ${d.ms} ms`,
        );
      };
      add('conversation', 'indexing', await deleteConversation(page));
      add('message', 'indexing', await deleteMessage(page));
      await page.locator('[data-testid="indexing-status"][data-state="running"]').waitFor({ state: 'detached', timeout: 600_000 });
      await page.waitForTimeout(2_000); // what follows indexing (clean-up of other vectors, counts) settles
      add('conversation', 'idle', await deleteConversation(page));
      add('message', 'idle', await deleteMessage(page));
    }
  } finally {
    await context.close();
    await browser?.close();
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
  const summary = summarise(samples);
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const lines = [
    `Delete during indexing: ${conversations * 10} turns (${conversations} conversations), ${v.incognito ? 'incognito context' : 'real profile'}, ${reps} repetitions after ${warmup} warm-up, ${dist}, ${new Date().toISOString().slice(0, 10)}`,
    '',
    '| delete | while indexing: median | p95 | samples (indexing still running) | after indexing: median | p95 | ratio of medians |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...summary.map(
      (s) =>
        `| ${s.kind} | ${f(s.indexing.median)} ms | ${f(s.indexing.p95)} ms | ${s.indexing.n} (${s.indexing.duringIndexing}) | ${f(s.idle.median)} ms | ${f(s.idle.p95)} ms | ${s.ratio.toFixed(2)}× |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (v.out) {
    const out = v.out as string;
    await writeFile(
      out,
      JSON.stringify(
        { conversations, turns: conversations * 10, reps, warmup, dist, createdAt: new Date().toISOString(), summary, samples },
        null,
        2,
      ),
    );
    await writeFile(out.replace(/\.json$/, '') + '.md', `${lines.join('\n')}\n`);
    process.stdout.write(`wrote ${out}\n`);
  }
}
