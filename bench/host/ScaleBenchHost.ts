/**
 * The scale benchmark's engine side (bench/scale.ts), shared by both runtimes: ONE database grown
 * by appending corpora through the real write path (BenchEngineHost's `ingestCorpus`), measured at
 * checkpoints — our recall (MemoryEngine.recall) and FTS5 BM25 alone (store.searchMessages) over
 * the same questions, database bytes, turns — and, in the browser, reopened cold by a fresh worker
 * (`coldOpen`) to time a new page's first search.
 *
 * Unlike `recallCorpus`, the file outlives each call: `scaleOpen` creates it, `scaleAppend` and
 * `scaleMeasure` grow and read it, `scaleClose` releases it (so another worker can open it) and
 * `scaleOpen(…, { reuse: true })` takes it back; `scaleDelete` removes it. Its wire types
 * (ScaleWorkerApi …) live in bench/host/benchProtocol.ts.
 */
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { RecollectError } from '../../src/core/base/errors';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import type { RetrievalResult } from '../../src/core/recall/Retriever';
import {
  DEFAULT_SCALE_REPS,
  type BenchCorpusInput, type BenchIngestTiming, type ColdOpenResult, type ScaleMeasureOptions, type ScaleMeasurement, type ScaleQuestionInput,
  type ScaleSystemResult, type ScaleWorkerApi,
} from './benchProtocol';
import { BenchEngineHost, createBenchEngine, ingestCorpus, warmUpEmbedder, type BenchEngineHostDeps } from './BenchEngineHost';

async function countTurns(store: SqliteMemoryStore): Promise<number> {
  const [row] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages');
  return Number(row?.n ?? 0);
}

type Rank = (q: ScaleQuestionInput) => Promise<string[]>;

/**
 * Both systems on each question in turn (which goes first alternates, so neither always finds the
 * other's pages cached): on a machine shared with other jobs, load that drifts during the run then
 * touches both alike, and their ratio stays meaningful.
 */
async function timedPair(questions: readonly ScaleQuestionInput[], warmup: number, reps: number, systems: readonly [Rank, Rank]): Promise<[ScaleSystemResult, ScaleSystemResult]> {
  for (const q of questions.slice(0, warmup)) for (const rank of systems) await rank(q);
  const ranked: [string[][], string[][]] = [[], []];
  const latenciesMs: [number[], number[]] = [[], []];
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, q] of questions.entries()) {
      for (const s of (i + rep) % 2 ? [1, 0] as const : [0, 1] as const) {
        const start = performance.now();
        const ids = await systems[s](q);
        latenciesMs[s].push(performance.now() - start);
        // The ranking is the same on every pass (nothing is written between them): scored once.
        if (rep === 0) ranked[s].push(ids);
      }
    }
  }
  return [{ ranked: ranked[0], latenciesMs: latenciesMs[0] }, { ranked: ranked[1], latenciesMs: latenciesMs[1] }];
}

/** The benchmark worker's API with the scale methods added (one worker, one set of embedders). */
export class ScaleBenchHost extends BenchEngineHost implements ScaleWorkerApi {
  readonly #scaleDeps: BenchEngineHostDeps;
  #open: { fileName: string; store: SqliteMemoryStore; engine: MemoryEngine } | null = null;

  constructor(deps: BenchEngineHostDeps) {
    super(deps);
    this.#scaleDeps = deps;
  }

  #current(): { store: SqliteMemoryStore; engine: MemoryEngine } {
    if (!this.#open) throw new RecollectError('INVALID_INPUT', 'No scale database is open: call scaleOpen first.');
    return this.#open;
  }

  async scaleOpen(fileName: string, options: { reuse?: boolean } = {}): Promise<{ embedderId: string | null }> {
    if (this.#open) throw new RecollectError('INVALID_INPUT', `A scale database is already open (${this.#open.fileName}).`);
    if (!options.reuse) await this.#scaleDeps.deleteStore(fileName);
    const store = await this.#scaleDeps.openStore(fileName);
    const engine = createBenchEngine(store, this.embedders, await this.#scaleDeps.vectorIndex?.());
    await engine.start();
    await warmUpEmbedder(this.embedders);
    this.#open = { fileName, store, engine };
    return { embedderId: this.embedders ? this.embedders.embedder(this.embedders.defaultModelId).id : null };
  }

  /** Turns the open database holds (a kept one may already hold some). */
  async scaleTurns(): Promise<number> {
    return countTurns(this.#current().store);
  }

  async scaleAppend(corpus: BenchCorpusInput): Promise<BenchIngestTiming> {
    return (await ingestCorpus(this.#current().engine, corpus)).timing;
  }

  async scaleMeasure(questions: readonly ScaleQuestionInput[], options: ScaleMeasureOptions = {}): Promise<ScaleMeasurement> {
    const { store, engine } = this.#current();
    const depth = options.depth ?? 10;
    const warmup = options.warmup ?? 3;
    const [ours, bm25] = await timedPair(questions, warmup, options.reps ?? DEFAULT_SCALE_REPS, [
      async (q) => (await engine.recall(q.text, { limit: depth, now: q.askedAt })).turns.map((t) => t.message.id),
      async (q) => (await store.searchMessages(q.text, { limit: depth })).map((h) => h.message.id),
    ]);
    const wasmBytes = (store.db as { module?: { HEAPU8?: Uint8Array } }).module?.HEAPU8?.byteLength ?? 0;
    return { turns: await countTurns(store), dbBytes: (await store.stats()).databaseBytes, wasmBytes, ours, bm25 };
  }

  async scaleClose(): Promise<void> {
    const open = this.#open;
    if (!open) return;
    this.#open = null;
    open.engine.stop();
    await open.store.db.close();
  }

  async scaleDelete(fileName: string): Promise<void> {
    if (this.#open?.fileName === fileName) await this.scaleClose();
    await this.#scaleDeps.deleteStore(fileName);
  }

  /**
   * A fresh worker's first search on an existing database: open, start, recall once; then wait for
   * the vectors (model and index) and search again, so the report shows what the first result did
   * not wait for. Closes the file.
   */
  async coldOpen(fileName: string, question: ScaleQuestionInput): Promise<ColdOpenResult> {
    const at = () => performance.timeOrigin + performance.now();
    const askedAt = at();
    const t0 = performance.now();
    const store = await this.#scaleDeps.openStore(fileName);
    const fileOpenAt = at();
    const engine = createBenchEngine(store, this.embedders, await this.#scaleDeps.vectorIndex?.());
    try {
      await engine.start();
      const engineStartedAt = at();
      const t1 = performance.now();
      const usedVectors = (r: RetrievalResult) => r.turns.some((t) => t.reasons.includes('vector'));
      // The speaker list is the first recall's own first read (cached for it); timed apart because
      // it scans every turn.
      await store.speakers();
      const speakersAt = at();
      const result = await engine.recall(question.text, { limit: 10, now: question.askedAt });
      const firstResultAt = at();
      const t2 = performance.now();
      await engine.idle();
      const vectorsReadyAt = at();
      const second = await engine.recall(question.text, { limit: 10, now: question.askedAt });
      const secondResultAt = at();
      return {
        turns: await countTurns(store), ranked: result.turns.map((t) => t.message.id), openMs: t1 - t0, firstRecallMs: t2 - t1,
        phases: { askedAt, fileOpenAt, engineStartedAt, speakersAt, firstResultAt, vectorsReadyAt, secondResultAt },
        firstUsedVectors: usedVectors(result), secondUsedVectors: usedVectors(second),
      };
    } finally {
      engine.stop();
      await store.db.close();
    }
  }
}
