/**
 * Cold open alone, on a database a scale run kept (`npm run bench -- scale … --runtime browser
 * --profile <dir>`): growing 100,000 turns takes ≈ 20 minutes, a cold open seconds, so the phases
 * can be timed many times, and two builds compared on the same file in the same minutes:
 *
 *   npm run bench -- cold-open --profile <dir> [--dist dist] [--file bench-scale.sqlite] [--reps 5]
 *       [--question "…"] [--out report.json] [--port 4179] [--slowdown 4] [--nice=-10]
 *
 * OPFS belongs to the origin, port included: both commands serve a kept profile on port 4179
 * unless --port says otherwise.
 *
 * Each repetition is a NEW page of the same profile (same OPFS): it starts its own workers, opens
 * the file, searches once (bench/scaleBrowser.ts measureColdOpen), then waits for the vectors and
 * searches again. With --slowdown F the page and its workers run F× slower while it is timed
 * (bench/cpuSlowdown.ts; the report says what that covers). Reported: every repetition's phases from navigation, and their medians. Builds
 * nothing: serve the current dist/ or a copy of an earlier build (--dist).
 */
import { writeFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { openBenchPage } from './browserHarness';
import { describeColdOpen, measureColdOpen, type ColdOpenPhases, type ColdOpenTiming } from './scaleBrowser';
import { median } from './stats';
import { commandArgs, intFlag, niceValue, slowdownFactor } from './cliArgs';

export const COLD_OPEN_USAGE =
  'usage: npm run bench -- cold-open --profile <dir> [--dist dist] [--file bench-scale.sqlite] [--reps 5] [--question "…"] [--out report.json] [--port 4179] [--slowdown 4] [--nice=-10]';

const DEFAULT_QUESTION = 'What did I say about the trip to Lisbon and my sister?';

/**
 * The app itself (index.html) opened in a new page of the same profile — on the app's own
 * database there, not the benchmark file: ms from navigation until the search box is rendered and
 * enabled (the shell is interactive) and until the status line shows the memory's stats (the engine
 * worker answered).
 */
async function appShell(page: Page): Promise<{ interactiveMs: number; memoryOpenMs: number }> {
  const app = await page.context().newPage();
  try {
    await app.goto(new URL('index.html', page.url()).href);
    const interactive = await app.waitForFunction(
      () => {
        const box = document.querySelector<HTMLInputElement>('input[aria-label="Search memory"]');
        return box && !box.disabled ? performance.now() : 0;
      },
      undefined,
      { timeout: 60_000 },
    );
    const memory = await app.waitForFunction(() => (document.querySelector('[data-testid="status"]') ? performance.now() : 0), undefined, {
      timeout: 60_000,
    });
    return { interactiveMs: (await interactive.jsonValue()) as number, memoryOpenMs: (await memory.jsonValue()) as number };
  } finally {
    await app.close();
  }
}

export async function coldOpenCommand(argv: string[], progress: (line: string) => void, usage: (message?: string) => never): Promise<void> {
  const v = commandArgs(
    argv,
    {
      profile: { type: 'string' },
      dist: { type: 'string' },
      file: { type: 'string' },
      reps: { type: 'string' },
      question: { type: 'string' },
      out: { type: 'string' },
      port: { type: 'string' },
      slowdown: { type: 'string' },
      nice: { type: 'string' },
    },
    usage,
  );
  const profile = v.profile as string | undefined;
  if (!profile) usage('--profile is required (the profile a `scale --profile <dir>` run kept)');
  const reps = intFlag(v, 'reps', 5, usage);
  const file = (v.file as string | undefined) ?? 'bench-scale.sqlite';
  const dist = (v.dist as string | undefined) ?? 'dist';
  const question = { id: 'cold-open', text: (v.question as string | undefined) ?? DEFAULT_QUESTION, askedAt: Date.UTC(2026, 0, 1) };

  const port = v.port === undefined ? undefined : intFlag(v, 'port', 0, usage, { max: 65535 });
  let slowdown: number | undefined;
  let nice: number | undefined;
  try {
    slowdown = slowdownFactor(v.slowdown);
    nice = niceValue(v.nice);
  } catch (err) {
    usage(err instanceof Error ? err.message : String(err));
  }
  const bench = await openBenchPage({
    onProgress: progress,
    profileDir: profile,
    distDir: dist,
    ...(port ? { port } : {}),
    ...(slowdown ? { slowdown } : {}),
    ...(nice !== undefined ? { nice } : {}),
  });
  const runs: ColdOpenTiming[] = [];
  // With --slowdown: the same cold open at full speed first, in the same minutes (the ratio's baseline).
  const fullSpeed: ColdOpenTiming[] = [];
  const shells: { interactiveMs: number; memoryOpenMs: number }[] = [];
  let turns = 0;
  try {
    const files = await bench.page.evaluate(() => window.recollectBench!.opfsFiles());
    const found = files.find((f) => f.name === file);
    if (!found) throw new Error(`No ${file} in this profile's OPFS (found: ${files.map((f) => f.name).join(', ') || 'nothing'}).`);
    progress(`${file}: ${(found.size / 1e6).toFixed(0)} MB, serving ${dist}${bench.slowdown ? `; timed ${bench.slowdown.covers}` : ''}`);
    for (let r = 0; bench.slowdown && r < reps; r++) {
      const t = await bench.fullSpeed(() => measureColdOpen(bench.page, file, question));
      fullSpeed.push(t);
      progress(`cold open at full speed ${r + 1}/${reps}: ${Math.round(t.navigationToResultMs)} ms to the first result`);
    }
    for (let r = 0; r < reps; r++) {
      const t = await bench.slowed(() => measureColdOpen(bench.page, file, question), `cold open ${r + 1}`);
      runs.push(t);
      progress(`cold open ${r + 1}/${reps}: ${Math.round(t.navigationToResultMs)} ms to the first result; ${describeColdOpen(t)}`);
    }
    for (let r = 0; r < reps; r++) {
      const shell = await bench.slowed(() => appShell(bench.page), `app shell ${r + 1}`);
      shells.push(shell);
      progress(
        `app shell ${r + 1}/${reps}: interactive ${Math.round(shell.interactiveMs)} ms, memory open ${Math.round(shell.memoryOpenMs)} ms from navigation`,
      );
    }
    turns = await bench.page.evaluate(async (f) => {
      const opened = await window.recollectBench!.scale.open(f, true);
      const m = await window.recollectBench!.scale.measure([], { depth: 10 });
      await window.recollectBench!.scale.close();
      return opened ? m.turns : 0;
    }, file);
  } finally {
    await bench.close();
  }
  const keys: (keyof ColdOpenPhases)[] = [
    'workerReady',
    'fileOpen',
    'engineStarted',
    'speakersRead',
    'firstResult',
    'vectorsReady',
    'secondResult',
  ];
  const medians = Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r.phases?.[k] ?? Number.NaN))])) as Record<
    keyof ColdOpenPhases,
    number
  >;
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const lines = [
    ...(bench.slowdown
      ? [
          `**Slowed ${bench.slowdown.factor}×** while timed: ${bench.slowdown.covers}.`,
          '',
          `At full speed in the same run: navigation → first result ${fullSpeed.map((r) => f(r.navigationToResultMs)).join(', ')} ms (median ${f(median(fullSpeed.map((r) => r.navigationToResultMs)))}; slowed / full ${(median(runs.map((r) => r.navigationToResultMs)) / median(fullSpeed.map((r) => r.navigationToResultMs))).toFixed(1)}×).`,
          '',
        ]
      : []),
    `Cold open of ${file} (${turns.toLocaleString('en')} turns), ${dist}, ${reps} repetitions: navigation → first result ${runs.map((r) => f(r.navigationToResultMs)).join(', ')} ms (median ${f(median(runs.map((r) => r.navigationToResultMs)))}); phases, ms from navigation, median:`,
    `| workers ready | file open | engine started | speakers read | first result | vectors ready | second result | first result used vectors |`,
    `|---:|---:|---:|---:|---:|---:|---:|---|`,
    `| ${keys.map((k) => f(medians[k])).join(' | ')} | ${runs.filter((r) => r.firstUsedVectors).length}/${runs.length} |`,
    '',
    `App shell (index.html, the profile's own app database), median of ${shells.length}: search box interactive ${f(median(shells.map((x) => x.interactiveMs)))} ms, ` +
      `memory open (status line) ${f(median(shells.map((x) => x.memoryOpenMs)))} ms from navigation.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (v.out) {
    const out = v.out as string;
    await writeFile(
      out,
      JSON.stringify(
        {
          file,
          turns,
          dist,
          slowdown: bench.slowdown,
          fullSpeed,
          question: question.text,
          createdAt: new Date().toISOString(),
          medians,
          runs,
          shells,
        },
        null,
        2,
      ),
    );
    await writeFile(out.replace(/\.json$/, '') + '.md', `${lines.join('\n')}\n`);
    process.stdout.write(`wrote ${out}\n`);
  }
}
