/**
 * The ingest benchmark: how fast turns go into memory, with repetitions.
 *
 *   npm run bench -- ingest --data <LoCoMo | LongMemEval file> [--runtime node|browser] [--reps 5] [--out report.json] [--no-build]
 *
 * One repetition ingests every corpus of the dataset into a fresh database through the real
 * write path (bench/host/BenchEngineHost.ts `ingestCorpus`: MemoryEngine.appendTurns, one
 * transaction per session, then the background embedding indexer until it is idle) — in Node on
 * an in-memory database, or in headless Chromium in a worker on OPFS with the model worker's
 * embedder (`--runtime browser`). The model is loaded and one untimed repetition runs first
 * (warm-up); then `--reps` timed repetitions. Per repetition: capture turns/s (appendTurns until
 * the last session is committed) and end-to-end turns/s (until every turn also has its vector).
 * Reported: median and p95 over repetitions (p95 of a rate = the slow end, the rate 95% of
 * repetitions beat), against the target of 1,000 turns/s in the browser.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BenchCorpusInput, BenchIngestTiming } from './host/benchProtocol';
import { nodeVectorIndex } from '../src/wasm/nodeVectorKernel';
import { createBenchEngine, ingestCorpus, warmUpEmbedder } from './host/BenchEngineHost';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { localEmbedderProvider } from '../src/models/localEmbedderProvider';
import { configureNodeEnv } from '../src/models/nodeEnv';
import type { BenchDataset } from './datasets';
import { TARGETS } from './report';
import { benchPageInput } from './recall';
import { rateStats, type RateStats } from './stats';

export interface IngestRep {
  readonly turns: number;
  readonly captureSeconds: number;
  readonly seconds: number;
  readonly captureTurnsPerSecond: number;
  readonly turnsPerSecond: number;
}

export interface IngestReport {
  readonly dataset: string;
  readonly source: string;
  readonly runtime: 'node' | 'browser';
  readonly commit: string | null;
  readonly createdAt: string;
  readonly corpora: number;
  readonly turns: number;
  readonly reps: readonly IngestRep[];
  readonly captureTurnsPerSecond: RateStats;
  readonly turnsPerSecond: RateStats;
  readonly target: { readonly turnsPerSecond: number; readonly metByMedianEndToEnd: boolean; readonly metByMedianCapture: boolean };
}

/** One repetition's totals from its corpora's timings. */
export function repFromTimings(timings: readonly BenchIngestTiming[]): IngestRep {
  const turns = timings.reduce((n, t) => n + t.turns, 0);
  const captureSeconds = timings.reduce((n, t) => n + t.captureMs, 0) / 1000;
  const seconds = captureSeconds + timings.reduce((n, t) => n + t.embedMs, 0) / 1000;
  return {
    turns,
    captureSeconds,
    seconds,
    captureTurnsPerSecond: captureSeconds > 0 ? turns / captureSeconds : 0,
    turnsPerSecond: seconds > 0 ? turns / seconds : 0,
  };
}

/** Corpora as the benchmark page takes them: turns only, no questions (nothing is ranked). */
export function ingestInputs(dataset: BenchDataset): BenchCorpusInput[] {
  return dataset.corpora.map((c) => ({ ...benchPageInput(c), questions: [] }));
}

export interface IngestOptions {
  readonly runtime: 'node' | 'browser';
  readonly reps: number;
  readonly commit: string | null;
  readonly progress?: (line: string) => void;
}

async function nodeRepetitions(
  corpora: readonly BenchCorpusInput[],
  count: number,
  progress: (line: string) => void,
): Promise<BenchIngestTiming[][]> {
  const embedders = localEmbedderProvider(configureNodeEnv());
  await warmUpEmbedder(embedders);
  const reps: BenchIngestTiming[][] = [];
  for (let r = 0; r < count; r++) {
    const timings: BenchIngestTiming[] = [];
    for (const corpus of corpora) {
      const store = await openNodeStore();
      const engine = createBenchEngine(store, embedders, (await nodeVectorIndex()).factory);
      try {
        await engine.start();
        timings.push((await ingestCorpus(engine, corpus)).timing);
      } finally {
        engine.stop();
        await store.db.close();
      }
    }
    reps.push(timings);
    progress(`repetition ${r + 1}/${count}`);
  }
  return reps;
}

async function browserRepetitions(
  corpora: readonly BenchCorpusInput[],
  count: number,
  progress: (line: string) => void,
): Promise<BenchIngestTiming[][]> {
  const { openBenchPage } = await import('./browserHarness');
  const bench = await openBenchPage();
  try {
    const reps: BenchIngestTiming[][] = [];
    for (let r = 0; r < count; r++) {
      const timings: BenchIngestTiming[] = [];
      for (const corpus of corpora) {
        const result = await bench.page.evaluate((c) => window.recollectBench!.recallCorpus(c, { warmup: 0 }), corpus);
        timings.push(result.ingest);
      }
      reps.push(timings);
      progress(`repetition ${r + 1}/${count}`);
    }
    return reps;
  } finally {
    await bench.close();
  }
}

export async function runIngest(dataset: BenchDataset, options: IngestOptions): Promise<IngestReport> {
  const corpora = ingestInputs(dataset);
  const progress = options.progress ?? (() => undefined);
  const run = options.runtime === 'browser' ? browserRepetitions : nodeRepetitions;
  // The first repetition is the warm-up (JIT, OPFS, model caches) and is not reported.
  const all = await run(corpora, options.reps + 1, (line) => progress(line.replace(/^repetition 1\//, 'warm-up 1/')));
  const reps = all.slice(1).map(repFromTimings);
  const capture = rateStats(reps.map((r) => r.captureTurnsPerSecond));
  const endToEnd = rateStats(reps.map((r) => r.turnsPerSecond));
  return {
    dataset: dataset.name,
    source: dataset.source,
    runtime: options.runtime,
    commit: options.commit,
    createdAt: new Date().toISOString(),
    corpora: corpora.length,
    turns: reps[0]?.turns ?? 0,
    reps,
    captureTurnsPerSecond: capture,
    turnsPerSecond: endToEnd,
    target: {
      turnsPerSecond: TARGETS.captureTurnsPerSecond,
      metByMedianEndToEnd: endToEnd.median >= TARGETS.captureTurnsPerSecond,
      metByMedianCapture: capture.median >= TARGETS.captureTurnsPerSecond,
    },
  };
}

export function ingestSummary(r: IngestReport): string {
  const f = (x: number) => Math.round(x).toLocaleString('en');
  return [
    `# Ingest: ${r.dataset} (${r.runtime})`,
    '',
    `${r.turns.toLocaleString('en')} turns in ${r.corpora} fresh databases per repetition, ${r.reps.length} timed repetitions after one warm-up (commit ${r.commit ?? 'unknown'}, ${r.createdAt}).`,
    '',
    '| turns/s | median | p95 (slow end) | min | max |',
    '|---|---:|---:|---:|---:|',
    `| capture (appendTurns, one transaction per session) | ${f(r.captureTurnsPerSecond.median)} | ${f(r.captureTurnsPerSecond.p95)} | ${f(r.captureTurnsPerSecond.min)} | ${f(r.captureTurnsPerSecond.max)} |`,
    `| end to end (until every turn has its vector) | ${f(r.turnsPerSecond.median)} | ${f(r.turnsPerSecond.p95)} | ${f(r.turnsPerSecond.min)} | ${f(r.turnsPerSecond.max)} |`,
    '',
    `Target (browser runtime) ${f(r.target.turnsPerSecond)} turns/s: end to end ${r.target.metByMedianEndToEnd ? 'met' : 'not met'}, capture ${r.target.metByMedianCapture ? 'met' : 'not met'} (medians${r.runtime === 'browser' ? '' : '; this is the Node runtime'}).`,
    ...(r.runtime === 'browser'
      ? [
          '',
          "One benchmark worker serves every corpus (like the app's long-lived engine worker), each corpus in its own fresh OPFS file; the embedder runs in the model worker.",
        ]
      : []),
  ].join('\n');
}

export async function writeIngestReport(report: IngestReport, out: string): Promise<{ json: string; md: string }> {
  await mkdir(dirname(out), { recursive: true });
  const stem = out.replace(/\.json$/i, '');
  const paths = { json: `${stem}.json`, md: `${stem}.md` };
  await writeFile(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(paths.md, `${ingestSummary(report)}\n`);
  return paths;
}
