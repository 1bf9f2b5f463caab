/**
 * Throughput of the bundled offline model in Node (onnxruntime-node, CPU): sentences/s through
 * TransformersEmbedder (batch 32), through its runtime-free lookup (StaticEmbedder, what the app
 * runs) and pairs/s through TransformersReranker. Warm-up, then
 * repetitions; prints median and p95 per repetition. Build the model first:
 *   node scripts/build-offline-model.mjs && npx tsx bench/embed-throughput.ts [--reps 7] [--n 2048] [--chars 1100] [--out file.json]
 * With `--runtime browser` the same measurement runs in the app's model worker in headless
 * Chromium (WASM backend): it builds the app first (`--no-build`: refuses a dist/ older than the source). `--out` writes the medians and p95s as JSON
 * (bench/results/embed-throughput-*.json): docs/models.md quotes its figures from those files only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLED_MODEL_ID, findModel } from '../src/models/catalog';
import { configureNodeEnv, nodeStaticReader } from '../src/models/nodeEnv';
import { StaticEmbedder } from '../src/models/StaticEmbedder';
import { TransformersEmbedder } from '../src/models/TransformersEmbedder';
import { TransformersReranker } from '../src/models/TransformersReranker';
import { rateStats } from './stats';

const { values: args } = parseArgs({
  options: {
    reps: { type: 'string' },
    n: { type: 'string' },
    runtime: { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean' },
    chars: { type: 'string' },
  },
  strict: true,
});
const positive = (name: string, raw: string | undefined, fallback: number) => {
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} needs a positive integer, not ${raw}`);
  return n;
};
const REPS = positive('reps', args.reps, 7);
const N = positive('n', args.n, 2048);
/** Each text is sentences joined up to at least this many characters (a real turn is ≈ 1,100). */
const CHARS = positive('chars', args.chars, 1100);
if (args.runtime !== undefined && args.runtime !== 'node' && args.runtime !== 'browser')
  throw new Error(`--runtime is node or browser, not ${args.runtime}`);
const BATCH = 32;

const WORDS = (
  'i we you my our the a dog puppy walk park yesterday tomorrow meeting work project deadline ' +
  'mother sister doctor appointment coffee dinner restaurant paris trip flight hotel birthday ' +
  'party gift book movie music guitar lesson school exam garden tomatoes weather rain sunny ' +
  'bank money rent apartment move city new old love hate think remember forgot need want'
).split(' ');

function sentences(n: number, chars: number, seed = 1): string[] {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const sentence = () => {
    const len = 6 + Math.floor(rand() * 18);
    return Array.from({ length: len }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + '.';
  };
  return Array.from({ length: n }, () => {
    let text = sentence();
    while (text.length < chars) text += ` ${sentence()}`;
    return text;
  });
}

interface Rate {
  readonly median: number;
  readonly p95: number;
  readonly reps: number;
}

/** Median and slow-end p95 (the rate 95% of runs beat) of the per-repetition rates. */
function stats(rates: number[]): Rate {
  const { median, p95 } = rateStats(rates);
  return { median, p95, reps: rates.length };
}

const fmt = (x: Rate) => `median ${x.median.toFixed(0)}/s, p95 ${x.p95.toFixed(0)}/s (${x.reps} reps)`;

/** Writes the run's figures for the docs (rounded to whole items per second). */
function save(runtime: string, extra: Record<string, unknown>, embed: Rate, rerank: Rate): void {
  if (!args.out) return;
  const round = (x: Rate) => ({ median: Math.round(x.median), p95: Math.round(x.p95), reps: x.reps });
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify(
      {
        bench: 'embed-throughput',
        runtime,
        date: new Date().toISOString(),
        n: N,
        meanChars: Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length),
        batch: BATCH,
        cpus: cpus().length,
        loadAverage1m: Math.round(loadavg()[0]! * 10) / 10,
        ...extra,
        embedSentencesPerSecond: round(embed),
        rerankPairsPerSecond: round(rerank),
      },
      null,
      2,
    )}\n`,
  );
  console.log(`wrote ${args.out}`);
}

async function measure(label: string, run: () => Promise<unknown>, items: number): Promise<Rate> {
  await run(); // warm-up
  await run();
  const rates: number[] = [];
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now();
    await run();
    rates.push(items / ((performance.now() - t0) / 1000));
  }
  const r = stats(rates);
  console.log(`${label}: ${fmt(r)}`);
  return r;
}

const texts = sentences(N, CHARS);

if (args.runtime === 'browser') {
  const { openBenchPage } = await import('./browserHarness');
  const { ensureAppBuild } = await import('./appBuild');
  ensureAppBuild(!args['no-build'], (line) => console.log(line));
  const bench = await openBenchPage();
  try {
    const r = await bench.page.evaluate(([t, reps]) => window.recollectBench!.modelThroughput(t, reps), [texts, REPS] as const);
    console.log(`browser model worker (device ${r.device}), first embed incl. load ${r.loadMs.toFixed(0)} ms`);
    console.log(`embed ${N} sentences: ${fmt(r.embed)}`);
    console.log(`rerank ${N} pairs: ${fmt(r.rerank)}`);
    save(
      'browser',
      {
        embedPath: `the app's model worker, bundled embedder (device ${r.device ?? 'lookup'})`,
        device: r.device,
        loadMs: Math.round(r.loadMs),
      },
      r.embed,
      r.rerank,
    );
  } finally {
    await bench.close();
  }
  process.exit(0);
}

configureNodeEnv();
let t0 = performance.now();
const embedder = await TransformersEmbedder.create(BUNDLED_MODEL_ID, { batchSize: BATCH });
console.log(`embedder load ${(performance.now() - t0).toFixed(0)} ms`);
t0 = performance.now();
const reranker = await TransformersReranker.create(BUNDLED_MODEL_ID, { batchSize: BATCH });
console.log(`reranker load ${(performance.now() - t0).toFixed(0)} ms`);

t0 = performance.now();
const lookup = await StaticEmbedder.load(findModel(BUNDLED_MODEL_ID, 'embedder')!, nodeStaticReader(BUNDLED_MODEL_ID));
console.log(`lookup load ${(performance.now() - t0).toFixed(0)} ms`);

const graphRate = await measure(`embed ${N} sentences, ONNX graph, batch ${BATCH}`, () => embedder.embed(texts), N);
const lookupRate = await measure(`embed ${N} sentences, lookup (no runtime; what the app runs)`, () => lookup.embed(texts), N);
const query = 'remember the dinner with my sister in paris';
const rerankRate = await measure(`rerank ${N} pairs, batch ${BATCH}`, () => reranker.rerank(query, texts), N);
save(
  'node',
  {
    embedPath: 'StaticEmbedder lookup (what the app runs for the bundled model)',
    onnxGraphSentencesPerSecond: { median: Math.round(graphRate.median), p95: Math.round(graphRate.p95), reps: graphRate.reps },
    onnxGraphBackend: 'onnxruntime-node (CPU)',
  },
  lookupRate,
  rerankRate,
);
await embedder.dispose();
await reranker.dispose();
