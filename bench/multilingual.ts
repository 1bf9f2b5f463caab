/**
 * Multilingual known-item recall (bench/data/multilingual): every language's conversations go
 * into ONE memory (a person who writes several languages), and each turn's query — two or three
 * words copied from it — must find that turn. Reported per language:
 *
 * - `search`: the app's message search (messages_fts, store.searchMessages), recall@k;
 * - `recall`: the Retriever (turn index + vectors of the bundled model, the app's read path);
 * - a tokenizer comparison on bare FTS5 tables, index and query through the same rule:
 *   unicode61 as before, FTS5 `trigram`, character bigrams (ours), Intl.Segmenter words, and
 *   bigrams + segmenter words — with index size and build time, so the choice is by recall and cost.
 *
 *   npm run bench -- multilingual [--data bench/data/multilingual] [--out bench/results/multilingual.json]
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchCorpus, BenchDataset, BenchQuestion, BenchSession } from './datasets';
import { runRecall, summarise } from './recall';
import { RETRIEVAL_CONFIG } from '../src/core/recall/fusion';
import { openMemoryDatabase } from '../src/storage/openNodeDatabase';
import { lexicalText } from '../src/core/base/lexicalUnits';
import { terms } from '../src/core/base/text';
import { orMatch } from '../src/storage/retrievalSource';
import { median, percentile } from './stats';

interface FileTurn {
  readonly speaker: 'user' | 'assistant';
  readonly text: string;
  readonly query?: string;
}
interface FileData {
  readonly language: string;
  readonly conversations: readonly { readonly id: string; readonly turns: readonly FileTurn[] }[];
}

const KS = [1, 3, 10] as const;
const DAY = 86_400_000;
const START = Date.UTC(2025, 0, 6, 9);

/** One corpus holding every language (category = language), one session per conversation. */
export async function loadMultilingual(dir: string): Promise<BenchDataset> {
  const files = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  const sessions: BenchSession[] = [];
  const questions: BenchQuestion[] = [];
  for (const name of files) {
    const data = JSON.parse(await readFile(join(dir, name), 'utf8')) as FileData;
    for (const conv of data.conversations) {
      const date = START + sessions.length * DAY;
      const turns = conv.turns.map((t, i) => ({
        id: `${conv.id}:${i + 1}`,
        sessionId: conv.id,
        role: t.speaker,
        speaker: t.speaker === 'user' ? 'User' : 'Assistant',
        text: t.text,
      }));
      sessions.push({ id: conv.id, date, turns });
      conv.turns.forEach((t, i) => {
        if (!t.query) return;
        questions.push({
          id: `${conv.id}:${i + 1}?`,
          text: t.query,
          askedAt: START + 60 * DAY,
          category: data.language,
          headline: true,
          evidenceTurns: [`${conv.id}:${i + 1}`],
          evidenceSessions: [conv.id],
          invalidEvidence: [],
        });
      });
    }
  }
  const corpus: BenchCorpus = { id: 'multilingual', speakers: ['User', 'Assistant'], sessions, questions };
  return { name: 'multilingual', source: dir, corpora: [corpus] };
}

// ---- tokenizer comparison on bare FTS5 tables ------------------------------------------------

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
const rawWords = (s: string) => [...s.normalize('NFKC').toLowerCase().matchAll(WORD)].map((m) => m[0]);
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const segmentWords = (s: string) =>
  [...segmenter.segment(s.normalize('NFKC').toLowerCase())].filter((x) => x.isWordLike).map((x) => x.segment);

interface Method {
  readonly name: string;
  readonly tokenize: string;
  readonly index: (text: string) => string;
  readonly query: (text: string) => string | null;
}

const TOKENIZE = `porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'`;
const METHODS: readonly Method[] = [
  { name: 'unicode61 (before)', tokenize: 'porter unicode61 remove_diacritics 2', index: (t) => t, query: (q) => orMatch(rawWords(q)) },
  { name: 'trigram', tokenize: 'trigram', index: (t) => t, query: (q) => orMatch(rawWords(q)) },
  { name: 'bigrams (ours)', tokenize: TOKENIZE, index: lexicalText, query: (q) => orMatch(terms(q)) },
  { name: 'Intl.Segmenter words', tokenize: TOKENIZE, index: (t) => segmentWords(t).join(' '), query: (q) => orMatch(segmentWords(q)) },
  {
    name: 'bigrams + segmenter',
    tokenize: TOKENIZE,
    index: (t) => `${lexicalText(t)} ${segmentWords(t).join(' ')}`,
    query: (q) => orMatch([...new Set([...terms(q), ...segmentWords(q)])]),
  },
];

export interface MethodResult {
  readonly name: string;
  /** language → recall@k (fraction of queries whose turn is in the top k). */
  readonly byLanguage: Record<string, Record<number, number>>;
  readonly indexBytes: number;
  readonly buildMs: number;
  readonly queryP50Ms: number;
}

async function runMethod(m: Method, corpus: BenchCorpus, reps: number): Promise<MethodResult> {
  const turns = corpus.sessions.flatMap((s) => s.turns);
  const buildTimes: number[] = [];
  let db = await openMemoryDatabase({ migrateSchema: false });
  for (let r = 0; r <= reps; r++) {
    if (r > 0) await db.close();
    db = await openMemoryDatabase({ migrateSchema: false });
    await db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, content = '', contentless_delete = 1, tokenize = "${m.tokenize}")`);
    const start = performance.now();
    await db.transaction(async (tx) => {
      for (const [i, t] of turns.entries()) await tx.exec('INSERT INTO t(rowid, x) VALUES (?, ?)', [i + 1, m.index(t.text)]);
    });
    if (r > 0) buildTimes.push(performance.now() - start); // r = 0 is the warm-up
  }
  const [size] = await db.query<{ n: number }>('SELECT sum(length(block)) AS n FROM t_data');
  const hits: Record<string, Record<number, number>> = {};
  const counts: Record<string, number> = {};
  const queryMs: number[] = [];
  for (const q of corpus.questions) {
    const match = m.query(q.text);
    const start = performance.now();
    const rows = match ? await db.query<{ rowid: number }>('SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10', [match]) : [];
    queryMs.push(performance.now() - start);
    const ranked = rows.map((r) => turns[Number(r.rowid) - 1]!.id);
    counts[q.category] = (counts[q.category] ?? 0) + 1;
    const lang = (hits[q.category] ??= {});
    for (const k of KS) lang[k] = (lang[k] ?? 0) + (ranked.slice(0, k).includes(q.evidenceTurns[0]!) ? 1 : 0);
  }
  await db.close();
  for (const [lang, byK] of Object.entries(hits)) for (const k of KS) byK[k] = byK[k]! / counts[lang]!;
  return {
    name: m.name,
    byLanguage: hits,
    indexBytes: Number(size?.n ?? 0),
    buildMs: median(buildTimes),
    queryP50Ms: percentile(queryMs, 50),
  };
}

// ---- command -------------------------------------------------------------------------------

export const MULTILINGUAL_USAGE = 'usage: npm run bench -- multilingual [--data bench/data/multilingual] [--reps 5] [--out report.json]';

export async function multilingualCommand(argv: string[], progress: (line: string) => void): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { data: { type: 'string' }, out: { type: 'string' }, reps: { type: 'string' } },
    strict: true,
  });
  const dataset = await loadMultilingual(values.data ?? 'bench/data/multilingual');
  const corpus = dataset.corpora[0]!;
  const reps = Math.max(1, Number(values.reps ?? 5));
  const languages = [...new Set(corpus.questions.map((q) => q.category))];

  progress('tokenizer comparison');
  const methods: MethodResult[] = [];
  for (const m of METHODS) methods.push(await runMethod(m, corpus, reps));

  progress('engine: message search and recall');
  const run = await runRecall(dataset, {
    ks: [...KS],
    variants: [{ name: 'recall', config: RETRIEVAL_CONFIG }],
    baselines: true,
    vectors: true,
    context: false,
    progress,
  });
  const recall = summarise(run, 'recall', KS);
  const search = summarise(run, 'bm25', KS);

  const pct = (x: number | undefined) => (x === undefined ? '–' : (x * 100).toFixed(0));
  const lines: string[] = [];
  lines.push(
    `# Multilingual known-item recall`,
    '',
    `Data \`${dataset.source}\`: ${corpus.sessions.reduce((n, s) => n + s.turns.length, 0)} turns in ${languages.length} languages in one memory, ${corpus.questions.length} queries (two or three words copied from a turn; that turn is the answer). Node, bundled embedder.`,
    '',
    '## recall@10 per language (engine)',
    '',
    `| path | ${languages.join(' | ')} |`,
    `|---|${languages.map(() => '---:').join('|')}|`,
    `| message search | ${languages.map((l) => pct(search.byCategory[l]?.recall.turn[10])).join(' | ')} |`,
    `| recall (Retriever) | ${languages.map((l) => pct(recall.byCategory[l]?.recall.turn[10])).join(' | ')} |`,
    `| recall@1 (Retriever) | ${languages.map((l) => pct(recall.byCategory[l]?.recall.turn[1])).join(' | ')} |`,
    '',
    '## Tokenizer comparison (bare FTS5 table, recall@10 per language; @1 in brackets)',
    '',
    `| method | ${languages.join(' | ')} | index bytes | build ms (median of ${reps}) | query p50 ms |`,
    `|---|${languages.map(() => '---:').join('|')}|---:|---:|---:|`,
    ...methods.map(
      (m) =>
        `| ${m.name} | ${languages.map((l) => `${pct(m.byLanguage[l]?.[10])} (${pct(m.byLanguage[l]?.[1])})`).join(' | ')} | ${m.indexBytes} | ${m.buildMs.toFixed(1)} | ${m.queryP50Ms.toFixed(2)} |`,
    ),
  );
  const md = lines.join('\n');
  process.stdout.write(`\n${md}\n`);
  if (values.out) {
    const json = {
      dataset: dataset.source,
      languages,
      queries: corpus.questions.length,
      engine: Object.fromEntries(
        languages.map((l) => [l, { search: search.byCategory[l]?.recall.turn, recall: recall.byCategory[l]?.recall.turn }]),
      ),
      methods,
    };
    await writeFile(values.out, `${JSON.stringify(json, null, 2)}\n`);
    await writeFile(values.out.replace(/\.json$/, '.md'), `${md}\n`);
    process.stdout.write(`wrote ${values.out}\n`);
  }
}
