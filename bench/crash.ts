/**
 * Crash-safety benchmark (issue 12 item 8; DESIGN §8 "a killed worker or closed tab loses no
 * acknowledged turn"):
 *   npm run bench -- crash --trials N [--out report.json] [--seed S] [--no-build]
 *
 * Drives the built app (dist/, served by Vite's preview server) in headless Chromium with one
 * persistent profile, so OPFS survives every kill. Each trial opens the app, types turns into the
 * composer one after another, and at a random moment (0.2–2.5 s in) kills one of: the renderer
 * (CDP Page.crash: the tab's process, engine worker included), the engine worker alone
 * (Worker.terminate() on the app's 'recollect-engine' worker, recorded by an init script the
 * harness injects — the app itself ships no such hook), or the whole browser (SIGKILL to the
 * Chromium process started for this profile). A turn is acknowledged when it appears in the chat
 * list, which is read back from the database after its append resolved. The app is then reopened
 * (a new page, or a new browser on the same profile), the memory exported with the Export
 * button, and the file checked in Node: acknowledged turns missing, turns stored twice, and
 * `PRAGMA integrity_check`.
 */
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { preview } from 'vite';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/browser';
import { openMemoryDatabase } from '../src/storage/openNodeDatabase';
import { parseCrashArgs, type CrashArgs } from './cliArgs';
import { seededRandom } from './seededRandom';

export type KillMode = 'renderer' | 'engine-worker' | 'browser';
const MODES: readonly KillMode[] = ['renderer', 'engine-worker', 'browser'];

export interface CrashTrial {
  readonly trial: number;
  readonly mode: KillMode;
  readonly killAfterMs: number;
  readonly acknowledged: number;
  /** Turns typed whose append had not resolved when the kill came (stored or not: both are fine). */
  readonly inFlightStored: number;
}

export interface CrashReport {
  readonly trials: number;
  readonly byMode: Record<KillMode, number>;
  readonly acknowledgedTurns: number;
  readonly lostAcknowledged: number;
  readonly duplicates: number;
  readonly integrityFailures: number;
  readonly storedTurns: number;
  readonly seconds: number;
  readonly perTrial: readonly CrashTrial[];
  readonly lostTurns: readonly string[];
}

const rng = seededRandom;

const RECORD_WORKERS = `(() => {
  const Base = window.Worker;
  window.__crashWorkers = [];
  window.Worker = class extends Base {
    constructor(url, options) { super(url, options); window.__crashWorkers.push({ name: options && options.name, worker: this }); }
  };
})();`;

async function launch(profile: string): Promise<BrowserContext> {
  const executablePath = chromiumExecutable();
  const context = await chromium.launchPersistentContext(profile, { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS, acceptDownloads: true });
  await context.addInitScript(RECORD_WORKERS);
  return context;
}

/** The Chromium main process started for `profile` (only ours: matched by its profile directory). */
function browserPid(profile: string): number | null {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    if (line.includes(`--user-data-dir=${profile}`) && !line.includes('--type=')) return Number(line.trim().split(/\s+/)[0]);
  }
  return null;
}

async function openApp(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.getByTestId('status').waitFor({ timeout: 60_000 });
  // The conversation the first trial created ("Conversation …"), or a new one.
  const existing = page.getByRole('button', { name: /Conversation/ });
  await existing.first().waitFor({ timeout: 3_000 }).catch(() => undefined);
  if (await existing.count() > 0) await existing.first().click();
  else await page.getByRole('button', { name: '+ New conversation' }).click();
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor({ timeout: 30_000 });
  return page;
}

/** Types turns until stopped or the page dies; returns the acknowledged contents. */
async function appendUntilKilled(page: Page, trial: number, acked: string[], typed: string[], stop: { now: boolean }): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  for (let i = 0; !stop.now; i++) {
    const content = `crash-t${trial}-n${i} remembered turn`;
    try {
      await box.fill(content, { timeout: 5_000 });
      typed.push(content);
      await box.press('Enter', { timeout: 5_000 });
      await page.getByTestId('message').filter({ hasText: content }).waitFor({ timeout: 10_000 });
      if (!stop.now) acked.push(content);
    } catch {
      return;
    }
  }
}

async function kill(mode: KillMode, context: BrowserContext, page: Page, profile: string): Promise<void> {
  if (mode === 'renderer') {
    const cdp = await context.newCDPSession(page);
    void cdp.send('Page.crash').catch(() => undefined);
  } else if (mode === 'engine-worker') {
    await page.evaluate(() => {
      const rec = (window as unknown as { __crashWorkers: { name?: string; worker: Worker }[] }).__crashWorkers.find((w) => w.name === 'recollect-engine');
      rec?.worker.terminate();
    });
  } else {
    const pid = browserPid(profile);
    if (pid) process.kill(pid, 'SIGKILL');
  }
}

/** Exports the memory through the app and reads it in Node. */
async function inspect(page: Page): Promise<{ contents: string[]; integrity: string }> {
  const download = page.waitForEvent('download', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Export' }).click();
  const path = await (await download).path();
  const db = await openMemoryDatabase({ migrateSchema: false });
  try {
    await db.deserialize(new Uint8Array(await readFile(path)));
    const integrity = (await db.query<{ integrity_check: string }>('PRAGMA integrity_check')).map((r) => r.integrity_check).join('; ');
    const rows = await db.query<{ content: string }>("SELECT content FROM messages WHERE content LIKE 'crash-t%'");
    return { contents: rows.map((r) => String(r.content)), integrity };
  } finally {
    await db.close();
  }
}

export async function runCrash(options: { trials: number; seed?: number; onProgress?: (line: string) => void; onTrial?: (soFar: CrashReport) => Promise<void> }): Promise<CrashReport> {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npm run build` first.');
  const random = rng(options.seed ?? 12);
  const server = await preview({ preview: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'error' });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('The preview server did not report its URL.');
  const profile = await mkdtemp(join(tmpdir(), 'recollect-crash-profile-'));
  const started = Date.now();
  const acked: string[] = [];
  const perTrial: CrashTrial[] = [];
  const byMode: Record<KillMode, number> = { renderer: 0, 'engine-worker': 0, browser: 0 };
  let integrityFailures = 0;
  let context = await launch(profile);
  let last: { contents: string[] } = { contents: [] };
  try {
    for (let trial = 1; trial <= options.trials; trial++) {
      const mode = MODES[Math.floor(random() * MODES.length)]!;
      const killAfterMs = Math.round(200 + random() * 2300);
      const page = await openApp(context, url);
      const mine: string[] = [];
      const typed: string[] = [];
      const stop = { now: false };
      const loop = appendUntilKilled(page, trial, mine, typed, stop);
      await new Promise((r) => setTimeout(r, killAfterMs));
      stop.now = true;
      await kill(mode, context, page, profile).catch(() => undefined);
      await loop;
      acked.push(...mine);
      byMode[mode]++;
      if (mode === 'browser') {
        await context.close().catch(() => undefined);
        context = await launch(profile);
      } else {
        await page.close().catch(() => undefined);
      }
      const check = await openApp(context, url);
      const { contents, integrity } = await inspect(check);
      await check.close();
      if (integrity !== 'ok') integrityFailures++;
      last = { contents };
      const present = new Set(contents);
      const inFlightStored = typed.filter((t) => !mine.includes(t) && present.has(t)).length;
      perTrial.push({ trial, mode, killAfterMs, acknowledged: mine.length, inFlightStored });
      const lost = acked.filter((t) => !present.has(t)).length;
      options.onProgress?.(`trial ${trial}/${options.trials} ${mode} at ${killAfterMs} ms: ${mine.length} acknowledged, ${lost} lost so far, integrity ${integrity}`);
      await options.onTrial?.(summarise());
    }
  } finally {
    await context.close().catch(() => undefined);
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
  return summarise();

  function summarise(): CrashReport {
    const present = new Set(last.contents);
    const lostTurns = acked.filter((t) => !present.has(t));
    const counts = new Map<string, number>();
    for (const c of last.contents) counts.set(c, (counts.get(c) ?? 0) + 1);
    const duplicates = [...counts.values()].filter((n) => n > 1).reduce((a, n) => a + n - 1, 0);
    return {
      trials: perTrial.length, byMode: { ...byMode }, acknowledgedTurns: acked.length, lostAcknowledged: lostTurns.length, duplicates, integrityFailures,
      storedTurns: last.contents.length, seconds: Math.round((Date.now() - started) / 1000), perTrial: [...perTrial], lostTurns,
    };
  }
}

export function crashSummary(r: CrashReport): string {
  return [
    `| trials | renderer / engine worker / browser | acknowledged turns | lost | duplicates | integrity failures | time |`,
    `|---|---|---|---|---|---|---|`,
    `| ${r.trials} | ${r.byMode.renderer} / ${r.byMode['engine-worker']} / ${r.byMode.browser} | ${r.acknowledgedTurns} | ${r.lostAcknowledged} | ${r.duplicates} | ${r.integrityFailures} | ${r.seconds} s |`,
  ].join('\n');
}

export async function crashCommand(argv: string[], usage: (m?: string) => never): Promise<void> {
  let parsed: CrashArgs;
  try {
    parsed = parseCrashArgs(argv);
  } catch (err) {
    return usage(err instanceof Error ? err.message : String(err));
  }
  const { trials, out, seed, build } = parsed;
  if (build) execFileSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const save = async (r: CrashReport, partial: boolean) => {
    if (out) await writeFile(out, `${JSON.stringify({ ...r, seed, partial, at: new Date().toISOString() }, null, 2)}\n`);
  };
  // The report is rewritten after every trial, so an interrupted run still leaves its figures.
  const report = await runCrash({ trials, seed, onProgress: (line) => process.stderr.write(`${line}\n`), onTrial: (r) => save(r, true) });
  process.stdout.write(`${crashSummary(report)}\n`);
  await save(report, false);
  if (report.lostAcknowledged > 0 || report.duplicates > 0 || report.integrityFailures > 0) process.exitCode = 1;
}
