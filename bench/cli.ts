/**
 * Benchmark entry:
 *   npm run bench -- recall --data <LoCoMo json | LongMemEval json file or folder>
 *       [--runtime node|browser] [--k 1,3,5,10,20] [--out report.json] [--no-baselines] [--no-vectors]
 *       [--set weights.vector=0.3 ...] [--sweep variants.json] [--rerank [spec,spec,…]] [--no-build]
 *
 * --runtime browser runs `npm run build` (skip with --no-build when dist/ is current), then drives
 * bench.html in headless Chromium: the same engine in a worker on OPFS, the default retrieval
 * config, no baselines (those come from the node runtime); --set, --sweep, --rerank and
 * --no-vectors are node-only.
 * --set overrides one RETRIEVAL_CONFIG knob (src/core/fusion.ts) for this run; --sweep evaluates
 * several named configs over one ingest ({"name": {"weights": {"vector": 0.3}}, ...}) and prints
 * their recall.turn@k — tune on the dev split only. RECALL_DUMP=<file> appends one JSON line per
 * system (and variant) and question: recall@10, the top 10 and the evidence ids. --rerank adds the rerank stage with the
 * bundled stand-in reranker, or with each reranker of a comma-separated list over one ingest: a
 * local catalog model id, `oracle` or `random`, each optionally `=trust` (0..1); the first is
 * "ours", the others are reported as "reranked <spec>", all beside "fused" (the rerank stage off).
 *   npm run bench -- ingest --data <file|folder> [--runtime node|browser] [--reps 5] [--out report.json] [--no-build]
 * times ingest alone (capture and end to end), with a warm-up and repetitions (bench/ingest.ts).
 *   npm run bench -- construction --data <LoCoMo json> --policy eager|recurrence|off [--out report.json]
 *   npm run bench -- scale --data <file|folder> [--data …] --sizes 10000,30000,100000 [--runtime node|browser] [--questions 150] [--out report.json] [--db kept.sqlite]
 * grows one database by appending corpora and measures it at each size (bench/scale.ts); with --db
 * (Node) in that file, kept, continued by the next run and copied at each checkpoint.
 *   npm run bench -- scale-sweep --db <kept.sqlite> --data … [--questions 150] [--sweep variants.json] [--set path=value …]
 * ranks the scale run's questions on a kept database by read-path variants and BM25 alone (bench/scaleSweep.ts).
 * Arguments are parsed strictly by bench/cliArgs.ts (node:util parseArgs); --set refuses unknown knobs.
 *   npm run bench -- crash --trials N [--out report.json] [--seed S] [--no-build]
 * kills the renderer, the engine worker or the browser while turns are appended, a history or memory
 * import runs or the embedder is switched, and checks what was kept (bench/crash.ts).
 *   npm run bench -- vectors [--runtime node|browser] [--n 100000] [--dim 384] [--queries 200] [--k 100] [--out report.json]
 * times the WASM SIMD int8 vector index against the JS brute force in the same run (bench/vector-index.ts).
 *   npm run bench -- cold-open --profile <dir> [--dist <dir>] [--reps 5] [--question text] [--out report.json]
 * times a new page's cold open of a database a `scale --profile <dir>` run kept (bench/coldOpen.ts).
 *   npm run bench -- markdown-limits [--reps 5] [--dist dist] [--before <dist>] [--before-reps 2] [--cap 120] [--out bench/results/markdown-limits.md]
 * the longest main-thread task while a conversation holding one Markdown fixture opens, and while a key is typed (bench/markdownLimits.ts).
 *   npm run bench -- multilingual [--data bench/data/multilingual] [--out report.json]
 * known-item recall per language for message search and recall, and a tokenizer comparison (bench/multilingual.ts).
 *   npm run bench -- delete-during-indexing [--reps 5] [--warmup 1] [--conversations 500] [--out report.json]
 * times deleting a conversation and a message while the first open embeds the memory, against the same after indexing (bench/deleteDuringIndexing.ts).
 *   npm run bench -- delete-profile [--reps 3] [--conversations 470] [--context incognito|profile|both] [--out report.json]
 * where a conversation's deletion spends its time, statement by statement, with the OPFS calls of each (bench/deleteProfile.ts).
 *   npm run bench -- sync [--turns 10000] [--reps 20] [--warmup 3] [--out report.json]
 * first sync of a memory to a new device and the steady-state round trip, through the engine and a relay on loopback (bench/syncEngine.ts).
 * A progress line goes to stderr; the summary table to stdout.
 */
import { readFile } from 'node:fs/promises';
import { withConfig, type DeepPartial, type RetrievalConfig } from '../src/core/recall/fusion';
import { BUNDLED_MODEL_ID } from '../src/models/catalog';
import { loadDataset } from './datasets';
import { runRecall, runRecallBrowser } from './recall';
import { buildReport, writeReport } from './report';
import { printConstruction, runConstruction } from './construction';
import { QA_USAGE, qaCommand } from './qa';
import { ingestSummary, runIngest, writeIngestReport } from './ingest';
import { VECTORS_USAGE, vectorsCommand } from './vector-index';
import { BenchUsageError, parseConstructionArgs, parseIngestArgs, parseRecallArgs, parseScaleArgs, setKnob, USAGE } from './cliArgs';
import { browserDriver, gitCommit as commit, loadScaleCorpora, nodeDriver, runScale } from './scale';
import { scaleSummary, writeScaleReport } from './scaleReport';
import { crashCommand } from './crash';
import { MULTILINGUAL_USAGE, multilingualCommand } from './multilingual';
import { COLD_OPEN_USAGE, coldOpenCommand } from './coldOpen';
import { MARKDOWN_LIMITS_USAGE, markdownLimitsCommand } from './markdownLimits';
import { ensureAppBuild, StaleBuildError } from './appBuild';

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.stderr.write(`       ${QA_USAGE.replace(/^usage: /, '')}\n`);
  process.stderr.write(`       ${VECTORS_USAGE.replace(/^usage: /, '')}\n`);
  process.stderr.write(`       ${MULTILINGUAL_USAGE.replace(/^usage: /, '')}\n`);
  process.stderr.write(`       ${COLD_OPEN_USAGE.replace(/^usage: /, '')}\n`);
  process.stderr.write(`       ${MARKDOWN_LIMITS_USAGE.replace(/^usage: /, '')}\n`);
  process.exit(2);
}

/** Parses with `parse`; a usage error prints the message and the usage and exits 2. */
function args<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof BenchUsageError) usage(err.message);
    throw err;
  }
}

function buildApp(build: boolean, progress: (line: string) => void): void {
  try {
    ensureAppBuild(build, progress);
  } catch (err) {
    if (err instanceof StaleBuildError) usage(err.message);
    throw err;
  }
}

function progressLine(): (line: string) => void {
  const isTty = process.stderr.isTTY;
  const started = performance.now();
  return (line: string) => {
    const t = ((performance.now() - started) / 1000).toFixed(0);
    process.stderr.write(isTty ? `\r\x1b[K${t}s ${line}` : `${t}s ${line}\n`);
  };
}

async function recall(argv: string[]): Promise<void> {
  const { data, runtime, ks, out, baselines, vectors, overrides, sweep, reranker, build } = args(() =>
    parseRecallArgs(argv, BUNDLED_MODEL_ID),
  );
  const config = withConfig(overrides as DeepPartial<RetrievalConfig>);
  const variants = [{ name: 'ours', config }];
  if (sweep) {
    const spec = JSON.parse(await readFile(sweep, 'utf8')) as Record<string, Record<string, unknown>>;
    for (const [name, o] of Object.entries(spec)) {
      const merged: Record<string, unknown> = structuredClone(overrides);
      for (const [k, v] of Object.entries(o)) {
        if (v !== null && typeof v === 'object')
          for (const [k2, v2] of Object.entries(v)) args(() => setKnob(merged, `${k}.${k2}`, String(v2)));
        else args(() => setKnob(merged, k, String(v)));
      }
      variants.push({ name, config: withConfig(merged as DeepPartial<RetrievalConfig>) });
    }
  }

  const dataset = await loadDataset(data);
  const isTty = process.stderr.isTTY;
  const progress = progressLine();
  let run;
  if (runtime === 'browser') {
    buildApp(build, progress);
    run = await runRecallBrowser(dataset, { ks, progress });
  } else {
    run = await runRecall(dataset, { ks, variants, baselines, vectors, progress, ...(reranker ? { reranker } : {}) });
  }
  if (isTty) process.stderr.write('\n');
  const baselineNames = Object.keys(run.systems).filter((n) => !variants.some((v) => v.name === n));
  const report = buildReport(run, {
    runtime,
    ks,
    commit: commit(),
    config,
    ours: 'ours',
    baselineNames,
    variantNames: variants.map((v) => v.name),
  });

  const pct = (x: number | undefined) => ((x ?? 0) * 100).toFixed(1).padStart(5);
  const rows: [
    string,
    {
      recall: { turn: Record<string, number>; session?: Record<string, number> };
      recallAny?: { session: Record<string, number> };
      contextRecall?: number | null;
      mrr: number;
      latencyMs: { p50: number; p95: number };
    },
  ][] = [['ours', report], ...Object.entries(report.baselines), ...Object.entries(report.variants ?? {})];
  process.stdout.write(`${report.dataset}: ${report.questions} headline questions; recall.turn@k (%)\n`);
  const width = Math.max(22, ...rows.map(([name]) => name.length + 2));
  process.stdout.write(
    `${'system'.padEnd(width)}${ks.map((k) => `@${k}`.padStart(7)).join('')}    mrr  p50ms  p95ms  any@5  s@10  context\n`,
  );
  for (const [name, s] of rows) {
    const any5 = s.recallAny?.session[5];
    const context = s.contextRecall ?? null;
    process.stdout.write(
      `${name.padEnd(width)}${ks.map((k) => pct(s.recall.turn[k]).padStart(7)).join('')}  ${s.mrr.toFixed(3)} ${s.latencyMs.p50.toFixed(1).padStart(6)} ${s.latencyMs.p95.toFixed(1).padStart(6)} ${any5 === undefined ? '     –' : pct(any5).padStart(6)} ${pct(s.recall.session?.[10])} ${context === null ? '      –' : pct(context).padStart(7)}\n`,
    );
  }
  if (run.poolPairs)
    process.stdout.write(
      `rerank pool (pairs per question): ${Object.entries(run.poolPairs)
        .map(([n, p]) => `${n} ${p.toFixed(1)}`)
        .join(', ')}\n`,
    );
  if (report.contextRecall !== null)
    process.stdout.write(`context recall (${report.contextBudgetTokens} tokens): ${pct(report.contextRecall)}\n`);
  if (report.rerank)
    process.stdout.write(
      `rerank (trust ${report.rerank.trust}): ${report.rerank.pairsPerSecond.toFixed(0)} pairs/s, +${report.rerank.addedMs.p50.toFixed(1)} ms p50 / +${report.rerank.addedMs.p95.toFixed(1)} ms p95 per question\n`,
    );
  process.stdout.write(
    `ingest (${report.runtime}): ${report.ingest.turns} turns, ${report.ingest.captureTurnsPerSecond.toFixed(0)} turns/s capture (${report.ingest.captureSeconds.toFixed(2)} s), embedding caught up ${report.ingest.embedSeconds.toFixed(2)} s later, ${report.ingest.turnsPerSecond.toFixed(0)} turns/s end to end; db ${report.dbBytesPerTurn.toFixed(0)} B/turn\n`,
  );
  for (const note of report.notes) process.stdout.write(`note: ${note}\n`);
  if (out) {
    const paths = await writeReport(report, out);
    process.stdout.write(`wrote ${paths.json}, ${paths.md}, ${paths.svg}\n`);
  }
}

async function construction(argv: string[]): Promise<void> {
  const { data, policy, out } = args(() => parseConstructionArgs(argv));
  const report = await runConstruction({ data, policy, ...(out ? { out } : {}) });
  printConstruction(report);
  if (out) console.log(`report written to ${out}`);
}

async function ingest(argv: string[]): Promise<void> {
  const { data, runtime, reps, out, build } = args(() => parseIngestArgs(argv));
  const dataset = await loadDataset(data);
  const started = performance.now();
  const progress = (line: string) => process.stderr.write(`${((performance.now() - started) / 1000).toFixed(0)}s ${line}\n`);
  if (runtime === 'browser') buildApp(build, progress);
  const report = await runIngest(dataset, { runtime, reps, commit: commit(), progress });
  process.stdout.write(`${ingestSummary(report)}\n`);
  if (out) {
    const paths = await writeIngestReport(report, out);
    process.stdout.write(`wrote ${paths.json}, ${paths.md}\n`);
  }
}

async function scale(argv: string[]): Promise<void> {
  const a = args(() => parseScaleArgs(argv));
  const progress = progressLine();
  const corpora = await loadScaleCorpora(a.data);
  if (a.runtime === 'browser') buildApp(a.build, progress);
  const driver =
    a.runtime === 'browser'
      ? await browserDriver(progress, {
          ...(a.profile ? { profileDir: a.profile } : {}),
          ...(a.port ? { port: a.port } : {}),
          ...(a.slowdown ? { slowdown: a.slowdown } : {}),
          ...(a.nice !== undefined ? { nice: a.nice } : {}),
        })
      : await nodeDriver({ vectors: a.vectors, ...(a.db ? { db: a.db } : {}) });
  const report = await runScale(corpora, driver, {
    sizes: a.sizes,
    questions: a.questions,
    reps: a.reps,
    commit: commit(),
    sources: a.data,
    progress,
  });
  if (process.stderr.isTTY) process.stderr.write('\n');
  process.stdout.write(`${scaleSummary(report)}\n`);
  if (a.out) {
    const paths = await writeScaleReport(report, a.out);
    process.stdout.write(`wrote ${paths.json}, ${paths.md}, ${paths.svg}\n`);
  }
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'recall') await recall(rest);
else if (command === 'ingest') await ingest(rest);
else if (command === 'construction') await construction(rest);
else if (command === 'scale') await scale(rest);
else if (command === 'qa') await qaCommand(rest);
else if (command === 'vectors') await vectorsCommand(rest);
else if (command === 'crash') await crashCommand(rest, usage);
else if (command === 'multilingual') await multilingualCommand(rest, progressLine());
else if (command === 'cold-open') await coldOpenCommand(rest, progressLine(), usage);
else if (command === 'markdown-limits') await markdownLimitsCommand(rest, progressLine(), usage);
else if (command === 'delete-during-indexing')
  await (await import('./deleteDuringIndexing')).deleteDuringIndexingCommand(rest, progressLine(), usage);
else if (command === 'delete-profile') await (await import('./deleteProfile')).deleteProfileCommand(rest, progressLine(), usage);
else if (command === 'sync') await (await import('./syncEngine')).syncBenchCommand(rest, progressLine(), usage);
else if (command === 'scale-sweep') await (await import('./scaleSweep')).scaleSweepCommand(rest, progressLine());
else usage(command ? `unknown command ${command}` : undefined);
