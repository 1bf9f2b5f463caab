/**
 * Construction cost: how many LLM calls and tokens building memory takes under each consolidation
 * policy, on LoCoMo conversations, against the deterministic mock endpoint (token counts, never
 * quality). Same engine as the app: real write path, real embedder (bundled model), real job queue.
 *
 *   npm run bench -- construction --data <LoCoMo json> --policy eager|recurrence|off [--out report.json]
 *
 * Also checks that every turn stays retrievable under every policy (each turn is found by its own
 * text among the top 50 full-text results, and has a vector).
 */
import { writeFile } from 'node:fs/promises';
import { loadDataset, type BenchCorpus } from './datasets';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { LlmClient } from '../src/llm/LlmClient';
import { configureNodeEnv } from '../src/models/nodeEnv';
import { localEmbedderProvider } from '../src/models/localEmbedderProvider';
import type { PolicyName } from '../src/core/episodes/consolidationPolicy';
import { immediateTimer } from '../test/support/immediateTimer';
import { startMockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { createEngine } from '../src/host/createEngine';

export interface ConstructionTotals {
  readonly llm: { readonly calls: number; readonly promptTokens: number; readonly completionTokens: number };
  readonly memcells: number;
  readonly memscenes: number;
  readonly facts: number;
  readonly foresights: number;
  readonly turns: number;
  readonly retrievableTurns: number;
  readonly embeddedTurns: number;
}

export interface ConstructionReport extends ConstructionTotals {
  readonly benchmark: 'construction';
  readonly dataset: string;
  readonly policy: PolicyName;
  readonly endpoint: 'mock';
  readonly embedder: string;
  readonly seconds: number;
  readonly byStage: Record<string, { calls: number; promptTokens: number; completionTokens: number }>;
  readonly conversations: readonly ({ readonly id: string } & ConstructionTotals)[];
}

async function buildOne(
  corpus: BenchCorpus,
  policy: PolicyName,
  llmUrl: string,
  embedders: ReturnType<typeof localEmbedderProvider>,
  byStage: ConstructionReport['byStage'],
) {
  const store = await openNodeStore();
  const llm = new LlmClient(
    { baseUrl: llmUrl, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 30_000, baseDelayMs: 1, maxDelayMs: 10 },
  );
  const engine = createEngine(store, {
    only: ['episodes', 'synthesis'],
    ...(embedders ? { embedders } : {}),
    llm,
    timer: immediateTimer,
    profileDebounceMs: 0,
  });
  await engine.start();
  await engine.synthesis.setPolicy(policy);
  await store.createConversation({ id: corpus.id, title: corpus.id });
  let n = 0;
  for (const session of corpus.sessions) {
    for (const [i, turn] of session.turns.entries()) {
      await engine.conversations.appendTurn({
        id: turn.id,
        conversationId: corpus.id,
        role: turn.role,
        speaker: turn.speaker,
        content: turn.text,
        occurredAt: session.date + i * 30_000,
        ...(turn.caption ? { metadata: { caption: turn.caption } } : {}),
      });
      n++;
    }
    await engine.idle();
  }
  await engine.closeOpenCells();
  await engine.idle();

  const totals = await store.llmCalls.totals();
  for (const [stage, t] of Object.entries(await store.llmCalls.byStage())) {
    const s = (byStage[stage] ??= { calls: 0, promptTokens: 0, completionTokens: 0 });
    s.calls += t.calls;
    s.promptTokens += t.promptTokens;
    s.completionTokens += t.completionTokens;
  }
  const counts = await store.episodes.counts();
  const messages = await store.listMessages(corpus.id);
  let retrievable = 0;
  for (const m of messages) {
    const hits = await store.searchMessages(m.content, { limit: 50 });
    if (hits.some((h) => h.message.id === m.id)) retrievable++;
  }
  const status = await engine.indexing.embeddingStatus();
  engine.stop();
  return {
    id: corpus.id,
    llm: { calls: totals.calls, promptTokens: totals.promptTokens, completionTokens: totals.completionTokens },
    memcells: counts.memcells,
    memscenes: counts.memscenes,
    facts: counts.facts,
    foresights: counts.foresights,
    turns: n,
    retrievableTurns: retrievable,
    embeddedTurns: status?.embedded ?? 0,
  };
}

export async function runConstruction(args: { data: string; policy: PolicyName; out?: string }): Promise<ConstructionReport> {
  const dataset = await loadDataset(args.data);
  if (dataset.name !== 'locomo') throw new Error('The construction benchmark takes a LoCoMo file.');
  const platform = configureNodeEnv();
  const embedders = localEmbedderProvider(platform);
  const mock = await startMockLlmServer({ responder: synthesisResponder });
  const t0 = performance.now();
  const byStage: ConstructionReport['byStage'] = {};
  const conversations: ({ id: string } & ConstructionTotals)[] = [];
  try {
    for (const [i, corpus] of dataset.corpora.entries()) {
      process.stderr.write(`\r[construction ${args.policy}] conversation ${i + 1}/${dataset.corpora.length} (${corpus.id})…   `);
      conversations.push(await buildOne(corpus, args.policy, mock.url, embedders, byStage));
    }
  } finally {
    await mock.close();
    process.stderr.write('\n');
  }
  const sum = (f: (c: ConstructionTotals) => number) => conversations.reduce((a, c) => a + f(c), 0);
  const report: ConstructionReport = {
    benchmark: 'construction',
    dataset: dataset.source,
    policy: args.policy,
    endpoint: 'mock',
    embedder: embedders.defaultModelId,
    seconds: (performance.now() - t0) / 1000,
    llm: {
      calls: sum((c) => c.llm.calls),
      promptTokens: sum((c) => c.llm.promptTokens),
      completionTokens: sum((c) => c.llm.completionTokens),
    },
    memcells: sum((c) => c.memcells),
    memscenes: sum((c) => c.memscenes),
    facts: sum((c) => c.facts),
    foresights: sum((c) => c.foresights),
    turns: sum((c) => c.turns),
    retrievableTurns: sum((c) => c.retrievableTurns),
    embeddedTurns: sum((c) => c.embeddedTurns),
    byStage,
    conversations,
  };
  if (args.out) await writeFile(args.out, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

export function printConstruction(r: ConstructionReport): void {
  console.log(
    `policy ${r.policy}: ${r.llm.calls} LLM calls, ${r.llm.promptTokens} prompt + ${r.llm.completionTokens} completion tokens; ` +
      `${r.memcells} memcells, ${r.memscenes} memscenes, ${r.facts} facts, ${r.foresights} foresights; ` +
      `${r.retrievableTurns}/${r.turns} turns retrievable, ${r.embeddedTurns} embedded; ${r.seconds.toFixed(1)} s`,
  );
}
