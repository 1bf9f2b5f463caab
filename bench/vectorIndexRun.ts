/**
 * The vector index benchmark's measurement, platform-free so Node and the browser page run the
 * same code (bench/vector-index.ts drives both). Random unit vectors of the embedding shape; the
 * JS float32 brute force is the baseline measured in the same run. For the quantised index it
 * reports the index alone and the index plus exact rescoring of its over-fetched candidates
 * (what SemanticIndex does, reading floats here from memory instead of SQLite).
 */
import { rescoreDepth } from '../src/core/capture/SemanticIndex';
import type { VectorHit, VectorIndexFactory, VectorSearchIndex } from '../src/core/capture/vectorIndex';
import { seededRandom } from './seededRandom';
import { percentile } from './stats';

export interface VectorBenchOptions {
  readonly n: number;
  readonly dim: number;
  readonly queries: number;
  readonly k: number;
  readonly warmup: number;
  readonly seed: number;
}

export interface LatencyMs {
  readonly p50: number;
  readonly p95: number;
  readonly mean: number;
}

export interface VectorIndexResult {
  readonly kind: string;
  readonly buildMs: number;
  readonly vectorBytes: number;
  /** Top-k query latency of the index alone. */
  readonly latencyMs: LatencyMs;
  /** With exact rescoring of rescoreDepth(k) candidates (approximate indexes only). */
  readonly rescoredLatencyMs: LatencyMs | null;
  /** Fraction of the exact top 10 found in this index's top 10 (alone, then rescored). */
  readonly top10Agreement: number;
  readonly top10AgreementRescored: number | null;
}

export interface VectorBenchResult {
  readonly options: VectorBenchOptions;
  readonly baseline: VectorIndexResult;
  readonly candidates: readonly VectorIndexResult[];
}

const rng = seededRandom;

/** n unit vectors, Gaussian components (Box–Muller), in one buffer. */
function randomUnitVectors(n: number, dim: number, rand: () => number): Float32Array {
  const out = new Float32Array(n * dim);
  for (let r = 0; r < n; r++) {
    let norm = 0;
    for (let i = 0; i < dim; i++) {
      const x = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      out[r * dim + i] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < dim; i++) out[r * dim + i]! /= norm;
  }
  return out;
}

function latency(samples: number[]): LatencyMs {
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

function rescore(hits: readonly VectorHit[], data: Float32Array, dim: number, q: Float32Array, k: number): VectorHit[] {
  return hits
    .map((h) => {
      const o = Number(h.id) * dim;
      let s = 0;
      for (let i = 0; i < dim; i++) s += data[o + i]! * q[i]!;
      return { id: h.id, score: s };
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

function overlap(a: readonly VectorHit[], truth: ReadonlySet<string>): number {
  return a.filter((h) => truth.has(h.id)).length;
}

export function runVectorBench(
  factories: { baseline: VectorIndexFactory; candidates: readonly VectorIndexFactory[] },
  options: VectorBenchOptions,
  progress: (line: string) => void = () => {},
): VectorBenchResult {
  const { n, dim, k } = options;
  const rand = rng(options.seed);
  progress(`generating ${n} × ${dim} random unit vectors`);
  const data = randomUnitVectors(n, dim, rand);
  const queries = randomUnitVectors(options.queries + options.warmup, dim, rand);
  const query = (i: number) => queries.subarray(i * dim, (i + 1) * dim);

  const build = (factory: VectorIndexFactory): { index: VectorSearchIndex; ms: number } => {
    const t0 = performance.now();
    const index = factory.create(dim, n);
    for (let r = 0; r < n; r++) index.add(String(r), data.subarray(r * dim, (r + 1) * dim));
    return { index, ms: performance.now() - t0 };
  };

  progress(`building the baseline (${factories.baseline.kind})`);
  const base = build(factories.baseline);
  const truth10: Set<string>[] = [];
  const baseTimes: number[] = [];
  for (let i = 0; i < options.warmup + options.queries; i++) {
    const t0 = performance.now();
    base.index.search(query(i), k);
    if (i >= options.warmup) baseTimes.push(performance.now() - t0);
    if (i >= options.warmup) truth10.push(new Set(base.index.search(query(i), 10).map((h) => h.id)));
  }
  const baseline: VectorIndexResult = {
    kind: base.index.kind,
    buildMs: base.ms,
    vectorBytes: base.index.vectorBytes,
    latencyMs: latency(baseTimes),
    rescoredLatencyMs: null,
    top10Agreement: 1,
    top10AgreementRescored: null,
  };
  // Free the baseline before building the next index (the browser tab has one heap).
  base.index.clear();

  const candidates = factories.candidates.map((factory) => {
    progress(`building ${factory.kind}`);
    const { index, ms } = build(factory);
    const times: number[] = [];
    const rescoredTimes: number[] = [];
    let agree = 0;
    let agreeRescored = 0;
    for (let i = 0; i < options.warmup + options.queries; i++) {
      const q = query(i);
      const t0 = performance.now();
      index.search(q, k);
      const alone = performance.now() - t0;
      if (!index.exact) {
        const t1 = performance.now();
        rescore(index.search(q, rescoreDepth(k)), data, dim, q, k);
        if (i >= options.warmup) rescoredTimes.push(performance.now() - t1);
      }
      if (i < options.warmup) continue;
      times.push(alone);
      const truth = truth10[i - options.warmup]!;
      agree += overlap(index.search(q, 10), truth);
      if (!index.exact) agreeRescored += overlap(rescore(index.search(q, rescoreDepth(10)), data, dim, q, 10), truth);
    }
    const result: VectorIndexResult = {
      kind: index.kind,
      buildMs: ms,
      vectorBytes: index.vectorBytes,
      latencyMs: latency(times),
      rescoredLatencyMs: index.exact ? null : latency(rescoredTimes),
      top10Agreement: agree / (10 * options.queries),
      top10AgreementRescored: index.exact ? null : agreeRescored / (10 * options.queries),
    };
    index.clear();
    return result;
  });
  return { options, baseline, candidates };
}
