/**
 * The scale benchmark: ONE database grown by appending corpora (LoCoMo conversations, LongMemEval
 * haystacks) through the real write path, measured at each size in `sizes`:
 *
 *   npm run bench -- scale --data <file|folder> [--data …] --sizes 10000,30000,100000
 *       [--runtime node|browser] [--questions 150] [--reps 3] [--out report.json] [--no-vectors] [--no-build]
 *       [--db kept.sqlite (Node) | --profile <dir> (browser)]
 *
 * Corpora are appended whole, in the order given (files in order, corpora in file order), each
 * with its ids prefixed by its corpus id so ids stay unique when haystacks share filler sessions;
 * a checkpoint is taken at the first corpus boundary at or past each size. At a checkpoint, the
 * synthesised layer is added for the turns appended since the last one (episodes, facts, themes,
 * profile, plans made from the turns' own text: bench/scaleLayer.ts), then the questions whose
 * evidence is in the database — the most recently added first, `questions` of them — are ranked
 * by our recall and by FTS5 BM25 alone over the same database (same run), and scored
 * (recall@1/5/10, turn and session); the answer's whole memory read (turns, facts, episodes,
 * profile, plans: MemoryEngine.answerContext) is timed in turn with them on each question. When the data runs out before a size, the run says
 * so and stops there. The engine side is bench/host/ScaleBenchHost.ts, the same in both runtimes:
 * Node (in-memory database, one process) or the browser (the benchmark worker on OPFS in headless
 * Chromium, embedder in the model worker), where each checkpoint also times a cold open.
 */
import { execFileSync } from 'node:child_process';
import {
  DEFAULT_SCALE_REPS,
  type BenchCorpusInput,
  type BenchIngestTiming,
  type ScaleLayerResult,
  type ScaleMeasureOptions,
  type ScaleMeasurement,
  type ScaleQuestionInput,
} from './host/benchProtocol';
import { loadDataset, type BenchCorpus, type BenchQuestion } from './datasets';
import { benchPageInput } from './recall';
import { aggregate, scoreQuestion } from './scoring';
import { percentile } from './stats';
import type { ScaleAnswerPoint, ScaleFullSpeedPoint, ScalePoint, ScaleReport, ScaleSystemPoint } from './scaleReport';

export const SCALE_KS = [1, 5, 10] as const;

/** One corpus ready to append: its page input (ids prefixed) and its scorable questions. */
export interface ScaleCorpus {
  readonly id: string;
  readonly input: BenchCorpusInput;
  readonly turns: number;
  /** Characters of turn text (ingest cost follows it more than the turn count). */
  readonly chars: number;
  readonly questions: readonly BenchQuestion[];
  readonly sessionOf: ReadonlyMap<string, string>;
}

/** Prefixes every turn and session id (and the evidence naming them) with `prefix/`. */
export function prefixCorpus(corpus: BenchCorpus, prefix: string): BenchCorpus {
  const p = (id: string) => `${prefix}/${id}`;
  return {
    id: prefix,
    speakers: corpus.speakers,
    sessions: corpus.sessions.map((s) => ({
      id: p(s.id),
      date: s.date,
      turns: s.turns.map((t) => ({ ...t, id: p(t.id), sessionId: p(t.sessionId) })),
    })),
    questions: corpus.questions.map((q) => ({
      ...q,
      id: p(q.id),
      evidenceTurns: q.evidenceTurns.map(p),
      evidenceSessions: q.evidenceSessions.map(p),
    })),
  };
}

/** Loads every path and lists its corpora in append order, ids unique across the whole run. */
export async function loadScaleCorpora(paths: readonly string[]): Promise<ScaleCorpus[]> {
  const out: ScaleCorpus[] = [];
  const used = new Map<string, number>();
  for (const path of paths) {
    const dataset = await loadDataset(path);
    for (const corpus of dataset.corpora) {
      // The same corpus given twice (a repeated file) is appended again under a new prefix.
      const n = (used.get(corpus.id) ?? 0) + 1;
      used.set(corpus.id, n);
      const prefixed = prefixCorpus(corpus, n === 1 ? corpus.id : `${corpus.id}~${n}`);
      out.push({
        id: prefixed.id,
        input: benchPageInput(prefixed),
        turns: prefixed.sessions.reduce((k, s) => k + s.turns.length, 0),
        chars: prefixed.sessions.reduce((k, s) => k + s.turns.reduce((c, t) => c + t.text.length, 0), 0),
        // Scorable: headline questions with turn evidence (turn recall needs it).
        questions: prefixed.questions.filter((q) => q.headline && q.evidenceTurns.length > 0),
        sessionOf: new Map(prefixed.sessions.flatMap((s) => s.turns.map((t) => [t.id, s.id] as const))),
      });
    }
  }
  return out;
}

/** Up to `n` scorable questions of the corpora added so far, the most recently added first. */
export function newestQuestions(added: readonly ScaleCorpus[], n: number): BenchQuestion[] {
  const questions: BenchQuestion[] = [];
  for (let i = added.length - 1; i >= 0 && questions.length < n; i--) {
    const qs = added[i]!.questions;
    for (let j = qs.length - 1; j >= 0 && questions.length < n; j--) questions.push(qs[j]!);
  }
  return questions;
}

/** Slowed (the driver's `--slowdown`, if any) or at full speed. */
export type MeasureSpeed = 'slowed' | 'full';

/** The measured engine, whichever runtime hosts it. */
export interface ScaleDriver {
  readonly runtime: 'node' | 'browser';
  /** Opens the database; `turns` > 0 when it already holds the first corpora (a kept Node database, `--db`). */
  open(): Promise<{ embedderId: string | null; turns?: number }>;
  append(corpus: BenchCorpusInput): Promise<BenchIngestTiming>;
  /** Writes the synthesised layer (bench/scaleLayer.ts) for the turns not yet in an episode; returns what the database then holds. */
  addLayer(): Promise<ScaleLayerResult>;
  /** `speed` 'full': at full speed even when the driver has a slowdown (the same run's baseline). */
  measure(questions: readonly ScaleQuestionInput[], options: ScaleMeasureOptions, speed?: MeasureSpeed): Promise<ScaleMeasurement>;
  /** Engine memory in bytes after `m` (Node: the process's JS heap + external; browser: the benchmark worker's heap + SQLite's WebAssembly memory). */
  memory(m: ScaleMeasurement): Promise<number>;
  /** Browser: ms from a new page's navigation to its first search result on this database; Node: null. */
  coldOpen(question: ScaleQuestionInput, speed?: MeasureSpeed): Promise<number | null>;
  /** Browser with --slowdown: what the measurements (not the growth) ran under. */
  readonly slowdown?: ScaleReport['slowdown'] | null;
  /** After each checkpoint: a kept Node database (`--db`) copies itself beside the file, named by its turns. */
  checkpoint?(turns: number): Promise<void>;
  close(): Promise<void>;
}

export interface ScaleOptions {
  readonly sizes: readonly number[];
  readonly questions: number;
  /** Timed passes over the questions at each size (every pass counts; ScaleMeasureOptions.reps). */
  readonly reps?: number;
  readonly commit?: string | null;
  readonly sources?: readonly string[];
  readonly progress?: (line: string) => void;
}

function systemPoint(
  m: ScaleMeasurement['ours'],
  questions: readonly BenchQuestion[],
  sessionOf: (id: string) => string | undefined,
): ScaleSystemPoint {
  const scores = questions.map((q, i) => scoreQuestion(q, m.ranked[i] ?? [], sessionOf, SCALE_KS));
  const agg = aggregate(scores, SCALE_KS);
  const pick = (map: Record<string, number>) => Object.fromEntries(SCALE_KS.map((k) => [String(k), map[k] ?? 0]));
  return {
    latencyMs: { p50: percentile(m.latenciesMs, 50), p95: percentile(m.latenciesMs, 95) },
    recall: { turn: pick(agg.recall.turn), session: pick(agg.recall.session) },
  };
}

/** The answer read's latency and the mean number of items it got back per question. */
export function answerPoint(m: ScaleMeasurement['answer']): ScaleAnswerPoint {
  const n = Math.max(1, m.items.length);
  const mean = (pick: (i: ScaleMeasurement['answer']['items'][number]) => number) => m.items.reduce((k, i) => k + pick(i), 0) / n;
  return {
    latencyMs: { p50: percentile(m.latenciesMs, 50), p95: percentile(m.latenciesMs, 95) },
    meanItems: {
      turns: mean((i) => i.turns),
      facts: mean((i) => i.facts),
      episodes: mean((i) => i.episodes),
      profile: mean((i) => i.profile),
      plans: mean((i) => i.plans),
    },
  };
}

/** Grows the database through `driver` and measures it at each size. */
export async function runScale(corpora: readonly ScaleCorpus[], driver: ScaleDriver, options: ScaleOptions): Promise<ScaleReport> {
  const progress = options.progress ?? (() => undefined);
  const reps = options.reps ?? DEFAULT_SCALE_REPS;
  const sizes = [...new Set(options.sizes)].sort((a, b) => a - b);
  const available = corpora.reduce((n, c) => n + c.turns, 0);
  const notes: string[] = [];
  const points: ScalePoint[] = [];
  const opened = await driver.open();
  const { embedderId } = opened;
  const sessionOf = new Map<string, string>();
  const added: ScaleCorpus[] = [];
  let next = 0;
  let turns = 0;
  // A kept database already holds the first corpora (appended in this same order): take them as
  // added without appending them again.
  const kept = opened.turns ?? 0;
  while (kept > 0 && next < corpora.length && turns + corpora[next]!.turns <= kept) {
    const corpus = corpora[next++]!;
    turns += corpus.turns;
    added.push(corpus);
    for (const [t, s] of corpus.sessionOf) sessionOf.set(t, s);
  }
  if (turns !== kept) {
    await driver.close();
    throw new Error(
      `The kept database holds ${kept} turns, not a whole number of the given corpora (${turns} at a corpus boundary): give the same --data in the same order.`,
    );
  }
  if (kept > 0) progress(`kept database: ${kept.toLocaleString('en')} turns (${next} corpora) already in it`);
  try {
    for (const size of sizes) {
      if (size > available) {
        notes.push(
          `The data holds ${available.toLocaleString('en')} turns: not enough for ${size.toLocaleString('en')}; the run stops at ${turns.toLocaleString('en')}.`,
        );
        progress(`data runs out at ${available} turns: no checkpoint at ${size}`);
        break;
      }
      const segment = { turns: 0, chars: 0, captureMs: 0, embedMs: 0 };
      while (turns < size && next < corpora.length) {
        const corpus = corpora[next++]!;
        const timing = await driver.append(corpus.input);
        segment.turns += timing.turns;
        segment.chars += corpus.chars;
        segment.captureMs += timing.captureMs;
        segment.embedMs += timing.embedMs;
        turns += timing.turns;
        added.push(corpus);
        for (const [t, s] of corpus.sessionOf) sessionOf.set(t, s);
        const rate = segment.turns / Math.max(1e-9, (segment.captureMs + segment.embedMs) / 1000);
        progress(
          `${turns.toLocaleString('en')}/${size.toLocaleString('en')} turns (${next}/${corpora.length} corpora, ${rate.toFixed(0)} turns/s end to end)`,
        );
      }
      const layer = await driver.addLayer();
      progress(
        `${turns.toLocaleString('en')} turns: synthesised layer written in ${(layer.ms / 1000).toFixed(1)} s (${layer.episodes.toLocaleString('en')} of ${layer.cells.toLocaleString('en')} episodes synthesised, ${layer.facts.toLocaleString('en')} facts, ${layer.scenes.toLocaleString('en')} themes, ${layer.profile} profile items, ${layer.plans} plans)`,
      );
      const questions = newestQuestions(added, options.questions);
      progress(
        `${turns.toLocaleString('en')} turns: ranking ${questions.length} questions (ours, BM25 and the answer's memory read in turn on each)`,
      );
      const inputs = questions.map((q) => ({ id: q.id, text: q.text, askedAt: q.askedAt }));
      const lookup = (id: string) => sessionOf.get(id);
      // With a slowdown, the same questions at full speed first: the baseline the slowed figures are a ratio of.
      let fullSpeed: ScaleFullSpeedPoint | undefined;
      if (driver.slowdown) {
        progress(`${turns.toLocaleString('en')} turns: measuring at full speed (baseline), then ${driver.slowdown.factor}× slower`);
        const base = await driver.measure(inputs, { reps }, 'full');
        const baseCold = driver.runtime === 'browser' && inputs[0] ? await driver.coldOpen(inputs[0], 'full') : null;
        fullSpeed = {
          latencyMs: systemPoint(base.ours, questions, lookup).latencyMs,
          bm25LatencyMs: systemPoint(base.bm25, questions, lookup).latencyMs,
          answerReadLatencyMs: answerPoint(base.answer).latencyMs,
          coldOpenMs: baseCold,
        };
      }
      const m = await driver.measure(inputs, { reps });
      const heapBytes = await driver.memory(m);
      let coldOpenMs: number | null = null;
      if (driver.runtime === 'browser' && inputs[0]) {
        progress(`${turns.toLocaleString('en')} turns: cold open`);
        coldOpenMs = await driver.coldOpen(inputs[0]);
      }
      const ours = systemPoint(m.ours, questions, lookup);
      const bm25 = systemPoint(m.bm25, questions, lookup);
      points.push({
        turns: m.turns,
        questions: questions.length,
        ...ours,
        baselines: { bm25 },
        answerRead: answerPoint(m.answer),
        layer,
        ingestTurnsPerSecond: segment.turns / Math.max(1e-9, (segment.captureMs + segment.embedMs) / 1000),
        captureTurnsPerSecond: segment.turns / Math.max(1e-9, segment.captureMs / 1000),
        meanTurnChars: segment.turns ? segment.chars / segment.turns : 0,
        dbBytes: m.dbBytes,
        bytesPerTurn: m.turns ? m.dbBytes / m.turns : 0,
        heapBytes,
        coldOpenMs,
        ...(fullSpeed ? { fullSpeed } : {}),
      });
      await driver.checkpoint?.(m.turns);
      const last = points[points.length - 1]!;
      const was = (x: number | undefined) => (x === undefined ? '' : ` (full speed ${x.toFixed(0)})`);
      progress(
        `${m.turns.toLocaleString('en')} turns: ours p95 ${last.latencyMs.p95.toFixed(0)} ms${was(fullSpeed?.latencyMs.p95)} @10 ${(last.recall.turn['10']! * 100).toFixed(1)}%, bm25 p95 ${bm25.latencyMs.p95.toFixed(0)} ms @10 ${(bm25.recall.turn['10']! * 100).toFixed(1)}%, answer read p95 ${last.answerRead!.latencyMs.p95.toFixed(0)} ms${was(fullSpeed?.answerReadLatencyMs.p95)}`,
      );
    }
  } finally {
    await driver.close();
  }
  return {
    runtime: driver.runtime,
    embedder: embedderId,
    commit: options.commit ?? null,
    createdAt: new Date().toISOString(),
    sources: options.sources ?? [],
    availableTurns: available,
    reps,
    ...(driver.slowdown ? { slowdown: driver.slowdown } : {}),
    points,
    notes,
  };
}

/**
 * Node: the bundled embedder (or none) in this process, and an in-memory database — or, with `db`,
 * that database file itself (kept: a second run with the same --data continues from the turns it
 * holds, and each checkpoint copies it to `<db>.<turns>.sqlite`, so the read path can be measured
 * again at any size without growing the database anew).
 */
export async function nodeDriver(options: { vectors: boolean; db?: string }): Promise<ScaleDriver> {
  const { ScaleBenchHost } = await import('./host/ScaleBenchHost');
  const { openNodeStore, openFileStore } = await import('../src/storage/openNodeDatabase');
  const { localEmbedderProvider } = await import('../src/models/localEmbedderProvider');
  const { configureNodeEnv } = await import('../src/models/nodeEnv');
  const { copyFile } = await import('node:fs/promises');
  const embedders = options.vectors ? localEmbedderProvider(configureNodeEnv()) : undefined;
  const db = options.db;
  // A kept file gets a page cache big enough for the whole database (as the in-memory one is), so
  // read times compare with in-memory runs rather than measuring the file system.
  const openKept = async (path: string) => {
    const store = await openFileStore(path);
    await store.db.query('PRAGMA cache_size = -1048576');
    return store;
  };
  const { nodeVectorIndex } = await import('../src/wasm/nodeVectorKernel');
  // The same int8 WebAssembly kernel as the app's workers (without it the index falls back to plain
  // JavaScript, ≈ 3 ms of every recall at 10,000 turns that the browser does not pay).
  const host = new ScaleBenchHost({
    openStore: () => (db ? openKept(db) : openNodeStore()),
    deleteStore: async () => undefined,
    ...(embedders ? { embedders } : {}),
    vectorIndex: async () => (await nodeVectorIndex()).factory,
  });
  const file = 'bench-scale.sqlite';
  return {
    runtime: 'node',
    open: async () => {
      const opened = await host.scaleOpen(file, { reuse: db !== undefined });
      return { ...opened, turns: await host.scaleTurns() };
    },
    ...(db ? { checkpoint: (turns: number) => copyFile(db, `${db.replace(/\.sqlite$/, '')}.${turns}.sqlite`) } : {}),
    append: (c) => host.scaleAppend(c),
    addLayer: () => host.scaleAddLayer(),
    measure: (q, o) => host.scaleMeasure(q, o),
    async memory() {
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    },
    coldOpen: async () => null,
    close: () => host.scaleClose(),
  };
}

/**
 * Browser: the benchmark page's worker on OPFS; the file is deleted at the end, unless `profileDir`
 * names a browser profile to keep it in (for `npm run bench -- cold-open` on the grown database).
 */
export async function browserDriver(
  progress: (line: string) => void,
  options: { profileDir?: string; port?: number; slowdown?: number; nice?: number } = {},
): Promise<ScaleDriver> {
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const { openBenchPage } = await import('./browserHarness');
  const { workerHeapBytes, measureColdOpen, describeColdOpen } = await import('./scaleBrowser');
  const bench = await openBenchPage({
    onProgress: progress,
    ...(options.profileDir ? { profileDir: options.profileDir } : {}),
    ...(options.port ? { port: options.port } : {}),
    ...(options.slowdown ? { slowdown: options.slowdown } : {}),
    ...(options.nice !== undefined ? { nice: options.nice } : {}),
  });
  const file = 'bench-scale.sqlite';
  const page = bench.page;
  return {
    runtime: 'browser',
    slowdown: bench.slowdown,
    // A kept profile that already holds the file continues from it (as Node's --db): the read path
    // can be measured again at its size without growing the database anew.
    async open() {
      const kept =
        options.profileDir !== undefined && (await page.evaluate(() => window.recollectBench!.opfsFiles())).some((f) => f.name === file);
      const opened = await page.evaluate(([f, reuse]) => window.recollectBench!.scale.open(f, reuse), [file, kept] as const);
      if (!kept) return opened;
      const turns = (await page.evaluate(() => window.recollectBench!.scale.measure([], { depth: 10 }))).turns;
      progress(`kept profile: ${f(turns)} turns already in ${file}`);
      return { ...opened, turns };
    },
    append: (c) => page.evaluate((corpus) => window.recollectBench!.scale.append(corpus), c),
    addLayer: () => page.evaluate(() => window.recollectBench!.scale.addLayer()),
    // Growth runs at full speed; what a person waits for (search, the answer read, the cold open) is measured slowed.
    measure: (q, o, speed = 'slowed') => {
      const run = () => page.evaluate(([qs, opts]) => window.recollectBench!.scale.measure([...qs], opts), [q, o] as const);
      return speed === 'full' ? bench.fullSpeed(run) : bench.slowed(run, `${q.length} questions`);
    },
    // The CDP figure may or may not include WebAssembly memories: adding SQLite's heap gives an upper bound.
    memory: async (m) => (await workerHeapBytes(page, 'bench.worker')) + m.wasmBytes,
    async coldOpen(question, speed = 'slowed') {
      await page.evaluate(() => window.recollectBench!.scale.close());
      try {
        const open = () => measureColdOpen(page, file, question);
        const t = speed === 'full' ? await bench.fullSpeed(open) : await bench.slowed(open, 'cold open');
        progress(
          `cold open${bench.slowdown ? (speed === 'full' ? ' (full speed)' : ` (${bench.slowdown.factor}× slower)`) : ''} ${f(t.navigationToResultMs)} ms from navigation (in the worker: open + engine start ${f(t.openMs)} ms, first recall ${f(t.firstRecallMs)} ms; ${describeColdOpen(t)})`,
        );
        return t.navigationToResultMs;
      } finally {
        await page.evaluate((f) => window.recollectBench!.scale.open(f, true), file);
      }
    },
    async close() {
      try {
        if (options.profileDir) await page.evaluate(() => window.recollectBench!.scale.close());
        else await page.evaluate((f) => window.recollectBench!.scale.delete(f), file);
      } finally {
        await bench.close();
      }
    },
  };
}

export function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    // not a git checkout, or no git on PATH
    return null;
  }
}
