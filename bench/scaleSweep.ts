/**
 * Read-path variants on a database the scale benchmark kept (`scale --db <file>`, Node): the same
 * questions as the scale run at that size (the newest scorable ones), ranked by each variant of
 * RETRIEVAL_CONFIG and by FTS5 BM25 alone, on the same connection, without growing the database
 * again (growing 100,000 turns takes tens of minutes; a sweep takes one or two):
 *
 *   npm run bench -- scale-sweep --db kept.100408.sqlite --data … [--data …] [--questions 150]
 *       [--sweep variants.json] [--set path=value …] [--reps 1]
 *
 * Variants are rounds-robin per question (each question ranked by every variant in turn), so load
 * drifting over the run touches them alike; latencies are medians and p95 over the questions.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { openFileStore } from '../src/storage/openNodeDatabase';
import { SqlRetrievalSource } from '../src/storage/retrievalSource';
import { SemanticIndex } from '../src/core/capture/SemanticIndex';
import { Retriever } from '../src/core/recall/Retriever';
import { withConfig, type DeepPartial, type RetrievalConfig } from '../src/core/recall/fusion';
import { localEmbedderProvider } from '../src/models/localEmbedderProvider';
import { configureNodeEnv } from '../src/models/nodeEnv';
import { nodeVectorIndex } from '../src/wasm/nodeVectorKernel';
import { loadScaleCorpora, newestQuestions, SCALE_KS, type ScaleCorpus } from './scale';
import { aggregate, scoreQuestion } from './scoring';
import { percentile } from './stats';
import { setKnob } from './cliArgs';
import type { BenchQuestion } from './datasets';
import type { Embedder } from '../src/core/base/ports';
import { recordingDeps, replay } from './recallStages';

/**
 * The first variant's recall of every question, stage by stage (recallStages.ts): each call the
 * Retriever makes replayed alone, and the Retriever's own work over the recorded answers.
 */
async function stageProfile(
  source: SqlRetrievalSource,
  embedder: Embedder,
  config: RetrievalConfig,
  questions: readonly BenchQuestion[],
  speakers: readonly string[],
): Promise<string> {
  const rec = recordingDeps(source, embedder);
  const retriever = new Retriever({ source: rec.source, embedder: rec.embedder, config });
  const per = new Map<string, number[]>();
  const add = (stage: string, ms: number) => per.set(stage, [...(per.get(stage) ?? []), ms]);
  for (const q of questions) {
    const opts = { limit: 10, speakers, now: q.askedAt };
    const t0 = performance.now();
    await retriever.retrieve(q.text, opts);
    add('recall (wall)', performance.now() - t0);
    const calls = rec.take();
    const stages = await replay(calls);
    for (const [stage, ms] of stages) add(stage, ms);
    rec.answerFrom(calls);
    const t1 = performance.now();
    await retriever.retrieve(q.text, opts);
    add('in the Retriever', performance.now() - t1);
    rec.live();
  }
  const lines = ['| stage | questions | mean / p50 / p95 ms |', '|---|---:|---:|'];
  for (const [stage, t] of per) {
    const mean = t.reduce((a, b) => a + b, 0) / questions.length;
    lines.push(`| ${stage} | ${t.length} | ${mean.toFixed(2)} / ${percentile(t, 50).toFixed(2)} / ${percentile(t, 95).toFixed(2)} |`);
  }
  return lines.join('\n');
}

export async function scaleSweepCommand(argv: readonly string[], progress: (line: string) => void): Promise<void> {
  const { values: v } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      db: { type: 'string' },
      data: { type: 'string', multiple: true },
      questions: { type: 'string' },
      sweep: { type: 'string' },
      set: { type: 'string', multiple: true },
      reps: { type: 'string' },
      stages: { type: 'boolean' },
    },
  });
  if (!v.db || !v.data?.length)
    throw new Error(
      'usage: npm run bench -- scale-sweep --db <kept.sqlite> --data <file|folder> [--data …] [--questions 150] [--sweep variants.json] [--set path=value …] [--reps 1] [--stages]',
    );
  const base: Record<string, unknown> = {};
  for (const s of v.set ?? []) setKnob(base, s.slice(0, s.indexOf('=')), s.slice(s.indexOf('=') + 1));
  const variants: { name: string; config: RetrievalConfig }[] = [
    { name: 'ours', config: withConfig(base as DeepPartial<RetrievalConfig>) },
  ];
  if (v.sweep) {
    for (const [name, o] of Object.entries(JSON.parse(await readFile(v.sweep, 'utf8')) as Record<string, Record<string, unknown>>)) {
      const merged: Record<string, unknown> = structuredClone(base);
      for (const [k, val] of Object.entries(o)) {
        if (val !== null && typeof val === 'object') for (const [k2, v2] of Object.entries(val)) setKnob(merged, `${k}.${k2}`, String(v2));
        else setKnob(merged, k, String(val));
      }
      variants.push({ name, config: withConfig(merged as DeepPartial<RetrievalConfig>) });
    }
  }
  const reps = Number(v.reps ?? 1);

  const store = await openFileStore(v.db);
  await store.db.query('PRAGMA cache_size = -1048576');
  const [row] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages');
  const turns = Number(row?.n ?? 0);
  // The corpora the kept database holds (appended in order) and their questions, newest first.
  const corpora = await loadScaleCorpora(v.data);
  const sessionOf = new Map<string, string>();
  const added: ScaleCorpus[] = [];
  let n = 0;
  for (const c of corpora) {
    if (n + c.turns > turns) break;
    n += c.turns;
    added.push(c);
    for (const [t, s] of c.sessionOf) sessionOf.set(t, s);
  }
  const questions = newestQuestions(added, Number(v.questions ?? 150));
  progress(`${turns} turns, ${questions.length} questions, ${variants.length} variants`);

  const embedders = localEmbedderProvider(configureNodeEnv());
  const embedder = embedders.embedder(embedders.defaultModelId);
  const semantic = new SemanticIndex(store, 'message', (await nodeVectorIndex()).factory);
  const source = new SqlRetrievalSource(store.db, {
    vectors: (model, query, k, options) => semantic.search(model, query.length, query, k, options),
  });
  const speakers = await store.speakers();
  const systems = [
    ...variants.map(({ name, config }) => {
      const retriever = new Retriever({ source, embedder, config });
      return {
        name,
        rank: async (q: BenchQuestion) =>
          (await retriever.retrieve(q.text, { limit: 10, speakers, now: q.askedAt })).turns.map((t) => t.message.id),
      };
    }),
    { name: 'bm25', rank: async (q: BenchQuestion) => (await store.searchMessages(q.text, { limit: 10 })).map((h) => h.message.id) },
  ];
  // Warm-up: the vector index loads, the page cache fills.
  for (const s of systems) for (const q of questions.slice(0, 3)) await s.rank(q);
  const ranked = new Map(systems.map((s) => [s.name, [] as string[][]]));
  const times = new Map(systems.map((s) => [s.name, [] as number[]]));
  // CPU time of the process over each call as well: on a machine shared with other jobs the wall
  // time also counts the time the process waited for a core, which the code does not control.
  const cpu = new Map(systems.map((s) => [s.name, [] as number[]]));
  for (const [i, q] of questions.entries()) {
    for (const s of systems) {
      let best = Infinity;
      let bestCpu = Infinity;
      let ids: string[] = [];
      for (let r = 0; r < reps; r++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        ids = await s.rank(q);
        best = Math.min(best, performance.now() - t0);
        const c = process.cpuUsage(c0);
        bestCpu = Math.min(bestCpu, (c.user + c.system) / 1000);
      }
      ranked.get(s.name)!.push(ids);
      times.get(s.name)!.push(best);
      cpu.get(s.name)!.push(bestCpu);
    }
    if (i % 25 === 24) progress(`${i + 1}/${questions.length}`);
  }
  const lookup = (id: string) => sessionOf.get(id);
  const lines = ['| system | p50 / p95 ms | CPU p50 / p95 ms | recall.turn @1 / @5 / @10 |', '|---|---:|---:|---:|'];
  for (const s of systems) {
    const agg = aggregate(
      questions.map((q, i) => scoreQuestion(q, ranked.get(s.name)![i] ?? [], lookup, SCALE_KS)),
      SCALE_KS,
    );
    const t = times.get(s.name)!;
    const c = cpu.get(s.name)!;
    lines.push(
      `| ${s.name} | ${percentile(t, 50).toFixed(1)} / ${percentile(t, 95).toFixed(1)} | ${percentile(c, 50).toFixed(1)} / ${percentile(c, 95).toFixed(1)} | ${SCALE_KS.map((k) => ((agg.recall.turn[k] ?? 0) * 100).toFixed(1)).join(' / ')} |`,
    );
  }
  process.stdout.write(`${turns.toLocaleString('en')} turns, ${questions.length} questions\n${lines.join('\n')}\n`);
  if (v.stages) process.stdout.write(`\n${await stageProfile(source, embedder, variants[0]!.config, questions, speakers)}\n`);
  await store.db.close();
}
