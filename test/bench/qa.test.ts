/**
 * The qa harness's bookkeeping against the mock server: majority of three judgments, accuracy per
 * category, tokens per stage. The mock's answers are scripted, so nothing here measures accuracy.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { majorityCorrect, parseQaArgs, printQa, runQa, NOT_IN_MEMORY_GOLD, type QaStage } from '../../bench/qa';
import { countWords, startMockLlmServer, type MockChatRequest, type MockLlmServer } from '../llm/mockLlmServer';
import { charsOverFour } from '../../src/core/base/tokens';

const KEY = 'sk-qa-secret-4242';

const DATA = [
  {
    sample_id: 'conv-t',
    conversation: {
      speaker_a: 'Ana',
      speaker_b: 'Ben',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ana', dia_id: 'D1:1', text: 'I ran the Boston marathon last week.' },
        { speaker: 'Ben', dia_id: 'D1:2', text: 'Wow, congratulations on the marathon!' },
      ],
      session_2_date_time: '10:00 am on 20 May, 2023',
      session_2: [
        { speaker: 'Ben', dia_id: 'D2:1', text: 'I adopted a cat named Miso.' },
        { speaker: 'Ana', dia_id: 'D2:2', text: 'Miso is a cute name for a cat!' },
      ],
    },
    qa: [
      { question: 'Which marathon did Ana run?', answer: 'Boston', evidence: ['D1:1'], category: 4 },
      { question: 'When did Ana run the marathon?', answer: 'The week before 8 May 2023', evidence: ['D1:1'], category: 2 },
      { question: 'What pet does Ben have and what is it called?', answer: 'A cat named Miso', evidence: ['D2:1'], category: 1 },
      { question: "What is the name of Ana's dog?", adversarial_answer: 'Miso', evidence: ['D2:1'], category: 5 },
    ],
  },
];

// Per question, the judge's three replies in order. 'garbage' is prose: the structured-output
// layer retries once, so two garbage replies make one unreadable run (ERROR).
const JUDGE_SCRIPT: string[][] = [
  ['WRONG', 'CORRECT', 'CORRECT'], // 2/3 → correct (though the first run said WRONG)
  ['CORRECT', 'WRONG', 'WRONG'], //   1/3 → wrong (though the first run said CORRECT)
  ['CORRECT', 'WRONG', 'CORRECT'], // 2/3 → correct
  ['WRONG', 'garbage', 'garbage', 'CORRECT'], // WRONG, ERROR, CORRECT → 1/3 → wrong
];

type Stage = QaStage | 'other';
interface Served {
  stage: Stage;
  prompt: number;
  completion: number;
  model: string;
  user: string;
  all: string;
}

let mock: MockLlmServer;
let served: Served[];
let judgeQueue: string[];
let dir: string;

function stageOf(req: MockChatRequest): Stage {
  const system = req.messages[0]?.content ?? '';
  if (system.startsWith('You grade an answer')) return 'judge';
  if (system.includes('enough to answer')) return 'sufficiency';
  if (system.startsWith('You are Recollect')) return 'answer';
  return 'other';
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qa-test-'));
  await writeFile(join(dir, 'locomo.json'), JSON.stringify(DATA));
  mock = await startMockLlmServer({
    apiKey: KEY,
    responder: (req) => {
      const stage = stageOf(req);
      let reply: string;
      if (stage === 'judge') {
        const next = judgeQueue.shift() ?? 'CORRECT';
        reply = next === 'garbage' ? 'I would rather not say whether it is right.' : JSON.stringify({ reasoning: 'scripted', label: next });
      } else if (stage === 'sufficiency') reply = JSON.stringify({ sufficient: true, followUps: [] });
      else if (stage === 'answer') reply = 'From memory: it was Boston [1].';
      else reply = 'unexpected';
      served.push({
        stage,
        model: req.model,
        user: req.messages.at(-1)?.content ?? '',
        all: req.messages.map((m) => m.content).join('\n'),
        prompt: req.messages.reduce((n, m) => n + countWords(m.content), 0),
        completion: countWords(reply),
      });
      return reply;
    },
  });
});
afterAll(async () => {
  await mock.close();
});

function expected(stage: Stage) {
  const mine = served.filter((s) => s.stage === stage);
  return { promptTokens: mine.reduce((n, s) => n + s.prompt, 0), completionTokens: mine.reduce((n, s) => n + s.completion, 0) };
}

describe('runQa', () => {
  it('takes the majority of three judgments, reports accuracy per category and sums tokens per stage', async () => {
    served = [];
    judgeQueue = JUDGE_SCRIPT.flat();
    const out = join(dir, 'report.json');
    const report = await runQa({
      data: join(dir, 'locomo.json'),
      baseUrl: mock.url,
      model: 'answer-model',
      apiKey: KEY,
      judgeModel: 'judge-model',
      sufficiency: true,
      embedders: null,
      out,
      timeoutMs: 5_000,
    });

    expect(judgeQueue).toEqual([]); // every scripted reply consumed, in order
    expect(report.rows.map((r) => r.verdicts)).toEqual([
      ['WRONG', 'CORRECT', 'CORRECT'],
      ['CORRECT', 'WRONG', 'WRONG'],
      ['CORRECT', 'WRONG', 'CORRECT'],
      ['WRONG', 'ERROR', 'CORRECT'],
    ]);
    expect(report.rows.map((r) => r.correct)).toEqual([true, false, true, false]);
    expect(report.accuracy).toEqual({ questions: 3, correct: 2, accuracy: 2 / 3 });
    expect(report.byCategory).toEqual({
      '1 multi-hop': { questions: 1, correct: 1, accuracy: 1 },
      '2 temporal': { questions: 1, correct: 0, accuracy: 0 },
      '4 single-hop': { questions: 1, correct: 1, accuracy: 1 },
    });
    expect(report.apart).toEqual({ questions: 1, correct: 0, accuracy: 0 });
    expect(report.rows[3]!.gold).toBe(NOT_IN_MEMORY_GOLD);
    expect(report.rows[0]!.gold).toBe('Boston');
    expect(report.errors).toBe(0);

    // The judge sees the gold answer and the answer without citation markers, and uses its own model.
    const judged = served.filter((s) => s.stage === 'judge');
    expect(judged).toHaveLength(13);
    expect(judged.every((s) => s.model === 'judge-model')).toBe(true);
    expect(judged[0]!.user).toBe(
      'QUESTION: Which marathon did Ana run?\nGOLD ANSWER: Boston\nCANDIDATE ANSWER: From memory: it was Boston.',
    );
    expect(served.filter((s) => s.stage === 'answer').every((s) => s.model === 'answer-model')).toBe(true);
    expect(served.filter((s) => s.stage === 'other')).toEqual([]);

    // Tokens: totals per stage equal what the server counted, retries of unreadable replies included.
    for (const stage of ['sufficiency', 'answer', 'judge'] as const) {
      expect(report.tokens.total[stage]).toEqual(expected(stage));
      const summed = report.rows.reduce((n, r) => n + r.tokens[stage].promptTokens, 0);
      expect(summed).toBe(expected(stage).promptTokens);
      expect(report.tokens.perQuestion[stage].promptTokens).toBeCloseTo(expected(stage).promptTokens / 4, 9);
    }
    // Question 4 needed four judge calls (one retried), the others three.
    const judgeCalls = (i: number) => served.filter((s) => s.stage === 'judge' && s.all.includes(DATA[0]!.qa[i]!.question)).length;
    expect([0, 1, 2, 3].map(judgeCalls)).toEqual([3, 3, 3, 4]);
    expect(report.rows[3]!.tokens.judge.promptTokens).toBe(
      served.filter((s) => s.stage === 'judge' && s.all.includes("Ana's dog")).reduce((n, s) => n + s.prompt, 0),
    );
    expect(report.tokens.construction).toEqual({}); // policy off: no synthesis calls

    // The summary is the answered questions' own latencies: its median lies between two of them.
    const latencies = report.rows
      .filter((r) => !r.error)
      .map((r) => r.latencyMs)
      .sort((a, b) => a - b);
    expect(latencies).toHaveLength(4);
    expect(report.latencyMs.p50).toBeGreaterThanOrEqual(latencies[1]!);
    expect(report.latencyMs.p50).toBeLessThanOrEqual(latencies[2]!);
    expect(report.latencyMs.p95).toBeLessThanOrEqual(latencies[3]!);
    expect(report.rows.every((r) => r.rounds === 1)).toBe(true);
    expect(report.rows[0]!.citations).toBe(1);
    // The context held the cited turn, so it counts at least that turn's tokens.
    expect(report.rows[0]!.contextTokens).toBeGreaterThanOrEqual(charsOverFour('I ran the Boston marathon last week.'));

    // The key is never written or printed.
    const written = await readFile(out, 'utf8');
    expect(JSON.parse(written)).toMatchObject({ benchmark: 'qa', questions: 4 });
    expect(written).not.toContain(KEY);
    const lines: string[] = [];
    printQa(report, (l) => lines.push(l));
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n')).toContain('66.7%  (2/3)');
  });

  it('stops after --limit questions', async () => {
    served = [];
    judgeQueue = [];
    const report = await runQa({
      data: join(dir, 'locomo.json'),
      baseUrl: mock.url,
      model: 'm',
      apiKey: KEY,
      judgeModel: 'j',
      embedders: null,
      limit: 2,
      judgeRuns: 1,
      timeoutMs: 5_000,
    });
    expect(report.rows.map((r) => r.question)).toEqual(['Which marathon did Ana run?', 'When did Ana run the marathon?']);
    expect(served.filter((s) => s.stage === 'judge')).toHaveLength(2);
    expect(served.filter((s) => s.stage === 'sufficiency')).toHaveLength(0);
  });
});

describe('qa bookkeeping helpers', () => {
  it('majority needs more than half of the runs to say CORRECT', () => {
    expect(majorityCorrect(['CORRECT', 'CORRECT', 'WRONG'])).toBe(true);
    expect(majorityCorrect(['CORRECT', 'ERROR', 'WRONG'])).toBe(false);
    expect(majorityCorrect(['CORRECT', 'ERROR', 'ERROR'])).toBe(false);
    expect(majorityCorrect(['CORRECT', 'CORRECT'], 3)).toBe(true);
  });

  it('reads keys from the named environment variables only', () => {
    const args = parseQaArgs(
      [
        '--data',
        'f.json',
        '--base-url',
        'http://x/v1',
        '--model',
        'm',
        '--api-key-env',
        'QA_KEY',
        '--judge-model',
        'j',
        '--limit',
        '5',
        '--sufficiency',
      ],
      { QA_KEY: 'secret-value' },
    );
    expect(args).toMatchObject({ data: 'f.json', apiKey: 'secret-value', judgeModel: 'j', limit: 5, sufficiency: true, policy: 'off' });
    expect(() =>
      parseQaArgs(['--data', 'f', '--base-url', 'u', '--model', 'm', '--judge-model', 'j', '--api-key-env', 'MISSING'], {}),
    ).toThrow(/MISSING is not set/);
    expect(() => parseQaArgs(['--data', 'f', '--base-url', 'u', '--model', 'm'], {})).toThrow(/required/);
  });
});
