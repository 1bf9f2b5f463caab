/**
 * The recall benchmark runner (Node runtime). Each corpus — a LoCoMo conversation or a
 * LongMemEval question — gets a fresh in-memory database; its turns go in order, with their
 * session timestamps, through MemoryEngine.appendTurn (the real write path: messages, FTS
 * triggers, the turn index) and the engine's background embedding indexer. Then every question
 * runs through the Retriever and through the baselines over the same database and vectors.
 *
 * Several retrieval configs can be evaluated over one ingest (`variants`), which is how the
 * knobs in src/core/fusion.ts were tuned on the dev split.
 */
import { MemoryEngine } from '../src/core/MemoryEngine';
import { SemanticIndex } from '../src/core/SemanticIndex';
import { Retriever } from '../src/core/Retriever';
import type { RetrievalConfig } from '../src/core/fusion';
import type { Embedder } from '../src/core/ports';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { SqlRetrievalSource } from '../src/storage/retrievalSource';
import { BUNDLED_MODEL_ID } from '../src/models/catalog';
import { localEmbedderProvider } from '../src/models/localEmbedderProvider';
import { configureNodeEnv } from '../src/models/nodeEnv';
import { TransformersReranker } from '../src/models/TransformersReranker';
import type { Reranker } from '../src/core/ports';
import { LOCOMO_CATEGORY_NAMES, type BenchCorpus, type BenchDataset } from './datasets';
import { bm25Baseline, oramaBaselines, type Baseline } from './baselines';
import { aggregate, byCategory, percentile, scoreQuestion, type AggregateScore, type QuestionScore } from './scoring';

export interface RecallRunOptions {
  readonly ks: readonly number[];
  /** Named retrieval configs; the first is "ours" in the report. */
  readonly variants: readonly { readonly name: string; readonly config: RetrievalConfig }[];
  readonly baselines: boolean;
  /** Use the embedder (vectors) at all; false gives a lexical-only run. */
  readonly vectors: boolean;
  /** Catalog id of a reranker to load (e.g. the bundled stand-in); none when absent. */
  readonly reranker?: string;
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
}

function turnContent(text: string, caption: string | undefined): string {
  if (text.trim()) return text;
  return caption ? `[image: ${caption}]` : '[empty turn]';
}

async function runCorpus(corpus: BenchCorpus, options: RecallRunOptions, embedders: ReturnType<typeof localEmbedderProvider> | null, reranker: Reranker | null, run: { systems: Record<string, SystemResult>; ingest: RecallRun['ingest']; dbBytes: number }, label: string): Promise<void> {
  const depth = options.depth ?? 100;
  const store = await openNodeStore();
  const engine = new MemoryEngine({ store, ...(embedders ? { embedders } : {}) });
  await engine.start();
  // LoCoMo: one conversation with many sessions; LongMemEval: each haystack session is its own chat.
  const perSessionConversations = corpus.speakers.includes('Assistant');
  const sessionOfTurn = new Map<string, string>();
  let t0 = performance.now();
  for (const session of corpus.sessions) {
    const conversationId = perSessionConversations ? session.id : corpus.id;
    if (perSessionConversations || session === corpus.sessions[0]) await engine.createConversation({ id: conversationId, title: conversationId });
    for (const turn of session.turns) {
      sessionOfTurn.set(turn.id, session.id);
      await engine.appendTurn({
        id: turn.id,
        conversationId,
        role: turn.role,
        speaker: turn.speaker,
        content: turnContent(turn.text, turn.caption),
        occurredAt: session.date,
        metadata: turn.caption ? { caption: turn.caption } : {},
      });
    }
  }
  const captureMs = performance.now() - t0;
  t0 = performance.now();
  await engine.idle();
  const embedMs = performance.now() - t0;
  run.ingest.turns += sessionOfTurn.size;
  run.ingest.captureSeconds += captureMs / 1000;
  run.ingest.embedSeconds += embedMs / 1000;
  run.dbBytes += (await store.stats()).databaseBytes;

  const embedder: Embedder | null = embedders ? embedders.embedder(BUNDLED_MODEL_ID) : null;
  const semantic = new SemanticIndex(store, 'message');
  const source = new SqlRetrievalSource(store.db, {
    vectors: (model, query, k) => semantic.search(model, query.length, query, k),
  });
  const retrievers = options.variants.map((v) => ({ name: v.name, retriever: new Retriever({ source, ...(embedder ? { embedder } : {}), ...(reranker ? { reranker } : {}), config: v.config }) }));
  const baselines: Baseline[] = [];
  if (options.baselines) {
    baselines.push(bm25Baseline(store));
    const vectors = embedder ? new Map((await store.loadVectors('message', embedder.id)).map((v) => [v.itemId, v.vector])) : new Map<string, Float32Array>();
    const docs = corpus.sessions.flatMap((s) => s.turns.map((t) => ({ id: t.id, text: [t.text, t.caption ?? ''].join(' ').trim() || '-', vector: vectors.get(t.id) ?? null })));
    baselines.push(...(await oramaBaselines(docs, embedder)));
  }
  const systems: { name: string; rank: (q: (typeof corpus.questions)[number]) => Promise<string[]> }[] = [
    ...retrievers.map(({ name, retriever }) => ({
      name,
      rank: async (q: (typeof corpus.questions)[number]) =>
        (await retriever.retrieve(q.text, { limit: depth, speakers: corpus.speakers, now: q.askedAt })).turns.map((t) => t.message.id),
    })),
    ...baselines.map((b) => ({ name: b.name, rank: (q: (typeof corpus.questions)[number]) => b.rank(q.text, depth) })),
  ];
  const sessionOf = (id: string) => sessionOfTurn.get(id);
  for (const system of systems) {
    // Warm-up (untimed): loads the vector index, JIT-compiles the hot paths.
    for (const q of corpus.questions.slice(0, 3)) await system.rank(q);
    const result = (run.systems[system.name] ??= { scores: [], latenciesMs: [] });
    for (const [i, q] of corpus.questions.entries()) {
      const start = performance.now();
      const ranked = await system.rank(q);
      result.latenciesMs.push(performance.now() - start);
      result.scores.push(scoreQuestion(q, ranked, sessionOf, options.ks));
      if (i % 25 === 0) options.progress?.(`${label} ${system.name}: question ${i + 1}/${corpus.questions.length}`);
    }
  }
  engine.stop();
  await store.db.close();
}

export async function runRecall(dataset: BenchDataset, options: RecallRunOptions): Promise<RecallRun> {
  let embedders: ReturnType<typeof localEmbedderProvider> | null = null;
  const platform = configureNodeEnv();
  if (options.vectors) embedders = localEmbedderProvider(platform);
  const reranker = options.reranker ? await TransformersReranker.create(options.reranker, { platform }) : null;
  const run = {
    systems: {} as Record<string, SystemResult>,
    ingest: { turns: 0, captureSeconds: 0, embedSeconds: 0 },
    dbBytes: 0,
  };
  for (const [i, corpus] of dataset.corpora.entries()) {
    const label = `[${dataset.name} ${i + 1}/${dataset.corpora.length} ${corpus.id}]`;
    options.progress?.(`${label} ingesting ${corpus.sessions.reduce((n, s) => n + s.turns.length, 0)} turns`);
    await runCorpus(corpus, options, embedders, reranker, run, label);
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
