/**
 * The 200 MB history import in the built app (Chromium, OPFS), both shapes of bench/hugeHistory.ts:
 * an export of many conversations and ONE conversation of ≈120,000 turns. Drives the import dialog
 * as a person does (choose the file, wait for the scan, policy Off, Import) and reads its progress
 * line every 100 ms, to report: the scan's time, the time from "Import" to the first turns counted
 * stored, how often the progress line changed and the longest wait between two changes, the import
 * and end-to-end times, and the peak resident memory of the browser's process tree.
 *
 * `--dist` runs another build (a baseline: the app before a change, built into its own folder);
 * `--cap` stops a run that has not finished after that many seconds and reports it as cut.
 *
 *   npm run build && npx tsx bench/hugeHistoryBrowser.ts [--shape single|many] [--mb 200] [--reps 1] [--dist dist] [--cap 3600] [--out bench/results/huge-history-browser.md]
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hugeExportFile } from './hugeHistory';
import { browserPid, treeCpuSeconds } from './importHistory';
import { median } from './stats';

/** Resident memory (bytes) of `rootPid` and its descendants: Chromium's browser, renderer and GPU processes. */
function treeRss(rootPid: number): number {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const e of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const status = readFileSync(`/proc/${e}/status`, 'utf8');
      parent.set(Number(e), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rss.set(Number(e), Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      /* gone */
    }
  }
  let sum = 0;
  for (const [pid, bytes] of rss) {
    for (let p = pid, depth = 0; p > 1 && depth < 20; depth++, p = parent.get(p) ?? 0) {
      if (p === rootPid) {
        sum += bytes;
        break;
      }
    }
  }
  return sum;
}

interface Run {
  readonly scanSeconds: number;
  /** From clicking Import to the progress line first counting stored turns. */
  readonly firstTurnSeconds: number | null;
  readonly importSeconds: number;
  readonly changes: number;
  readonly longestGapSeconds: number;
  readonly peakRssMb: number;
  readonly cpuSeconds: number | null;
  readonly turns: number;
  readonly summary: string;
  /** Stopped at the cap before the import's report. */
  readonly cut: boolean;
}

const progressTurns = (text: string) => Number(/([\d,]+) turns/.exec(text)?.[1]?.replace(/,/g, '') ?? 0);

async function run(path: string, dist: string, capSeconds: number): Promise<Run> {
  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { CHROMIUM_ARGS, chromiumExecutable } = await import('../e2e/browser');
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist}/ is missing: run \`npm run build\` first.`);
  const server = await preview({ preview: { host: '127.0.0.1', port: 0, strictPort: false }, build: { outDir: dist }, logLevel: 'error' });
  const profile = await mkdtemp(join(tmpdir(), 'recollect-huge-bench-'));
  const executablePath = chromiumExecutable();
  const context = await chromium.launchPersistentContext(profile, { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  let peak = 0;
  const pid = browserPid(profile);
  const sample = () => {
    if (pid !== null) peak = Math.max(peak, treeRss(pid));
  };
  const sampler = setInterval(sample, 250);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(server.resolvedUrls!.local[0]!);
    await page.getByTestId('status').waitFor();
    const cpu0 = pid === null ? null : treeCpuSeconds(pid);
    const scanStarted = performance.now();
    const capAt = scanStarted + capSeconds * 1000;
    // A path, not a buffer: Chromium reads the file from disk as a File, as when a person picks it.
    await page.getByLabel('Import chat history file').setInputFiles(path);
    const dialog = page.getByRole('dialog', { name: 'Import chat history' });
    const scanned = await dialog
      .getByTestId('history-scan')
      .waitFor({ timeout: capSeconds * 1000 })
      .then(
        () => true,
        () => false,
      );
    const scanSeconds = (performance.now() - scanStarted) / 1000;
    if (!scanned) {
      const text =
        (await dialog
          .getByTestId('history-progress')
          .textContent()
          .catch(() => null)) ?? '';
      return {
        scanSeconds,
        firstTurnSeconds: null,
        importSeconds: 0,
        changes: 0,
        longestGapSeconds: 0,
        peakRssMb: peak / 1e6,
        cpuSeconds: null,
        turns: 0,
        summary: `Cut at ${capSeconds} s, still scanning: ${text}`,
        cut: true,
      };
    }
    await dialog.getByRole('radio', { name: /Off/ }).check();
    await dialog.getByRole('button', { name: /^Import [\d,]+ turns$/ }).click();
    const started = performance.now();
    const progress = dialog.getByTestId('history-progress');
    const report = dialog.getByTestId('history-report');
    let last = '';
    let lastChange = started;
    let changes = 0;
    let gap = 0;
    let firstTurn: number | null = null;
    let cut = false;
    for (;;) {
      if (await report.count()) break;
      if (performance.now() > capAt) {
        cut = true;
        break;
      }
      const text = (await progress.textContent({ timeout: 1_000 }).catch(() => null)) ?? last;
      const now = performance.now();
      if (text !== last) {
        gap = Math.max(gap, now - lastChange);
        lastChange = now;
        changes++;
        last = text;
      }
      if (firstTurn === null && progressTurns(text) > 0) firstTurn = (now - started) / 1000;
      await new Promise((r) => setTimeout(r, 100));
    }
    const importSeconds = (performance.now() - started) / 1000;
    gap = Math.max(gap, performance.now() - lastChange);
    const cpu1 = pid === null ? null : treeCpuSeconds(pid);
    return {
      scanSeconds,
      firstTurnSeconds: firstTurn,
      importSeconds,
      changes,
      longestGapSeconds: gap / 1000,
      peakRssMb: peak / 1e6,
      cpuSeconds: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null,
      turns: cut ? progressTurns(last) : Number(await report.getAttribute('data-turns')),
      summary: cut ? `Cut at ${capSeconds} s: ${last}` : ((await report.textContent()) ?? ''),
      cut,
    };
  } finally {
    clearInterval(sampler);
    await context.close();
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('hugeHistoryBrowser.ts')) {
  const { values } = parseArgs({
    options: {
      shape: { type: 'string', default: 'single' },
      mb: { type: 'string', default: '200' },
      reps: { type: 'string', default: '1' },
      out: { type: 'string', default: 'bench/results/huge-history-browser.md' },
      dist: { type: 'string', default: 'dist' },
      cap: { type: 'string', default: '3600' },
    },
  });
  const shape = values.shape === 'many' ? 'many' : 'single';
  const path = resolve(hugeExportFile(shape, Number(values.mb)));
  const size = statSync(path).size;
  const runs: Run[] = [];
  const loads: number[] = [];
  for (let r = 1; r <= Number(values.reps); r++) {
    loads.push(loadavg()[0]!);
    const x = await run(path, values.dist, Number(values.cap));
    runs.push(x);
    console.error(
      `repetition ${r}: scan ${x.scanSeconds.toFixed(1)} s, first turns stored ${x.firstTurnSeconds?.toFixed(1) ?? '-'} s after Import, import ${x.importSeconds.toFixed(1)} s, ${x.changes} progress changes (longest gap ${x.longestGapSeconds.toFixed(1)} s), peak RSS ${x.peakRssMb.toFixed(0)} MB; ${x.summary}`,
    );
  }
  const m = (f: (x: Run) => number) => median(runs.map(f)).toFixed(1);
  const firsts = runs.map((x) => x.firstTurnSeconds).filter((x): x is number => x !== null);
  const md = [
    `## ${shape === 'single' ? 'One conversation' : 'Many conversations'}, ${(size / 1e6).toFixed(0)} MB JSON, in the app${values.dist === 'dist' ? '' : ` (build: ${values.dist})`} (${new Date().toISOString()})`,
    '',
    `${runs[0]!.summary} ${runs.length} repetition${runs.length === 1 ? '' : 's'}, medians; load average (1 min) at the start of each: ${loads.map((x) => x.toFixed(1)).join(' / ')} on a shared 2-core machine.`,
    '',
    '| scan (file chosen → counts shown) | Import → first turns stored | import | end to end (scan + import) | progress changes | longest wait between changes | peak RSS, browser tree | CPU, browser tree |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${m((x) => x.scanSeconds)} s | ${firsts.length ? `${median(firsts).toFixed(1)} s` : 'never'} | ${runs.some((x) => x.cut) ? '> ' : ''}${m((x) => x.importSeconds)} s | ${m((x) => x.scanSeconds + x.importSeconds)} s | ${m((x) => x.changes)} | ${m((x) => x.longestGapSeconds)} s | ${m((x) => x.peakRssMb)} MB | ${runs[0]!.cpuSeconds === null ? '-' : `${m((x) => x.cpuSeconds ?? 0)} s`} |`,
    '',
  ].join('\n');
  await mkdir(dirname(values.out), { recursive: true });
  await appendFile(values.out, `${md}\n`);
  console.log(md);
}
