/**
 * The recall benchmark runner (Node runtime). Each corpus — a LoCoMo conversation or a
 * LongMemEval question — gets a fresh in-memory database; its turns go in order, with their
 * session timestamps, through MemoryEngine.appendTurns, one transaction per session, the same
 * code as the browser runtime (bench/host/BenchEngineHost.ts; the real write path: messages, FTS
 * triggers, the turn index) and the engine's background embedding indexer. Then every question
 * runs through the Retriever and through the baselines over the same database and vectors.
 *
 * Several retrieval configs can be evaluated over one ingest (`variants`), which is how the
 * knobs in src/core/recall/fusion.ts were tuned on the dev split.
 *
 * Context recall (LLM-free): for every variant, each question also goes through the real
 * answer-context code (answerSourceOf → gatherContext → composeContext at the default memory
 * budget), and the evidence turns the composed context cites are counted — what an answering
 * model would actually see. With a reranker, the first variant is also run with the rerank stage
 * off ("fused"), and the reranker's pairs/s and added time per question are measured.
 */
import { appendFileSync } from 'node:fs';
import { SemanticIndex } from '../src/core/capture/SemanticIndex';
import { Retriever, turnText } from '../src/core/recall/Retriever';
import type { RetrievalConfig } from '../src/core/recall/fusion';
import type { Embedder } from '../src/core/base/ports';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { SqlRetrievalSource } from '../src/storage/retrievalSource';
import { createBenchEngine, ingestCorpus, warmUpEmbedder } from './host/BenchEngineHost';
import type { BenchCorpusInput } from './host/benchProtocol';
import { nodeVectorIndex } from '../src/wasm/nodeVectorKernel';
import { BUNDLED_MODEL_ID } from '../src/models/catalog';
import { localEmbedderProvider } from '../src/models/localEmbedderProvider';
import { configureNodeEnv } from '../src/models/nodeEnv';
import { TransformersReranker } from '../src/models/TransformersReranker';
import type { Reranker } from '../src/core/base/ports';
import { answerSourceOf } from '../src/core/recall/answerSource';
import { composeContext, gatherContext } from '../src/core/recall/answerContext';
import { ANSWER_BUDGET } from '../src/core/base/settings';
import { SqlKnowledgeSource } from '../src/storage/knowledgeSource';
import { LOCOMO_CATEGORY_NAMES, type BenchCorpus, type BenchDataset } from './datasets';
import { bm25Baseline, oramaBaselines, type Baseline } from './baselines';
import { aggregate, byCategory, contextRecall, scoreQuestion, type AggregateScore, type QuestionScore } from './scoring';
import { percentile } from './stats';

export interface RecallRunOptions {
  readonly ks: readonly number[];
  /** Named retrieval configs; the first is "ours" in the report. */
  readonly variants: readonly { readonly name: string; readonly config: RetrievalConfig }[];
  readonly baselines: boolean;
  /** Use the embedder (vectors) at all; false gives a lexical-only run. */
  readonly vectors: boolean;
  /**
   * Rerankers, comma-separated: a catalog id (e.g. the bundled stand-in), "random" (scores from a
   * hash) or "oracle" (1 for the question's evidence turns, 0 otherwise: the best any reranker
   * could do), each optionally `=trust` (0..1; default the catalog entry's, 1 for oracle and
   * random). The first is "ours"; each other one is one more system ("reranked <spec>") over the
   * same ingest. None when absent.
   */
  readonly reranker?: string;
  /** Compose the answer context for each question of the first variant (context recall); default true. */
  readonly context?: boolean;
  /** Ranking depth per question (enough distinct sessions for session metrics). */
  readonly depth?: number;
  readonly progress?: (line: string) => void;
}

export interface SystemResult {
  readonly scores: QuestionScore[];
  readonly latenciesMs: number[];
}

export interface RecallRun {
  readonly dataset: BenchDataset;
  readonly embedderId: string | null;
  readonly rerankerId: string | null;
  readonly systems: Record<string, SystemResult>;
  readonly ingest: { turns: number; captureSeconds: number; embedSeconds: number };
  readonly dbBytes: number;
  readonly invalidEvidence: number;
  readonly questionsTotal: number;
  /** How this run differs from the default protocol (e.g. baselines skipped), for the report. */
  readonly notes?: readonly string[];
  /** Cost of the rerank stage, when a reranker ran. */
  readonly rerank?: RerankCost;
  /** Pairs the first reranker scored per question, by variant (the rerank pool's size). */
  readonly poolPairs?: Record<string, number>;
}

export interface RerankCost {
  /** The reranker's trust in this run (Reranker.trust; absent = 1). */
  readonly trust: number;
  readonly pairs: number;
  readonly calls: number;
  /** Pairs scored per second of reranker time. */
  readonly pairsPerSecond: number;
  /** Reranker time per question (ms): the latency the stage adds. */
  readonly addedMs: { readonly p50: number; readonly p95: number; readonly mean: number };
}

/** Wraps a reranker to count pairs and time each call (one call per question). */
function timedReranker(inner: Reranker, log: { pairs: number; ms: number[] }, trust: number | undefined = inner.trust): Reranker {
  return {
    id: inner.id,
    ...(trust !== undefined ? { trust } : {}),
    async rerank(query, docs) {
      const start = performance.now();
      const scores = await inner.rerank(query, docs);
      log.ms.push(performance.now() - start);
      log.pairs += docs.length;
      return scores;
    },
  };
}

/**
 * The weakest reranker: a score per (query, doc) from a string hash, unrelated to relevance — what
 * an untrained (random-weight) model amounts to. A blend weight that survives it cannot pull
 * recall far below the fused ranking.
 */
export function randomReranker(): Reranker {
  const hash = (text: string) => {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    return (h >>> 0) / 4294967296;
  };
  return { id: 'random', rerank: async (query, docs) => docs.map((d) => hash(`${query}\u0000${d}`)) };
}

/**
 * The strongest reranker: knows each question's evidence turns (by their text, as the retriever
 * hands turns to a reranker) and scores them 1, everything else 0. Bench only: it reads the answers.
 */
async function oracleReranker(corpus: BenchCorpus, store: Awaited<ReturnType<typeof openNodeStore>>): Promise<Reranker> {
  const evidence = new Map<string, Set<string>>();
  for (const q of corpus.questions) {
    const texts = evidence.get(q.text) ?? new Set<string>();
    for (const id of q.evidenceTurns) {
      const m = await store.getMessage(id);
      if (m) texts.add(turnText(m));
    }
    evidence.set(q.text, texts);
  }
  return { id: 'oracle', rerank: async (query, docs) => docs.map((d) => (evidence.get(query)?.has(d) ? 1 : 0)) };
}

interface NamedReranker {
  readonly name: string;
  readonly reranker: Reranker;
  readonly log: { pairs: number; ms: number[] };
}

async function runCorpus(
  corpus: BenchCorpus,
  options: RecallRunOptions,
  embedders: ReturnType<typeof localEmbedderProvider> | null,
  given: readonly NamedReranker[],
  run: {
    systems: Record<string, SystemResult>;
    ingest: RecallRun['ingest'];
    dbBytes: number;
    pool: Record<string, { pairs: number; ms: number[] }>;
  },
  label: string,
): Promise<void> {
  const depth = options.depth ?? 100;
  const store = await openNodeStore();
  // Same engine and write path as the browser's benchmark worker (bench/host/BenchEngineHost.ts).
  const engine = createBenchEngine(store, embedders ?? undefined, (await nodeVectorIndex()).factory);
  await engine.start();
  await warmUpEmbedder(embedders ?? undefined);
  const { timing, sessionOfTurn } = await ingestCorpus(engine, corpus);
  run.ingest.turns += timing.turns;
  run.ingest.captureSeconds += timing.captureMs / 1000;
  run.ingest.embedSeconds += timing.embedMs / 1000;
  run.dbBytes += (await store.stats()).databaseBytes;
  const oracle = given.some((g) => g.reranker.id === 'oracle') ? await oracleReranker(corpus, store) : null;
  const rerankers = given.map((g) =>
    g.reranker.id === 'oracle' ? { ...g, reranker: timedReranker(oracle!, g.log, g.reranker.trust) } : g,
  );
  const reranker = rerankers[0]?.reranker ?? null;

  const embedder: Embedder | null = embedders ? embedders.embedder(BUNDLED_MODEL_ID) : null;
  const semantic = new SemanticIndex(store, 'message');
  const source = new SqlRetrievalSource(store.db, {
    vectors: (model, query, k, options) => semantic.search(model, query.length, query, k, options),
  });
  // Each variant's pool size: its own count of the pairs it asks the (shared) first reranker for.
  const pooled = (name: string): Reranker | null => reranker && timedReranker(reranker, (run.pool[name] ??= { pairs: 0, ms: [] }));
  const retrievers = options.variants.map((v) => ({
    name: v.name,
    retriever: new Retriever({
      source,
      ...(embedder ? { embedder } : {}),
      ...(reranker ? { reranker: pooled(v.name)! } : {}),
      config: v.config,
    }),
  }));
  const first = retrievers[0]!.retriever;
  // The answer pipeline's own source (storage candidates + the variant's retriever as turn recall);
  // the bench ingests no episodes or facts (no LLM), so the context holds ranked turns within the
  // budget. Each variant composes with its own context knobs (RETRIEVAL_CONFIG.context).
  const knowledge = new SqlKnowledgeSource(store.db);
  const contextOf = (retriever: Retriever) => {
    const answerSource = answerSourceOf(knowledge, (query, o) =>
      retriever.retrieve(query, {
        limit: o.limit ?? 10,
        speakers: corpus.speakers,
        ...(o.now !== undefined ? { now: o.now } : {}),
        ...(o.conversationId ? { scope: { conversationIds: [o.conversationId] } } : {}),
      }),
    );
    const cfg = retriever.config.context;
    return async (q: (typeof corpus.questions)[number]): Promise<string[]> => {
      const parts = await gatherContext(answerSource, q.text, { now: q.askedAt, limits: { turns: cfg.turns } });
      const composed = composeContext(parts, {
        budgetTokens: ANSWER_BUDGET.default,
        now: q.askedAt,
        query: q.text,
        maxTurnChars: cfg.turnChars,
        focus: cfg.focus,
      });
      return composed.citations.filter((c) => c.kind === 'turn').map((c) => c.ref);
    };
  };
  const citedTurns = new Map(retrievers.map(({ name, retriever }) => [name, contextOf(retriever)]));
  // What answers would see without the rerank stage, to compare with the reranked context.
  if (reranker) citedTurns.set('fused', contextOf(new Retriever({ source, ...(embedder ? { embedder } : {}), config: first.config })));
  // Further rerankers: the first variant's config with that reranker, context recall included.
  const others = rerankers.slice(1).map((r) => ({
    name: r.name,
    retriever: new Retriever({ source, ...(embedder ? { embedder } : {}), reranker: r.reranker, config: first.config }),
  }));
  for (const o of others) citedTurns.set(o.name, contextOf(o.retriever));
  const baselines: Baseline[] = [];
  if (options.baselines) {
    baselines.push(bm25Baseline(store));
    const vectors = embedder
      ? new Map((await store.loadVectors('message', embedder.id)).map((v) => [v.itemId, v.vector]))
      : new Map<string, Float32Array>();
    const docs = corpus.sessions.flatMap((s) =>
      s.turns.map((t) => ({ id: t.id, text: [t.text, t.caption ?? ''].join(' ').trim() || '-', vector: vectors.get(t.id) ?? null })),
    );
    baselines.push(...(await oramaBaselines(docs, embedder)));
  }
  const lastTurns = new Map<string, readonly { message: { id: string }; score: number; ranks: object; boosts: object }[]>();
  const systems: { name: string; rank: (q: (typeof corpus.questions)[number]) => Promise<string[]> }[] = [
    ...retrievers.map(({ name, retriever }) => ({
      name,
      rank: async (q: (typeof corpus.questions)[number]) => {
        const turns = (await retriever.retrieve(q.text, { limit: depth, speakers: corpus.speakers, now: q.askedAt })).turns;
        lastTurns.set(name, turns);
        return turns.map((t) => t.message.id);
      },
    })),
    ...(reranker
      ? [
          {
            name: 'fused',
            rank: async (q: (typeof corpus.questions)[number]) =>
              (await first.retrieve(q.text, { limit: depth, speakers: corpus.speakers, now: q.askedAt, rerank: false })).turns.map(
                (t) => t.message.id,
              ),
          },
        ]
      : []),
    ...others.map(({ name, retriever }) => ({
      name,
      rank: async (q: (typeof corpus.questions)[number]) =>
        (await retriever.retrieve(q.text, { limit: depth, speakers: corpus.speakers, now: q.askedAt })).turns.map((t) => t.message.id),
    })),
    ...baselines.map((b) => ({ name: b.name, rank: (q: (typeof corpus.questions)[number]) => b.rank(q.text, depth) })),
  ];
  // Scored by the dataset's session id (a repeated LongMemEval session counts as its original).
  const datasetSession = new Map(corpus.sessions.flatMap((s) => s.turns.map((t) => [t.id, t.sessionId] as const)));
  const sessionOf = (id: string) => datasetSession.get(id) ?? sessionOfTurn.get(id);
  for (const system of systems) {
    // Warm-up (untimed): loads the vector index, JIT-compiles the hot paths.
    for (const q of corpus.questions.slice(0, 1)) await system.rank(q);
    const result = (run.systems[system.name] ??= { scores: [], latenciesMs: [] });
    for (const [i, q] of corpus.questions.entries()) {
      const start = performance.now();
      const ranked = await system.rank(q);
      result.latenciesMs.push(performance.now() - start);
      const score = scoreQuestion(q, ranked, sessionOf, options.ks);
      // RECALL_DUMP=<file>: one JSON line per system and question (recall@10, top 10, evidence), to compare variants question by question.
      if (process.env.RECALL_DUMP)
        appendFileSync(
          process.env.RECALL_DUMP,
          `${JSON.stringify({ system: system.name, question: q.id, category: q.category, recall10: score.recallTurn[10], top: ranked.slice(0, 10), evidence: q.evidenceTurns, ranks: q.evidenceTurns.map((e) => ranked.indexOf(e) + 1), detail: detailOf(lastTurns.get(system.name), q.evidenceTurns), text: q.text })}\n`,
        );
      const cited = options.context !== false ? citedTurns.get(system.name) : undefined;
      result.scores.push(cited ? { ...score, contextRecall: contextRecall(q, await cited(q)) } : score);
      if (i % 25 === 0) options.progress?.(`${label} ${system.name}: question ${i + 1}/${corpus.questions.length}`);
    }
  }
  engine.stop();
  await store.db.close();
}

function detailOf(
  turns: readonly { message: { id: string }; score: number; ranks: object; boosts: object }[] | undefined,
  evidence: readonly string[],
) {
  if (!turns) return undefined;
  const tenth = turns[9];
  return {
    tenth: tenth ? { id: tenth.message.id, score: tenth.score, ranks: tenth.ranks, boosts: tenth.boosts } : null,
    evidence: evidence.map((e) => {
      const t = turns.find((x) => x.message.id === e);
      return t ? { id: e, score: t.score, ranks: t.ranks, boosts: t.boosts } : { id: e };
    }),
  };
}

export async function runRecall(dataset: BenchDataset, options: RecallRunOptions): Promise<RecallRun> {
  let embedders: ReturnType<typeof localEmbedderProvider> | null = null;
  const platform = configureNodeEnv();
  if (options.vectors) embedders = localEmbedderProvider(platform);
  const rerankers: NamedReranker[] = [];
  for (const spec of (options.reranker ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const eq = spec.lastIndexOf('=');
    const id = eq > 0 ? spec.slice(0, eq) : spec;
    const trust = eq > 0 ? Number(spec.slice(eq + 1)) : undefined;
    if (trust !== undefined && !(trust >= 0 && trust <= 1)) throw new Error(`--rerank ${spec}: trust is a number from 0 to 1`);
    const loaded =
      id === 'random'
        ? randomReranker()
        : id === 'oracle'
          ? ({ id: 'oracle', rerank: async (_q: string, docs: readonly string[]) => docs.map(() => 0) } as Reranker) // replaced per corpus
          : await TransformersReranker.create(id, { platform });
    const log = { pairs: 0, ms: [] as number[] };
    rerankers.push({
      name: rerankers.length === 0 ? 'ours' : `reranked ${spec}`,
      reranker: timedReranker(loaded, log, trust ?? loaded.trust),
      log,
    });
  }
  const reranker = rerankers[0]?.reranker ?? null;
  const rerankLog = rerankers[0]?.log ?? { pairs: 0, ms: [] };
  const run = {
    systems: {} as Record<string, SystemResult>,
    ingest: { turns: 0, captureSeconds: 0, embedSeconds: 0 },
    dbBytes: 0,
    pool: {} as Record<string, { pairs: number; ms: number[] }>,
  };
  for (const [i, corpus] of dataset.corpora.entries()) {
    const label = `[${dataset.name} ${i + 1}/${dataset.corpora.length} ${corpus.id}]`;
    options.progress?.(`${label} ingesting ${corpus.sessions.reduce((n, s) => n + s.turns.length, 0)} turns`);
    await runCorpus(corpus, options, embedders, rerankers, run, label);
  }
  return {
    dataset,
    embedderId: embedders ? embedders.embedder(BUNDLED_MODEL_ID).id : null,
    rerankerId: reranker?.id ?? null,
    systems: run.systems,
    ingest: run.ingest,
    dbBytes: run.dbBytes,
    invalidEvidence: dataset.corpora.reduce((n, c) => n + c.questions.reduce((m, q) => m + q.invalidEvidence.length, 0), 0),
    questionsTotal: dataset.corpora.reduce((n, c) => n + c.questions.length, 0),
    ...(reranker ? { rerank: rerankCost(rerankLog, reranker.trust ?? 1) } : {}),
    ...(reranker
      ? {
          poolPairs: Object.fromEntries(
            Object.entries(run.pool).map(([name, log]) => [name, log.ms.length ? log.pairs / log.ms.length : 0]),
          ),
        }
      : {}),
  };
}

function rerankCost(log: { pairs: number; ms: number[] }, trust: number): RerankCost {
  const total = log.ms.reduce((a, b) => a + b, 0);
  return {
    trust,
    pairs: log.pairs,
    calls: log.ms.length,
    pairsPerSecond: total > 0 ? log.pairs / (total / 1000) : 0,
    // A reranker never asked (trust 0) added no time: 0, not the NaN of no samples.
    addedMs: log.ms.length
      ? { p50: percentile(log.ms, 50), p95: percentile(log.ms, 95), mean: total / log.ms.length }
      : { p50: 0, p95: 0, mean: 0 },
  };
}

/** What the benchmark page needs of a corpus: turns and question texts (evidence stays in Node, for scoring). */
export function benchPageInput(corpus: BenchCorpus): BenchCorpusInput {
  return {
    id: corpus.id,
    speakers: corpus.speakers,
    sessions: corpus.sessions.map((s) => ({
      id: s.id,
      date: s.date,
      turns: s.turns.map((t) => ({
        id: t.id,
        role: t.role,
        speaker: t.speaker,
        text: t.text,
        ...(t.caption ? { caption: t.caption } : {}),
      })),
    })),
    questions: corpus.questions.map((q) => ({ id: q.id, text: q.text, askedAt: q.askedAt })),
  };
}

/**
 * The browser runtime: the same corpora, sent as plain JSON to the benchmark page in headless
 * Chromium, where each is ingested and ranked by BenchEngineHost in a dedicated worker on OPFS
 * (bench/page/bench.worker.ts) with the model worker's embedder; scored here with the same code.
 * Only the default retrieval config runs (MemoryEngine.recall); baselines are not run here —
 * they are the Node runtime's (same turns, same embedder; see the node report).
 */
export async function runRecallBrowser(
  dataset: BenchDataset,
  options: Pick<RecallRunOptions, 'ks' | 'depth' | 'progress'>,
): Promise<RecallRun> {
  const { openBenchPage } = await import('./browserHarness');
  let label = '';
  const bench = await openBenchPage({ onProgress: (line) => options.progress?.(`${label} ${line}`) });
  const ours: SystemResult = { scores: [], latenciesMs: [] };
  const ingest = { turns: 0, captureSeconds: 0, embedSeconds: 0 };
  let dbBytes = 0;
  let embedderId: string | null = null;
  try {
    for (const [i, corpus] of dataset.corpora.entries()) {
      label = `[${dataset.name} ${i + 1}/${dataset.corpora.length}]`;
      const input = benchPageInput(corpus);
      const depth = options.depth ?? 100;
      const result = await bench.page.evaluate(([c, d]) => window.recollectBench!.recallCorpus(c, { depth: d }), [input, depth] as const);
      embedderId = result.embedderId;
      ingest.turns += result.ingest.turns;
      ingest.captureSeconds += result.ingest.captureMs / 1000;
      ingest.embedSeconds += result.ingest.embedMs / 1000;
      dbBytes += result.dbBytes;
      const sessionOfTurn = new Map(corpus.sessions.flatMap((s) => s.turns.map((t) => [t.id, t.sessionId] as const)));
      for (const [j, q] of corpus.questions.entries()) {
        ours.scores.push(scoreQuestion(q, result.ranked[j] ?? [], (id) => sessionOfTurn.get(id), options.ks));
        ours.latenciesMs.push(result.latenciesMs[j] ?? 0);
      }
    }
  } finally {
    await bench.close();
  }
  return {
    dataset,
    embedderId,
    rerankerId: null,
    systems: { ours },
    ingest,
    dbBytes,
    invalidEvidence: dataset.corpora.reduce((n, c) => n + c.questions.reduce((m, q) => m + q.invalidEvidence.length, 0), 0),
    questionsTotal: dataset.corpora.reduce((n, c) => n + c.questions.length, 0),
    notes: [
      'browser runtime: MemoryEngine in a dedicated worker on OPFS (headless Chromium), embedder in the model worker (ONNX Runtime WASM); latency measured inside the worker around MemoryEngine.recall.',
      'baselines are not run in the browser runtime; see the node report of the same commit (same turns, same embedder).',
    ],
  };
}

export interface SystemSummary extends AggregateScore {
  readonly byCategory: Record<string, AggregateScore>;
  readonly apart: Record<string, AggregateScore>;
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly mean: number };
}

/** Headline metrics over headline questions; the others (LoCoMo cat. 5, LongMemEval _abs) apart. */
export function summarise(run: RecallRun, name: string, ks: readonly number[]): SystemSummary {
  const sys = run.systems[name]!;
  const names = run.dataset.name === 'locomo' ? LOCOMO_CATEGORY_NAMES : {};
  const headline = sys.scores.filter((s) => s.headline);
  const apart = sys.scores.filter((s) => !s.headline);
  const lat = sys.latenciesMs;
  return {
    ...aggregate(headline, ks),
    byCategory: byCategory(headline, ks, names),
    apart: apart.length ? byCategory(apart, ks, names) : {},
    latencyMs: { p50: percentile(lat, 50), p95: percentile(lat, 95), mean: lat.reduce((a, b) => a + b, 0) / Math.max(1, lat.length) },
  };
}
