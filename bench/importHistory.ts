/**
 * History import benchmark: how fast an export's turns are captured (parsed from the
 * streamed file and stored through appendTurns), in Node and in the browser app.
 *
 *   npx tsx bench/importHistory.ts [--runtime node|cli|browser] [--conversations 400] [--turns 20] [--reps 5] [--out bench/results/import-node.md]
 *
 * Input: a generated ChatGPT export (a .zip for the browser, the JSON for Node) of `conversations`
 * × `turns` turns of the lengths people write (see turnLength). Reported: turns/s and MB of turn
 * text per second. `cli` runs scripts/import-history.ts in this process (into a database file)
 * and reports its peak memory; the browser run reports the scan too, and the end-to-end rate. One untimed warm-up, then `reps` timed repetitions, each into a
 * fresh database. Node: in-memory database, the engine with store only (capture: no embedding),
 * plus a baseline in the same run — the same turns appended directly with appendTurns (no file,
 * no parsing) — so the import's cost over bare capture is a ratio. Browser: the real app in
 * headless Chromium (vite preview of dist/, a fresh persistent profile per repetition so OPFS is
 * real), driving the Import chats… dialog; the time is the engine's own (report.seconds), while
 * the model worker embeds alongside as it does for a user. Reported: median and p95 (slow end).
 */
import type { EngineApi } from '../src/core/protocol';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { strToU8, zipSync } from 'fflate';
import { MemoryEngine } from '../src/core/engine/MemoryEngine';
import { readHistory } from '../src/import/readHistory';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import type { NewTurn } from '../src/core/base/types';
import type { Page } from '@playwright/test';
import { seededRandom } from './seededRandom';
import { percentile, rateStats } from './stats';
import { prose } from './chatProse';

/**
 * Turn lengths as people write them (real ChatGPT archives average ≈1,150 characters a turn):
 * a user turn of 200–400 characters, an answer of 1,000–3,000, and one turn in 50 a document of
 * 10,000–20,000 (a pasted text or a long generated document).
 */
function turnLength(role: 'user' | 'assistant', rnd: () => number): number {
  if (rnd() < 0.02) return 10_000 + Math.floor(rnd() * 10_000);
  return role === 'user' ? 200 + Math.floor(rnd() * 200) : 1_000 + Math.floor(rnd() * 2_000);
}

/** A deterministic ChatGPT export: linear conversations of alternating user/assistant turns of realistic length. */
export function syntheticExport(conversations: number, turns: number): unknown[] {
  const rnd = seededRandom(42);
  const t0 = Date.UTC(2023, 0, 1) / 1000;
  return Array.from({ length: conversations }, (_, c) => {
    const start = t0 + c * 86_400;
    const mapping: Record<string, unknown> = { root: { id: 'root', parent: null, children: [`c${c}m0`], message: null } };
    for (let k = 0; k < turns; k++) {
      const id = `c${c}m${k}`;
      const role = k % 2 ? 'assistant' : 'user';
      mapping[id] = {
        id,
        parent: k ? `c${c}m${k - 1}` : 'root',
        children: k < turns - 1 ? [`c${c}m${k + 1}`] : [],
        // Microsecond times, as the service writes them.
        message: {
          id,
          author: { role },
          create_time: start + k * 45 + 0.123456,
          recipient: 'all',
          content: { content_type: 'text', parts: [prose(turnLength(role, rnd), rnd)] },
          metadata: {},
        },
      };
    }
    return {
      id: `conv-${c}`,
      title: `Synthetic chat ${c}`,
      create_time: start,
      update_time: start + turns * 45,
      current_node: `c${c}m${turns - 1}`,
      mapping,
    };
  });
}

/**
 * This process's CPU time since `start`. On a shared machine wall time mostly measures the queue
 * for a core; turns per CPU-second is what the import costs (Node runs it on one thread).
 */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}

/** Median and slow-end p95 of per-repetition rates (bench/stats.ts). */
const stats = rateStats;

interface Run {
  turns: number;
  /** Import time (the browser: the engine's own, after the scan). */
  seconds: number;
  cpuSeconds?: number;
  /** Browser: the scan before it (file read once to count and estimate), wall clock. */
  scanSeconds?: number;
  /** CLI: peak resident memory of this process during the run, and before it (the benchmark's own data), bytes. */
  peakRss?: number;
  rssBefore?: number;
  /** Browser: CPU seconds of the whole browser (every process) during the scan; cpuSeconds is the import's. */
  scanCpuSeconds?: number;
  /** Browser: search and recall round trips (ms) timed while the import ran. */
  probe?: Probe;
  /** Browser: from the import's report until the trailing indexing said it was done, wall clock. */
  trailingSeconds?: number;
  /** Browser: turns indexed / all when the wait for the trailing indexing ended (done, or `--trail-cap` reached). */
  trailingIndexed?: readonly [number, number];
}

/** Characters of turn text in the generated export (what "MB of text per second" counts). */
function textChars(data: unknown[]): number {
  let n = 0;
  for (const c of data as { mapping: Record<string, { message: { content: { parts: string[] } } | null }> }[]) {
    for (const node of Object.values(c.mapping)) n += node.message?.content.parts[0]?.length ?? 0;
  }
  return n;
}

/** The command line (scripts/import-history.ts) in this process: file in, database file out. */
async function cliImport(jsonPath: string): Promise<Run> {
  const { importHistoryFile, parseArgs: parseImportArgs } = await import('../scripts/import-history');
  const dir = await mkdtemp(join(tmpdir(), 'recollect-import-cli-bench-'));
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const report = await importHistoryFile(
      parseImportArgs([jsonPath, '--format', 'chatgpt', '--out', join(dir, 'out.sqlite'), '--policy', 'off']),
    );
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return { turns: report.turns, seconds: (performance.now() - started) / 1000, cpuSeconds: cpuSeconds(cpu), peakRss, rssBefore };
  } finally {
    clearInterval(sampler);
    await rm(dir, { recursive: true, force: true });
  }
}

async function nodeImport(json: string): Promise<Run> {
  const store = await openNodeStore();
  try {
    const engine = new MemoryEngine({ store, historyReader: readHistory });
    const started = performance.now();
    const cpu = process.cpuUsage();
    const report = await engine.data.importHistory(new File([json], 'conversations.json'), { format: 'chatgpt', importId: 'bench' });
    return { turns: report.turns, seconds: (performance.now() - started) / 1000, cpuSeconds: cpuSeconds(cpu) };
  } finally {
    await store.db.close();
  }
}

/** Baseline: the same turns straight into createConversations + appendTurns (1,000 per transaction, like the importer), no file. */
async function nodeBaseline(data: unknown[]): Promise<Run> {
  const convs = data as {
    id: string;
    title: string;
    mapping: Record<
      string,
      { message: { id: string; author: { role: 'user' | 'assistant' }; create_time: number; content: { parts: string[] } } | null }
    >;
  }[];
  const store = await openNodeStore();
  try {
    const engine = new MemoryEngine({ store });
    const started = performance.now();
    const cpu = process.cpuUsage();
    let batch: NewTurn[] = [];
    let pending: { id: string; title: string }[] = [];
    let turns = 0;
    const flush = async () => {
      await store.createConversations(pending);
      await engine.conversations.appendTurns(batch);
      turns += batch.length;
      batch = [];
      pending = [];
    };
    for (const c of convs) {
      pending.push({ id: c.id, title: c.title });
      for (const node of Object.values(c.mapping)) {
        if (!node.message) continue;
        batch.push({
          id: node.message.id,
          conversationId: c.id,
          role: node.message.author.role,
          content: node.message.content.parts[0]!,
          occurredAt: node.message.create_time * 1000,
        });
      }
      if (batch.length >= 1000) await flush();
    }
    if (batch.length) await flush();
    return { turns, seconds: (performance.now() - started) / 1000, cpuSeconds: cpuSeconds(cpu) };
  } finally {
    await store.db.close();
  }
}

/** CPU seconds (user + system) of a process and all its descendants, from /proc (Linux); null elsewhere. */
export function treeCpuSeconds(rootPid: number): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    // no /proc (not Linux)
    return null;
  }
  const stat = new Map<number, { ppid: number; ticks: number }>();
  for (const e of entries) {
    try {
      const text = readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stat.set(Number(e), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
    } catch {
      /* gone */
    }
  }
  let ticks = 0;
  const inTree = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 20; depth++) {
      if (p === rootPid) return true;
      p = stat.get(p)?.ppid ?? 0;
    }
    return false;
  };
  for (const [pid, s] of stat) if (inTree(pid)) ticks += s.ticks;
  return ticks / 100; // USER_HZ
}

/** The Chromium browser process using `profile` (its --user-data-dir). */
export function browserPid(profile: string): number | null {
  for (const e of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8');
      if (cmd.includes(`--user-data-dir=${profile}`) && !cmd.includes('--type=')) return Number(e);
    } catch {
      /* gone */
    }
  }
  return null;
}

interface Probe {
  search: number[];
  recall: number[];
}

/**
 * "The app stays usable while it runs": during the import, a keyword search (the search box's
 * call) and a recall (what a chat message retrieves from memory) are sent to the app's engine one
 * after the other, each timed from the page (round trip through the worker), until the import ends.
 * One pair starts every 2 s (or as soon as the last one answered, when it took longer): a fixed
 * pace, so a build that answers faster is not also asked more often (each recall embeds its query,
 * CPU the import then lacks, which made the faster build look slower).
 */
async function probeWhileImporting(page: Page, done: () => boolean): Promise<Probe> {
  const words = [
    'sourdough starter',
    'ferry Hydra',
    'mortgage pension',
    'derailleur chain',
    'Dolomites trail headlamp',
    'kitchen tile grout',
  ];
  const probe: Probe = { search: [], recall: [] };
  for (let i = 0; !done(); i++) {
    const started = Date.now();
    const q = words[i % words.length]!;
    const timed = await page
      .evaluate(async (query) => {
        const engine = (window as unknown as { recollectEngine?: EngineApi }).recollectEngine;
        if (!engine) return null;
        const t0 = performance.now();
        await engine.conversations.search(query, { limit: 30 });
        const t1 = performance.now();
        await engine.answers.recall(query);
        return { search: t1 - t0, recall: performance.now() - t1 };
      }, q)
      .catch(() => null);
    if (!timed) break;
    probe.search.push(timed.search);
    probe.recall.push(timed.recall);
    await new Promise((r) => setTimeout(r, Math.max(0, started + 2_000 - Date.now())));
  }
  return probe;
}

async function browserImport(zip: Uint8Array, expectedTurns: number, distDir = 'dist', trailCapMs = 600_000): Promise<Run> {
  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { CHROMIUM_ARGS, chromiumExecutable } = await import('../e2e/browser');
  if (!existsSync(join(distDir, 'index.html'))) throw new Error(`${distDir}/ is missing: run \`npm run build\` first.`);
  const server = await preview({
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
    build: { outDir: distDir },
    logLevel: 'error',
  });
  const profile = await mkdtemp(join(tmpdir(), 'recollect-import-bench-'));
  const executablePath = chromiumExecutable();
  const context = await chromium.launchPersistentContext(profile, { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(server.resolvedUrls!.local[0]!);
    await page.getByTestId('status').waitFor();
    const pid = browserPid(profile);
    const cpu = () => (pid === null ? null : treeCpuSeconds(pid));
    const scanStarted = performance.now();
    const cpu0 = cpu();
    await page
      .getByLabel('Import chat history file')
      .setInputFiles({ name: 'export.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
    const dialog = page.getByRole('dialog', { name: 'Import chat history' });
    await dialog.getByTestId('history-scan').waitFor({ timeout: 300_000 });
    const scanSeconds = (performance.now() - scanStarted) / 1000;
    const cpu1 = cpu();
    await dialog.getByRole('radio', { name: /Off/ }).check();
    await dialog.getByRole('button', { name: /^Import [\d,]+ turns$/ }).click();
    const report = dialog.getByTestId('history-report');
    let finished = false;
    const probing = probeWhileImporting(page, () => finished);
    await report.waitFor({ timeout: 600_000 });
    finished = true;
    const cpu2 = cpu();
    const probe = await probing;
    const turns = Number(await report.getAttribute('data-turns'));
    if (turns !== expectedTurns)
      throw new Error(`The browser imported ${turns} turns, expected ${expectedTurns}: ${await report.textContent()}`);
    const seconds = Number(await report.getAttribute('data-seconds'));
    // The indexing that trails the import (turn index with context, vectors, episodes), until done.
    const trailStarted = performance.now();
    let trailingSeconds: number | undefined;
    let trailingLast: { state: string; indexed: number; total: number } | null = null;
    // (A build from before the trailing indexing has no indexingStatus: the call fails, nothing trails.)
    const indexing = () =>
      page.evaluate(() => (window as unknown as { recollectEngine: EngineApi }).recollectEngine.indexing.status()).catch(() => null);
    if (await indexing()) {
      for (;;) {
        const s = await indexing();
        trailingLast = s ?? trailingLast;
        if (!s || (s.state === 'idle' && s.indexed >= s.total) || performance.now() - trailStarted > trailCapMs) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      trailingSeconds = (performance.now() - trailStarted) / 1000;
    }
    return {
      turns,
      seconds,
      scanSeconds,
      probe,
      ...(cpu0 !== null && cpu1 !== null && cpu2 !== null ? { scanCpuSeconds: cpu1 - cpu0, cpuSeconds: cpu2 - cpu1 } : {}),
      ...(trailingSeconds !== undefined
        ? { trailingSeconds, ...(trailingLast ? { trailingIndexed: [trailingLast.indexed, trailingLast.total] as const } : {}) }
        : {}),
    };
  } finally {
    await context.close();
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
}

const ms = (xs: number[]) => {
  if (!xs.length) return 'n/a';
  return `${Math.round(percentile(xs, 50))} / ${Math.round(percentile(xs, 95))} ms (${xs.length} calls)`;
};

/** The browser's CPU-second rates, the same-run comparison, the trailing indexing and the probe. */
function browserDetails(runs: Run[], before: Run[], compare: string, total: number, textMb: number): string[] {
  const med = (xs: number[]) => stats(xs).median;
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const lines: string[] = [''];
  const rows = (label: string, rs: Run[]) => {
    const e2e = med(rs.map((r) => r.turns / (r.seconds + r.scanSeconds!)));
    const imp = med(rs.map((r) => r.turns / r.seconds));
    const cpu = rs.every((r) => r.cpuSeconds !== undefined) ? med(rs.map((r) => r.turns / (r.cpuSeconds! + r.scanCpuSeconds!))) : NaN;
    const cpuImport = rs.every((r) => r.cpuSeconds !== undefined) ? med(rs.map((r) => r.turns / r.cpuSeconds!)) : NaN;
    return {
      label,
      e2e,
      imp,
      cpu,
      cpuImport,
      line: `| ${label} | ${f(imp)} | ${f(e2e)} | ${((e2e * textMb) / total).toFixed(2)} | ${f(cpuImport)} | ${f(cpu)} |`,
    };
  };
  const now = rows('this build (dist/)', runs);
  const was = before.length ? rows(`before (${compare})`, before) : null;
  lines.push(
    '| build | import turns/s (wall) | end to end turns/s (wall) | end to end MB/s | import turns per browser CPU-second | end to end turns per browser CPU-second |',
    '|---|---:|---:|---:|---:|---:|',
  );
  if (was) lines.push(was.line);
  lines.push(now.line);
  if (was)
    lines.push(
      '',
      `This build / before, same run (medians): end to end ${(now.e2e / was.e2e).toFixed(2)}× wall clock, ${(now.cpu / was.cpu).toFixed(2)}× per browser CPU-second; import alone ${(now.imp / was.imp).toFixed(2)}× wall, ${(now.cpuImport / was.cpuImport).toFixed(2)}× per CPU-second.`,
    );
  lines.push(
    '',
    "Browser CPU-seconds: user + system time of every Chromium process of the run (/proc), so they do not depend on the machine's load as wall time does; on 2 cores an idle machine runs the import in about CPU-seconds / (parallel processes).",
  );
  const trailing = runs
    .filter((r) => r.trailingSeconds !== undefined)
    .map(
      (r) =>
        `${r.trailingIndexed && r.trailingIndexed[0] < r.trailingIndexed[1] ? `${f(r.trailingIndexed[0])} of ${f(r.trailingIndexed[1])} turns indexed (not done) after` : 'done'} ${r.trailingSeconds!.toFixed(1)} s`,
    );
  if (trailing.length)
    lines.push(
      '',
      `Trailing indexing (turn index with context, vectors, episodes), wall clock after the import's report: ${trailing.join(' / ')}.`,
    );
  const probe = (rs: Run[], label: string) => {
    const search = rs.flatMap((r) => r.probe?.search ?? []);
    const recall = rs.flatMap((r) => r.probe?.recall ?? []);
    return `| ${label} | ${ms(search)} | ${ms(recall)} |`;
  };
  lines.push(
    '',
    'While the import ran — keyword search (searchMessages) and recall (what a chat message retrieves), round trip from the page, median / p95; bar: 200 ms:',
    '',
    '| build | keyword search | recall |',
    '|---|---:|---:|',
  );
  if (was) lines.push(probe(before, `before (${compare})`));
  lines.push(probe(runs, 'this build'));
  return lines;
}

const USAGE =
  'usage: npx tsx bench/importHistory.ts [--runtime node|cli|browser] [--conversations 400] [--turns 20] [--reps 5] [--out file.md] [--compare other-dist/] [--warmups 1] [--trail-cap 600]';

/** Strict flags (node:util parseArgs, as every bench command): an unknown flag or a missing value is an error. */
export function importBenchArgs(argv: readonly string[]): {
  runtime: 'node' | 'cli' | 'browser';
  conversations: number;
  turns: number;
  reps: number;
  out: string;
  compare: string;
  warmups: number;
  trailCapMs: number;
} {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      runtime: { type: 'string', default: 'node' },
      conversations: { type: 'string', default: '400' },
      turns: { type: 'string', default: '20' },
      reps: { type: 'string', default: '5' },
      out: { type: 'string' },
      compare: { type: 'string', default: '' },
      warmups: { type: 'string', default: '1' },
      'trail-cap': { type: 'string', default: '600' },
    },
  });
  const { runtime } = values;
  if (runtime !== 'node' && runtime !== 'cli' && runtime !== 'browser')
    throw new Error(`--runtime is node, cli or browser, not ${runtime}\n${USAGE}`);
  const count = (name: 'conversations' | 'turns' | 'reps' | 'warmups' | 'trail-cap', min = 1) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} needs an integer ≥ ${min}, not ${values[name]}\n${USAGE}`);
    return n;
  };
  return {
    runtime,
    conversations: count('conversations'),
    turns: count('turns'),
    reps: count('reps'),
    out: values.out ?? `bench/results/import-${runtime}.md`,
    compare: values.compare,
    warmups: count('warmups', 0),
    trailCapMs: count('trail-cap') * 1000,
  };
}

async function main() {
  // Browser: --compare runs a second build (e.g. a copy of dist/ from before a change) in the same
  // minutes, alternating with dist/ repetition by repetition, so the ratio survives a shared machine's load.
  const { runtime, conversations, turns: turnsPer, reps, out, compare, warmups, trailCapMs } = importBenchArgs(process.argv.slice(2));
  const data = syntheticExport(conversations, turnsPer);
  const json = JSON.stringify(data);
  const zip = zipSync({ 'conversations.json': strToU8(json) });
  const total = conversations * turnsPer;
  const textMb = textChars(data) / 1e6;
  const workDir = await mkdtemp(join(tmpdir(), 'recollect-import-bench-data-'));
  const jsonPath = join(workDir, 'conversations.json');
  await writeFile(jsonPath, json);
  const runs: Run[] = [];
  const baseline: Run[] = [];
  const before: Run[] = [];
  const loads: number[] = [];
  try {
    for (let r = 1 - warmups; r <= reps; r++) {
      loads.push(loadavg()[0]!);
      // The two builds take turns going first, so load that drifts during a run touches both alike.
      const compareRun = async () => {
        const b = await browserImport(zip, total, compare, trailCapMs);
        if (r > 0) before.push(b);
        process.stderr.write(
          `${r <= 0 ? 'warm-up' : `repetition ${r}/${reps}`} (${compare}): ${Math.round(b.turns / b.seconds).toLocaleString('en')} turns/s, scan ${b.scanSeconds!.toFixed(1)} s\n`,
        );
      };
      const comparing = runtime === 'browser' && compare !== '';
      if (comparing && r % 2 === 0) await compareRun();
      const run =
        runtime === 'node'
          ? await nodeImport(json)
          : runtime === 'cli'
            ? await cliImport(jsonPath)
            : await browserImport(zip, total, 'dist', trailCapMs);
      if (run.turns !== total) throw new Error(`Imported ${run.turns} turns, expected ${total}.`);
      if (runtime === 'node') baseline.push(await nodeBaseline(data));
      if (r > 0) runs.push(run);
      else baseline.length = 0; // warm-ups
      process.stderr.write(
        `${r <= 0 ? 'warm-up' : `repetition ${r}/${reps}`}: ${Math.round(run.turns / run.seconds).toLocaleString('en')} turns/s${run.cpuSeconds ? `, ${Math.round(run.turns / run.cpuSeconds).toLocaleString('en')} per CPU-second` : ''}${run.scanSeconds ? `, scan ${run.scanSeconds.toFixed(1)} s` : ''}${run.peakRss ? `, peak RSS ${Math.round(run.peakRss / 1048576)} MB` : ''}\n`,
      );
      if (comparing && r % 2 !== 0) await compareRun();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const row = (label: string, rates: number[]) => {
    const t = stats(rates);
    const mb = stats(rates.map((x) => (x * textMb) / total));
    return `| ${label} | ${f(t.median)} | ${f(t.p95)} | ${mb.median.toFixed(2)} | ${mb.p95.toFixed(2)} |`;
  };
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const rate = stats(runs.map((r) => r.turns / r.seconds));
  const base = baseline.length ? stats(baseline.map((r) => r.turns / r.seconds)) : null;
  const e2e = runtime === 'browser' ? stats(runs.map((r) => r.turns / (r.seconds + r.scanSeconds!))) : null;
  const cpuRate = runtime !== 'browser' ? stats(runs.map((r) => r.turns / r.cpuSeconds!)) : null;
  const label =
    runtime === 'node'
      ? 'engine import (stream + parse + appendTurns, in-memory database)'
      : runtime === 'cli'
        ? 'npm run import (stream + parse + appendTurns into the database file)'
        : 'app dialog, import only (zip stream + parse + appendTurns on OPFS, embedding alongside)';
  const md = [
    `# History import: speed at realistic turn lengths (${runtime})`,
    '',
    `${total.toLocaleString('en')} turns in ${conversations} generated ChatGPT conversations, ${textMb.toFixed(1)} MB of turn text (${Math.round((textMb * 1e6) / total).toLocaleString('en')} characters a turn on average: user 200–400, answers 1,000–3,000, 1 turn in 50 a 10,000–20,000-character document; ${(json.length / 1e6).toFixed(1)} MB JSON${runtime === 'browser' ? `, ${(zip.length / 1e6).toFixed(1)} MB zip` : ''}), ${reps} timed repetitions after ${warmups === 1 ? 'one warm-up' : `${warmups} warm-ups`}, each into a fresh database (${new Date().toISOString()}; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')} on ${(await import('node:os')).cpus().length} cores — the machine was shared).`,
    '',
    '| rate | turns/s median | turns/s p95 (slow end) | MB of text/s median | MB/s p95 |',
    '|---|---:|---:|---:|---:|',
    row(
      `${label}, wall clock`,
      runs.map((r) => r.turns / r.seconds),
    ),
    ...(e2e
      ? [
          row(
            'app dialog end to end (scan + import), wall clock',
            runs.map((r) => r.turns / (r.seconds + r.scanSeconds!)),
          ),
        ]
      : []),
    ...(base
      ? [
          row(
            'baseline: appendTurns of the same turns, no file, wall clock',
            baseline.map((r) => r.turns / r.seconds),
          ),
        ]
      : []),
    ...(cpuRate
      ? [
          row(
            `${runtime === 'cli' ? 'npm run import' : 'engine import'}, turns per CPU-second of this process`,
            runs.map((r) => r.turns / r.cpuSeconds!),
          ),
        ]
      : []),
    ...(runtime === 'node'
      ? [
          row(
            'baseline, turns per CPU-second',
            baseline.map((r) => r.turns / r.cpuSeconds!),
          ),
        ]
      : []),
    ...(base ? ['', `Import / baseline (medians, wall time): ${(rate.median / base.median).toFixed(2)}.`] : []),
    ...(runtime === 'cli'
      ? [
          '',
          `Peak resident memory of the process: ${runs.map((r) => `${Math.round(r.peakRss! / 1048576)} MB (${Math.round(r.rssBefore! / 1048576)} MB before the run: the generated export this benchmark holds)`).join(' / ')} per repetition.`,
        ]
      : []),
    ...(runtime === 'browser'
      ? [
          '',
          `Scan (the file read once before the import, to count and estimate): ${runs.map((r) => r.scanSeconds!.toFixed(1)).join(' / ')} s per repetition.`,
        ]
      : []),
    ...(runtime === 'browser' ? browserDetails(runs, before, compare, total, textMb) : []),
    ...(runtime === 'browser'
      ? ['', `Load average (1 min) at the start of each repetition: ${loads.map((x) => x.toFixed(1)).join(' / ')}.`]
      : []),
    '',
    runtime === 'browser'
      ? `Target 1,000 turns/s end to end: ${e2e!.median >= 1000 ? 'met' : 'not met'} by the median (${f(e2e!.median)}).`
      : `Target 2,000 turns/s: ${rate.median >= 2000 ? 'met' : 'not met'} by the median wall-clock rate; ${cpuRate!.median >= 2000 ? 'met' : 'not met'} per CPU-second (${f(cpuRate!.median)}).`,
  ].join('\n');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${md}\n`);
  console.log(md);
}

if (process.argv[1]?.endsWith('importHistory.ts')) await main();
