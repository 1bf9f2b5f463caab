/**
 * Answer accuracy: per LoCoMo conversation / LongMemEval question, build memory through
 * the app's engine (bundled embedder, consolidation policy off unless asked), answer each question
 * with answerQuestion against a real OpenAI-compatible endpoint, and grade each answer with a
 * judge model three times (majority of CORRECT/WRONG). Reports accuracy per category (LoCoMo
 * 1–4 headline, 5 apart; LongMemEval `_abs` apart), tokens per question per stage and answer
 * latency p50/p95.
 *
 *   npm run bench -- qa --data <file> --base-url <url> --model <id> [--api-key-env NAME]
 *       --judge-model <id> [--judge-base-url <url>] [--judge-api-key-env NAME] [--limit N]
 *       [--policy off|recurrence|eager] [--sufficiency] [--budget 2500] [--judge-runs 3]
 *       [--no-vectors] [--out report.json]
 *
 * The API key is read from the named environment variable, handed to the LLM client and nowhere
 * else: it is never printed and never written to the report. Against the mock server this checks
 * bookkeeping only — a mock's "accuracy" means nothing (its answers are
 * derived mechanically from the prompt).
 *
 * Majority rule: an answer is correct when more than half of the judge runs say CORRECT; a run
 * whose reply cannot be read (even after the structured-output retry) counts as not CORRECT.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { loadDataset, LOCOMO_CATEGORY_NAMES, type BenchCorpus, type BenchQuestion, type DatasetName } from './datasets';
import { percentile } from './stats';
import { answerQuestion, collectAnswer, type AnswerResult } from '../src/core/recall/answer';
import type { MemoryEngine } from '../src/core/engine/MemoryEngine';
import { SemanticIndex } from '../src/core/capture/SemanticIndex';
import type { PolicyName } from '../src/core/episodes/consolidationPolicy';
import { immediateTimer } from '../test/support/immediateTimer';
import type { EmbedderProvider, LlmCall, LlmCallSink } from '../src/core/base/ports';
import { toErrorInfo } from '../src/core/base/errors';
import { LlmClient, type LlmEndpointConfig } from '../src/llm/LlmClient';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { SqlKnowledgeSource } from '../src/storage/knowledgeSource';
import { answerSourceOf, type KnowledgeVectorSearch } from '../src/core/recall/answerSource';
import type { AnswerSource } from '../src/core/recall/answerContext';
import type { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import { createEngine } from '../src/host/createEngine';
import { ANSWER_BUDGET } from '../src/core/base/settings';
import { JudgeSchema, judgeMessages, loadGoldAnswers, majorityCorrect, type Verdict } from './qaJudge';

export { judgeMessages, loadGoldAnswers, majorityCorrect, NOT_IN_MEMORY_GOLD, type Verdict } from './qaJudge';

export interface QaArgs {
  readonly data: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly judgeModel: string;
  /** Default: the answer endpoint. */
  readonly judgeBaseUrl?: string;
  /** Default: the answer endpoint's key when the judge uses the same base URL, else none. */
  readonly judgeApiKey?: string;
  /** At most this many questions (in file order). */
  readonly limit?: number;
  readonly out?: string;
  /** Consolidation during ingest (synthesis calls go to the answer endpoint). Default 'off'. */
  readonly policy?: PolicyName;
  readonly sufficiency?: boolean;
  readonly budgetTokens?: number;
  readonly judgeRuns?: number;
  /** Embedders for vector recall; null = lexical only. Default: the bundled model in this process. */
  readonly embedders?: EmbedderProvider | null;
  readonly timeoutMs?: number;
  readonly progress?: (line: string) => void;
}

export type QaStage = 'sufficiency' | 'answer' | 'judge';

export interface TokenCount {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface QaRow {
  readonly id: string;
  readonly corpus: string;
  readonly category: string;
  readonly headline: boolean;
  readonly question: string;
  readonly gold: string;
  readonly answer: string;
  readonly verdicts: readonly Verdict[];
  readonly correct: boolean;
  readonly tokens: Readonly<Record<QaStage, TokenCount>>;
  /** Retrieval + optional sufficiency round + streamed answer. */
  readonly latencyMs: number;
  readonly rounds: number;
  readonly citations: number;
  readonly contextTokens: number;
  readonly error: string | null;
}

export interface AccuracyGroup {
  readonly questions: number;
  readonly correct: number;
  readonly accuracy: number;
}

export interface QaReport {
  readonly benchmark: 'qa';
  readonly dataset: DatasetName;
  readonly source: string;
  readonly createdAt: string;
  readonly endpoint: { readonly baseUrl: string; readonly model: string };
  readonly judge: { readonly baseUrl: string; readonly model: string; readonly runs: number };
  readonly policy: PolicyName;
  readonly sufficiency: boolean;
  readonly budgetTokens: number;
  readonly embedder: string | null;
  readonly questions: number;
  /** Headline questions (LoCoMo categories 1–4; LongMemEval without `_abs`). */
  readonly accuracy: AccuracyGroup;
  readonly byCategory: Readonly<Record<string, AccuracyGroup>>;
  /** Reported apart: LoCoMo category 5 (adversarial), LongMemEval abstention. */
  readonly apart: AccuracyGroup;
  readonly errors: number;
  readonly tokens: {
    /** Mean per answered question, per stage. */
    readonly perQuestion: Readonly<Record<QaStage, TokenCount>>;
    readonly total: Readonly<Record<QaStage, TokenCount>>;
    /** Building memory (synthesis stages), summed over corpora; empty with policy 'off'. */
    readonly construction: Readonly<Record<string, TokenCount & { readonly calls: number }>>;
  };
  readonly latencyMs: { readonly p50: number; readonly p95: number };
  readonly rows: readonly QaRow[];
}

// ---------------------------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------------------------

const ZERO: TokenCount = { promptTokens: 0, completionTokens: 0 };
const plus = (a: TokenCount, u: TokenCount): TokenCount => ({
  promptTokens: a.promptTokens + u.promptTokens,
  completionTokens: a.completionTokens + u.completionTokens,
});

function group(rows: readonly QaRow[]): AccuracyGroup {
  const correct = rows.filter((r) => r.correct).length;
  return { questions: rows.length, correct, accuracy: rows.length ? correct / rows.length : 0 };
}

interface Built {
  readonly store: SqliteMemoryStore;
  readonly engine: MemoryEngine;
  readonly source: AnswerSource;
}

async function buildMemory(
  corpus: BenchCorpus,
  endpoint: LlmEndpointConfig,
  timeoutMs: number,
  embedders: EmbedderProvider | null,
  policy: PolicyName,
): Promise<Built> {
  const store = await openNodeStore();
  // Synthesis (policy on) goes to the answer endpoint, logged in this corpus's llm_calls.
  const llm = new LlmClient(endpoint, { sink: store.llmCalls, timeoutMs });
  const engine = createEngine(store, {
    only: ['episodes', 'synthesis', 'recall'],
    ...(embedders ? { embedders } : {}),
    llm,
    timer: immediateTimer,
    profileDebounceMs: 0,
  });
  await engine.start();
  await engine.synthesis.setPolicy(policy);
  await store.createConversation({ id: corpus.id, title: corpus.id });
  for (const session of corpus.sessions) {
    await engine.conversations.appendTurns(
      session.turns.map((turn, i) => ({
        id: turn.id,
        conversationId: corpus.id,
        role: turn.role,
        speaker: turn.speaker,
        content: turn.text,
        occurredAt: session.date + i * 30_000,
        ...(turn.caption ? { metadata: { caption: turn.caption } } : {}),
      })),
    );
    await engine.idle();
  }
  await engine.closeOpenCells();
  await engine.idle();

  let vectors: KnowledgeVectorSearch | undefined;
  if (embedders) {
    // Facts and narratives were embedded by the Consolidator with the active (bundled) model.
    const embedder = embedders.embedder(embedders.defaultModelId);
    const indexes = { fact: new SemanticIndex(store, 'fact'), memcell: new SemanticIndex(store, 'memcell') };
    const cache = new Map<string, Promise<Float32Array | undefined>>();
    vectors = async (kind, query, k) => {
      let v = cache.get(query);
      if (!v) cache.set(query, (v = embedder.embed([query], 'query').then((r) => r[0])));
      const vector = await v;
      return vector ? indexes[kind].search(embedder.id, embedder.dim, vector, k) : [];
    };
  }
  const source = answerSourceOf(new SqlKnowledgeSource(store.db), (q, o) => engine.answers.recall(q, o), vectors);
  return { store, engine, source };
}

async function judge(client: LlmClient, runs: number, question: string, gold: string, answer: string): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  // Sequential on purpose: results stay in a deterministic order and rate limits stay polite.
  for (let i = 0; i < runs; i++) {
    try {
      const r = await client.completeJson({
        stage: 'judge',
        messages: judgeMessages(question, gold, answer),
        schema: JudgeSchema,
        maxTokens: 300,
      });
      verdicts.push(r.value.label);
    } catch {
      // a failed or unreadable judge call is an ERROR verdict, counted apart
      verdicts.push('ERROR');
    }
  }
  return verdicts;
}

/**
 * Sums every attempt the client reports (retries and failed structured replies included), per
 * stage, until taken. Questions run one at a time, so a take() after each belongs to it.
 */
export class UsageMeter implements LlmCallSink {
  #byStage = new Map<string, TokenCount>();
  record(call: LlmCall): void {
    this.#byStage.set(call.stage, plus(this.#byStage.get(call.stage) ?? ZERO, call));
  }
  take(stage: string): TokenCount {
    const t = this.#byStage.get(stage) ?? ZERO;
    this.#byStage.delete(stage);
    return t;
  }
}

export async function runQa(args: QaArgs): Promise<QaReport> {
  const dataset = await loadDataset(args.data);
  const golds = await loadGoldAnswers(args.data, dataset.name);
  const policy = args.policy ?? 'off';
  const runs = Math.max(1, args.judgeRuns ?? 3);
  const budgetTokens = args.budgetTokens ?? ANSWER_BUDGET.default;
  const timeoutMs = args.timeoutMs ?? 120_000;
  const progress = args.progress ?? (() => undefined);
  let embedders: EmbedderProvider | null;
  if (args.embedders !== undefined) embedders = args.embedders;
  else {
    const [{ configureNodeEnv }, { localEmbedderProvider }] = await Promise.all([
      import('../src/models/nodeEnv'),
      import('../src/models/localEmbedderProvider'),
    ]);
    embedders = localEmbedderProvider(configureNodeEnv());
  }

  const answerEndpoint: LlmEndpointConfig = { baseUrl: args.baseUrl, model: args.model, ...(args.apiKey ? { apiKey: args.apiKey } : {}) };
  const judgeBaseUrl = args.judgeBaseUrl ?? args.baseUrl;
  const judgeKey = args.judgeApiKey ?? (judgeBaseUrl === args.baseUrl ? args.apiKey : undefined);
  const meter = new UsageMeter();
  const judgeClient = new LlmClient(
    { baseUrl: judgeBaseUrl, model: args.judgeModel, ...(judgeKey ? { apiKey: judgeKey } : {}) },
    { timeoutMs, sink: meter },
  );

  const limit = args.limit ?? Number.POSITIVE_INFINITY;
  const rows: QaRow[] = [];
  const construction: Record<string, { calls: number; promptTokens: number; completionTokens: number }> = {};
  let asked = 0;
  for (const [ci, corpus] of dataset.corpora.entries()) {
    if (asked >= limit) break;
    const questions = corpus.questions.filter((q) => q.text.trim() && golds.has(q.id)).slice(0, limit - asked);
    if (questions.length === 0) continue;
    asked += questions.length;
    progress(`[qa] ${corpus.id} (${ci + 1}/${dataset.corpora.length}): building memory…`);
    // Each corpus gets its own database, whose call log holds what building its memory cost.
    const built = await buildMemory(corpus, answerEndpoint, timeoutMs, embedders, policy);
    for (const [stage, t] of Object.entries(await built.store.llmCalls.byStage())) {
      const s = (construction[stage] ??= { calls: 0, promptTokens: 0, completionTokens: 0 });
      s.calls += t.calls;
      s.promptTokens += t.promptTokens;
      s.completionTokens += t.completionTokens;
    }
    const llm = new LlmClient(answerEndpoint, { timeoutMs, sink: meter });
    for (const [qi, q] of questions.entries()) {
      progress(`[qa] ${corpus.id}: question ${qi + 1}/${questions.length}`);
      rows.push(
        await answerOne(q, corpus.id, golds.get(q.id)!, llm, judgeClient, built.source, meter, {
          runs,
          budgetTokens,
          sufficiency: args.sufficiency ?? false,
        }),
      );
    }
    built.engine.stop();
  }

  const answered = rows.filter((r) => r.error === null);
  const total = (stage: QaStage) => rows.reduce((a, r) => plus(a, r.tokens[stage]), ZERO);
  const mean = (t: TokenCount): TokenCount => ({
    promptTokens: answered.length ? t.promptTokens / answered.length : 0,
    completionTokens: answered.length ? t.completionTokens / answered.length : 0,
  });
  const totals = { sufficiency: total('sufficiency'), answer: total('answer'), judge: total('judge') };
  const headline = rows.filter((r) => r.headline);
  const categories = [...new Set(headline.map((r) => r.category))].sort();
  const name = (c: string) => (dataset.name === 'locomo' ? `${c} ${LOCOMO_CATEGORY_NAMES[c] ?? ''}`.trim() : c);
  const latencies = answered.map((r) => r.latencyMs);
  const report: QaReport = {
    benchmark: 'qa',
    dataset: dataset.name,
    source: dataset.source,
    createdAt: new Date().toISOString(),
    endpoint: { baseUrl: args.baseUrl, model: args.model },
    judge: { baseUrl: judgeBaseUrl, model: args.judgeModel, runs },
    policy,
    sufficiency: args.sufficiency ?? false,
    budgetTokens,
    embedder: embedders ? embedders.defaultModelId : null,
    questions: rows.length,
    accuracy: group(headline),
    byCategory: Object.fromEntries(categories.map((c) => [name(c), group(headline.filter((r) => r.category === c))])),
    apart: group(rows.filter((r) => !r.headline)),
    errors: rows.length - answered.length,
    tokens: {
      perQuestion: { sufficiency: mean(totals.sufficiency), answer: mean(totals.answer), judge: mean(totals.judge) },
      total: totals,
      construction,
    },
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    rows,
  };
  if (args.out) await writeFile(args.out, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

async function answerOne(
  q: BenchQuestion,
  corpus: string,
  gold: string,
  llm: LlmClient,
  judgeClient: LlmClient,
  source: AnswerSource,
  meter: UsageMeter,
  opts: { runs: number; budgetTokens: number; sufficiency: boolean },
): Promise<QaRow> {
  const base = { id: q.id, corpus, category: q.category, headline: q.headline, question: q.text, gold };
  const t0 = performance.now();
  let result: AnswerResult;
  try {
    result = await collectAnswer(
      answerQuestion({ llm, source, clock: { now: () => q.askedAt }, countTokens }, q.text, {
        now: q.askedAt,
        sufficiencyCheck: opts.sufficiency,
        budgetTokens: opts.budgetTokens,
        temperature: 0,
      }),
    );
  } catch (err) {
    const info = toErrorInfo(err);
    return {
      ...base,
      answer: '',
      verdicts: [],
      correct: false,
      tokens: { sufficiency: meter.take('sufficiency'), answer: meter.take('answer'), judge: ZERO },
      latencyMs: performance.now() - t0,
      rounds: 0,
      citations: 0,
      contextTokens: 0,
      error: `${info.code}: ${info.message}`,
    };
  }
  const latencyMs = performance.now() - t0;
  const verdicts = await judge(judgeClient, opts.runs, q.text, gold, result.answer);
  return {
    ...base,
    answer: result.answer,
    verdicts,
    correct: majorityCorrect(verdicts, opts.runs),
    // From the clients' call reports: every attempt, retries included (result.usage agrees when
    // nothing failed).
    tokens: { sufficiency: meter.take('sufficiency'), answer: meter.take('answer'), judge: meter.take('judge') },
    latencyMs,
    rounds: result.rounds,
    citations: result.citations.length,
    contextTokens: result.context.tokens,
    error: null,
  };
}

export function printQa(r: QaReport, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): void {
  const pct = (g: AccuracyGroup) => `${(g.accuracy * 100).toFixed(1).padStart(5)}%  (${g.correct}/${g.questions})`;
  write(
    `${r.dataset} ${r.source}: ${r.questions} questions; answer ${r.endpoint.model}, judge ${r.judge.model} ×${r.judge.runs} (majority)`,
  );
  write(
    `policy ${r.policy}, sufficiency ${r.sufficiency ? 'on' : 'off'}, context budget ${r.budgetTokens} tokens, embedder ${r.embedder ?? 'none (lexical)'}`,
  );
  write(`${'headline'.padEnd(22)}${pct(r.accuracy)}`);
  for (const [c, g] of Object.entries(r.byCategory)) write(`  ${c.padEnd(20)}${pct(g)}`);
  if (r.apart.questions) write(`${'apart (adversarial/abs)'.padEnd(22)}${pct(r.apart)}`);
  if (r.errors) write(`errors: ${r.errors} questions could not be answered (see rows[].error)`);
  const t = r.tokens.perQuestion;
  const fmt = (x: TokenCount) => `${x.promptTokens.toFixed(0)} in + ${x.completionTokens.toFixed(0)} out`;
  write(`tokens/question: sufficiency ${fmt(t.sufficiency)}, answer ${fmt(t.answer)}, judge ${fmt(t.judge)}`);
  const built = Object.entries(r.tokens.construction);
  if (built.length) write(`construction: ${built.map(([s, x]) => `${s} ${x.calls} calls, ${fmt(x)}`).join('; ')}`);
  write(`answer latency p50 ${r.latencyMs.p50.toFixed(0)} ms, p95 ${r.latencyMs.p95.toFixed(0)} ms`);
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

export const QA_USAGE =
  'usage: npm run bench -- qa --data <file|folder> --base-url <url> --model <id> [--api-key-env NAME] --judge-model <id> ' +
  '[--judge-base-url <url>] [--judge-api-key-env NAME] [--limit N] [--policy off|recurrence|eager] [--sufficiency] [--budget N] [--judge-runs N] [--no-vectors] [--out report.json]';

/** Parses the qa subcommand's arguments; keys come from the environment variables named. Throws on bad input. */
export function parseQaArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): QaArgs {
  const flags = ['sufficiency', 'no-vectors'];
  const known = [
    'data',
    'base-url',
    'model',
    'api-key-env',
    'judge-model',
    'judge-base-url',
    'judge-api-key-env',
    'limit',
    'policy',
    'budget',
    'judge-runs',
    'out',
  ];
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: Object.fromEntries([
        ...flags.map((f) => [f, { type: 'boolean' as const }]),
        ...known.map((k) => [k, { type: 'string' as const }]),
      ]),
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new Error(err instanceof Error ? err.message.replace(/\s*To specify an option argument.*$/s, '') : String(err));
  }
  // Keys as the rest of this function names them ("--data").
  const o: Record<string, string | boolean> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) o[`--${k}`] = v;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  const int = (k: string) => {
    const v = str(k);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${k} needs a positive integer`);
    return n;
  };
  const key = (k: string) => {
    const name = str(k);
    if (name === undefined) return undefined;
    const value = env[name];
    // Name the variable, never its value.
    if (!value) throw new Error(`${k}: the environment variable ${name} is not set`);
    return value;
  };
  const data = str('--data');
  const baseUrl = str('--base-url');
  const model = str('--model');
  const judgeModel = str('--judge-model');
  if (!data || !baseUrl || !model || !judgeModel) throw new Error('--data, --base-url, --model and --judge-model are required');
  const policy = str('--policy') ?? 'off';
  if (policy !== 'off' && policy !== 'recurrence' && policy !== 'eager') throw new Error('--policy is off, recurrence or eager');
  const apiKey = key('--api-key-env');
  const judgeApiKey = key('--judge-api-key-env');
  const limit = int('--limit');
  const budgetTokens = int('--budget');
  const judgeRuns = int('--judge-runs');
  const judgeBaseUrl = str('--judge-base-url');
  const out = str('--out');
  return {
    data,
    baseUrl,
    model,
    judgeModel,
    policy,
    ...(apiKey ? { apiKey } : {}),
    ...(judgeApiKey ? { judgeApiKey } : {}),
    ...(judgeBaseUrl ? { judgeBaseUrl } : {}),
    ...(limit ? { limit } : {}),
    ...(budgetTokens ? { budgetTokens } : {}),
    ...(judgeRuns ? { judgeRuns } : {}),
    ...(out ? { out } : {}),
    ...(o['--sufficiency'] ? { sufficiency: true } : {}),
    ...(o['--no-vectors'] ? { embedders: null } : {}),
  };
}

/** The `qa` subcommand: parse, run with progress on stderr, print the summary. */
export async function qaCommand(argv: readonly string[]): Promise<void> {
  let args: QaArgs;
  try {
    args = parseQaArgs(argv);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${QA_USAGE}\n`);
    process.exit(2);
  }
  const report = await runQa({ ...args, progress: (line) => process.stderr.write(`${line}\n`) });
  printQa(report);
  if (args.out) process.stdout.write(`report written to ${args.out}\n`);
}
