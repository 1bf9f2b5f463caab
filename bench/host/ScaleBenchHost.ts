/**
 * The scale benchmark's engine side (bench/scale.ts), shared by both runtimes: ONE database grown
 * by appending corpora through the real write path (BenchEngineHost's `ingestCorpus`), measured at
 * checkpoints — our recall (MemoryEngine.recall), FTS5 BM25 alone (store.searchMessages) and the
 * answer's whole memory read (MemoryEngine.answerContext) over the same questions, database bytes,
 * turns — after `scaleAddLayer` has written the synthesised layer for the new turns (episodes,
 * facts, themes, profile, plans: bench/scaleLayer.ts) — and, in the browser, reopened cold by a fresh worker
 * (`coldOpen`) to time a new page's first search.
 *
 * Unlike `recallCorpus`, the file outlives each call: `scaleOpen` creates it, `scaleAppend`,
 * `scaleAddLayer` and `scaleMeasure` grow and read it, `scaleClose` releases it (so another worker can open it) and
 * `scaleOpen(…, { reuse: true })` takes it back; `scaleDelete` removes it. Its wire types
 * (ScaleWorkerApi …) live in bench/host/benchProtocol.ts.
 */
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { RecollectError } from '../../src/core/base/errors';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import type { RetrievalResult } from '../../src/core/recall/Retriever';
import {
  DEFAULT_SCALE_REPS,
  type BenchCorpusInput,
  type BenchIngestTiming,
  type ColdOpenResult,
  type ScaleAnswerItems,
  type ScaleLayerResult,
  type ScaleMeasureOptions,
  type ScaleMeasurement,
  type ScaleQuestionInput,
  type ScaleSystemResult,
  type ScaleWorkerApi,
} from './benchProtocol';
import { addScaleLayer } from '../scaleLayer';
import { BenchEngineHost, createBenchEngine, ingestCorpus, warmUpEmbedder, type BenchEngineHostDeps } from './BenchEngineHost';

async function countTurns(store: SqliteMemoryStore): Promise<number> {
  const [row] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages');
  return Number(row?.n ?? 0);
}

/** One system timed by the scale benchmark: the turn ids it ranks (empty when it ranks none) and what it read. */
type Timed = (q: ScaleQuestionInput) => Promise<{ ids: string[]; items?: ScaleAnswerItems }>;

interface TimedResult extends ScaleSystemResult {
  readonly items: readonly ScaleAnswerItems[];
}

/**
 * The systems on each question in turn, in the given order and reversed on every other question
 * (so none always finds the others' pages cached, and each pair swaps places as often as not): on
 * a machine shared with other jobs, load that drifts during the run then touches them all alike,
 * and their ratios stay meaningful.
 */
async function timedInTurn(
  questions: readonly ScaleQuestionInput[],
  warmup: number,
  reps: number,
  systems: readonly Timed[],
): Promise<TimedResult[]> {
  for (const q of questions.slice(0, warmup)) for (const run of systems) await run(q);
  const out = systems.map(() => ({ ranked: [] as string[][], latenciesMs: [] as number[], items: [] as ScaleAnswerItems[] }));
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, q] of questions.entries()) {
      for (let k = 0; k < systems.length; k++) {
        const s = (i + rep) % 2 ? systems.length - 1 - k : k;
        const start = performance.now();
        const result = await systems[s]!(q);
        out[s]!.latenciesMs.push(performance.now() - start);
        // The result is the same on every pass (nothing is written between them): kept once.
        if (rep === 0) {
          out[s]!.ranked.push(result.ids);
          if (result.items) out[s]!.items.push(result.items);
        }
      }
    }
  }
  return out;
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
    const [ours, bm25, answer] = await timedInTurn(questions, warmup, options.reps ?? DEFAULT_SCALE_REPS, [
      async (q) => ({ ids: (await engine.answers.recall(q.text, { limit: depth, now: q.askedAt })).turns.map((t) => t.message.id) }),
      async (q) => ({ ids: (await store.searchMessages(q.text, { limit: depth })).map((h) => h.message.id) }),
      // Everything an answer reads (MemoryEngine.answerContext: the app's own answer source).
      async (q) => {
        const parts = await engine.answerContext(q.text, { now: q.askedAt });
        return {
          ids: parts.turns.map((t) => t.id),
          items: {
            turns: parts.turns.length,
            facts: parts.facts.length,
            episodes: parts.episodes.length,
            profile: parts.profile.length,
            plans: parts.foresight.length,
          },
        };
      },
    ]);
    const wasmBytes = (store.db as { module?: { HEAPU8?: Uint8Array } }).module?.HEAPU8?.byteLength ?? 0;
    const system = (r: TimedResult): ScaleSystemResult => ({ ranked: r.ranked, latenciesMs: r.latenciesMs });
    return {
      turns: await countTurns(store),
      dbBytes: (await store.stats()).databaseBytes,
      wasmBytes,
      ours: system(ours!),
      bm25: system(bm25!),
      answer: { latenciesMs: answer!.latenciesMs, items: answer!.items },
    };
  }

  /**
   * The synthesised layer (bench/scaleLayer.ts) for every turn not yet in an episode, written
   * beside the engine as consolidation would have written it; the engine then starts again on the
   * same file (as after a reopen), so its fact and episode vector indexes hold the new items.
   */
  async scaleAddLayer(): Promise<ScaleLayerResult> {
    const { store, engine } = this.#current();
    await engine.idle();
    const embedder = this.embedders ? this.embedders.embedder(this.embedders.defaultModelId) : null;
    const layer = await addScaleLayer(store, embedder);
    engine.stop();
    const restarted = createBenchEngine(store, this.embedders, await this.#scaleDeps.vectorIndex?.());
    await restarted.start();
    await restarted.idle();
    this.#open = { ...this.#open!, engine: restarted };
    return layer;
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
      const result = await engine.answers.recall(question.text, { limit: 10, now: question.askedAt });
      const firstResultAt = at();
      const t2 = performance.now();
      await engine.idle();
      const vectorsReadyAt = at();
      const second = await engine.answers.recall(question.text, { limit: 10, now: question.askedAt });
      const secondResultAt = at();
      return {
        turns: await countTurns(store),
        ranked: result.turns.map((t) => t.message.id),
        openMs: t1 - t0,
        firstRecallMs: t2 - t1,
        phases: { askedAt, fileOpenAt, engineStartedAt, speakersAt, firstResultAt, vectorsReadyAt, secondResultAt },
        firstUsedVectors: usedVectors(result),
        secondUsedVectors: usedVectors(second),
      };
    } finally {
      engine.stop();
      await store.db.close();
    }
  }
}
