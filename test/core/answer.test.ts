import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answerQuestion, citedItems, collectAnswer, type AnswerEvent, type AnswerOptions } from '../../src/core/recall/answer';
import type { Clock } from '../../src/core/base/ports';
import { LlmClient } from '../../src/llm/LlmClient';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlKnowledgeSource } from '../../src/storage/knowledgeSource';
import { answerSourceOf } from '../../src/core/recall/answerSource';
import type { AnswerSource } from '../../src/core/recall/answerContext';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { countWords, startMockLlmServer, type MockChatRequest, type MockLlmServer } from '../llm/mockLlmServer';
import { createEngine } from '../../src/host/createEngine';
import { RECALL_QUERY_CHARS } from '../../src/core/recall/recallQuery';
import { plainProse } from '../support/markdownFixtures';

const KEY = 'sk-test-secret-7f3a9';
const NOW = Date.UTC(2024, 5, 1, 9, 0);
const clock: Clock = { now: () => NOW };

let mock: MockLlmServer;
let store: SqliteMemoryStore;
let source: AnswerSource;
let recallQueries: string[];
let llm: LlmClient;

const isSufficiency = (req: MockChatRequest) => req.messages[0]?.content.includes('enough to answer') === true;
const isAnswer = (req: MockChatRequest) => req.messages[0]?.content.startsWith('You are Recollect') === true;
/** The [n] of the first context line that contains `needle`. */
function numberOf(req: MockChatRequest, needle: string): number | null {
  const user = req.messages[req.messages.length - 1]!.content;
  const line = user.split('\n').find((l) => /^\[\d+\] /.test(l) && l.includes(needle));
  return line ? Number(/^\[(\d+)\]/.exec(line)![1]) : null;
}

let sufficiencyReply: (req: MockChatRequest) => string;
const answerReply = (req: MockChatRequest): string => {
  const n = numberOf(req, 'Boston');
  return n === null
    ? 'My memory does not contain that, as far as I can tell from what was retrieved.'
    : `Ana ran her first marathon in Boston [${n}], and it took her four hours and ten minutes [${n}]. See also [99].`;
};

beforeAll(async () => {
  mock = await startMockLlmServer({ apiKey: KEY });
});
afterAll(async () => {
  await mock.close();
});

beforeEach(async () => {
  sufficiencyReply = () => JSON.stringify({ sufficient: true, followUps: [] });
  mock.setBehaviour({
    apiKey: KEY,
    chunkDelayMs: 0,
    malformedNext: 0,
    responder: (req) => (isSufficiency(req) ? sufficiencyReply(req) : isAnswer(req) ? answerReply(req) : 'unexpected'),
  });
  mock.requests.length = 0;
  store = await openNodeStore();
  const engine = createEngine(store, { only: ['recall'], clock });
  await engine.start();
  await store.createConversation({ id: 'c', title: 'Chat' });
  const turns: [string, string][] = [
    ['Ana', 'I finally ran my first marathon in Boston!'],
    ['Ben', 'Amazing! How long did it take you?'],
    ['Ana', 'Four hours and ten minutes, and my knees still hurt.'],
    ['Ben', 'I bought a new Fender guitar yesterday.'],
    ['Ana', 'My sister Clara moved to Porto last spring.'],
  ];
  for (const [i, [speaker, content]] of turns.entries()) {
    await engine.conversations.appendTurn({
      id: `t${i}`,
      conversationId: 'c',
      role: speaker === 'Ana' ? 'user' : 'assistant',
      speaker,
      content,
      occurredAt: Date.UTC(2024, 4, 8, 10, i),
    });
  }
  await engine.idle();
  recallQueries = [];
  source = answerSourceOf(new SqlKnowledgeSource(store.db), (query, options) => {
    recallQueries.push(query);
    return engine.answers.recall(query, options);
  });
  llm = new LlmClient(
    { baseUrl: mock.url, apiKey: KEY, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  );
});

const chatRequests = () => mock.requests.filter((r) => r.method === 'POST');
const sufficiencyRequests = () =>
  chatRequests().filter((r) => String((r.body?.messages as { content: string }[])[0]?.content).includes('enough to answer'));

async function run(question: string, options: AnswerOptions = {}) {
  const events: AnswerEvent[] = [];
  for await (const e of answerQuestion({ llm, source, clock }, question, options)) events.push(e);
  const done = events.find((e) => e.type === 'done');
  if (done?.type !== 'done') throw new Error('no result');
  return { events, result: done.result, deltas: events.flatMap((e) => (e.type === 'delta' ? [e.text] : [])) };
}

describe('answerQuestion', () => {
  it('streams the answer in deltas, parses its citations and records exactly what was sent', async () => {
    const { result, deltas, events } = await run('Where did Ana run her marathon?');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(result.answer);
    expect(result.answer).toMatch(/^Ana ran her first marathon in Boston \[\d+\]/);
    expect(events[0]).toEqual({ type: 'status', stage: 'retrieval' });
    expect(events.at(-1)?.type).toBe('done');

    // Cited: the recalled turn, once; [99] names no item and is ignored.
    expect(result.citations).toHaveLength(1);
    expect(result.citations[0]).toMatchObject({ kind: 'turn', ref: 't0', conversationId: 'c' });
    expect(result.contextCitations.length).toBeGreaterThanOrEqual(1);

    // "What was sent": the answer request holds the recalled turn verbatim and equals what the server got.
    const answerReq = result.requests.at(-1)!;
    expect(answerReq.stage).toBe('answer');
    expect(answerReq.messages.at(-1)!.content).toContain('I finally ran my first marathon in Boston!');
    expect(answerReq.messages.at(-1)!.content).toContain('Question: Where did Ana run her marathon?');
    expect(answerReq.messages.at(-1)!.content).toContain('Current date: Saturday, 1 June 2024 at 09:00 (UTC)');
    const received = chatRequests().at(-1)!.body!.messages as { role: string; content: string }[];
    expect(received).toEqual(answerReq.messages.map((m) => ({ role: m.role, content: m.content })));
    expect(JSON.stringify(result)).not.toContain(KEY);

    // Usage from the server (mock counts words), answer stage only; sufficiency is off by default.
    expect(result.usage.answer).toEqual({
      calls: 1,
      estimated: false,
      promptTokens: received.reduce((n, m) => n + countWords(m.content), 0),
      completionTokens: countWords(result.answer),
    });
    expect(result.usage.sufficiency.calls).toBe(0);
    expect(result.sufficiency.checked).toBe(false);
    expect(sufficiencyRequests()).toHaveLength(0);
    expect(result.rounds).toBe(1);
    expect(recallQueries).toEqual(['Where did Ana run her marathon?']);
  });

  it('a 100,000-character message: recall searches its head and tail, the model receives all of it', async () => {
    const message = `${plainProse(100_000)}\n\nWhere did Ana run her marathon?`;
    const { result } = await run(message);
    expect(recallQueries).toHaveLength(1);
    expect(recallQueries[0]!.length).toBeLessThanOrEqual(RECALL_QUERY_CHARS + 3);
    expect(recallQueries[0]!.endsWith('Where did Ana run her marathon?')).toBe(true);
    // The question at its end still finds the turn, and the request holds the whole message.
    expect(result.citations[0]).toMatchObject({ kind: 'turn', ref: 't0' });
    expect(result.requests.at(-1)!.messages.at(-1)!.content).toContain(message);
  });

  it('says so when memory is empty and cites nothing', async () => {
    const empty = await openNodeStore();
    source = answerSourceOf(new SqlKnowledgeSource(empty.db), async () => ({ turns: [] }));
    const { result } = await run('What is my favourite colour?');
    expect(result.requests.at(-1)!.messages.at(-1)!.content).toContain('(no relevant memories were found)');
    expect(result.citations).toEqual([]);
    expect(result.contextCitations).toEqual([]);
  });

  it('runs at most one extra retrieval round even when the model keeps saying insufficient', async () => {
    sufficiencyReply = () =>
      JSON.stringify({
        sufficient: false,
        followUps: ['Fender guitar', 'Where does Clara live now?', 'Clara moved to Porto', 'a fourth query'],
      });
    const { result, events } = await run('Where did Ana run her marathon?', { sufficiencyCheck: true, limits: { turns: 1 } });
    expect(sufficiencyRequests()).toHaveLength(1);
    expect(result.usage.sufficiency.calls).toBe(1);
    expect(result.sufficiency).toEqual({
      checked: true,
      sufficient: false,
      followUps: ['Fender guitar', 'Where does Clara live now?', 'Clara moved to Porto'],
      error: null,
    });
    expect(result.rounds).toBe(2);
    expect(recallQueries).toEqual([
      'Where did Ana run her marathon?',
      'Fender guitar',
      'Where does Clara live now?',
      'Clara moved to Porto',
    ]);
    expect(events.filter((e) => e.type === 'status').map((e) => (e as { stage: string }).stage)).toEqual([
      'retrieval',
      'sufficiency',
      'follow-up',
      'answer',
    ]);
    // The second round's finds reach the answer prompt; the first round (what the check saw) lacked them.
    const checked = result.requests[0]!.messages.at(-1)!.content;
    expect(checked).not.toContain('Fender');
    expect(checked).not.toContain('Porto');
    const sent = result.requests.at(-1)!.messages.at(-1)!.content;
    expect(sent).toContain('I bought a new Fender guitar yesterday.');
    expect(sent).toContain('My sister Clara moved to Porto last spring.');
    expect(result.requests.map((r) => r.stage)).toEqual(['sufficiency', 'answer']);
    expect(chatRequests()).toHaveLength(2);
  });

  it('skips the extra round when the context is sufficient', async () => {
    const { result } = await run('Where did Ana run her marathon?', { sufficiencyCheck: true });
    expect(result.sufficiency).toMatchObject({ checked: true, sufficient: true, followUps: [] });
    expect(result.rounds).toBe(1);
    expect(recallQueries).toHaveLength(1);
    // The server's count of the check's prompt is recorded (the mock counts words).
    const [check] = sufficiencyRequests();
    const prompt = (check!.body?.messages as { content: string }[]).reduce((n, m) => n + countWords(m.content), 0);
    expect(result.usage.sufficiency.promptTokens).toBe(prompt);
  });

  it('falls back to answering when the sufficiency reply is malformed, even after the retry', async () => {
    sufficiencyReply = () => 'Hmm, I think the memories are probably fine but I cannot say for sure.';
    const { result } = await run('Where did Ana run her marathon?', { sufficiencyCheck: true });
    expect(sufficiencyRequests()).toHaveLength(2); // first try + structured-output retry
    expect(result.sufficiency).toEqual({ checked: true, sufficient: null, followUps: [], error: 'LLM_BAD_OUTPUT' });
    expect(result.rounds).toBe(1);
    expect(result.answer).toContain('Boston');
    expect(result.citations.map((c) => c.ref)).toEqual(['t0']);
    expect(result.usage.sufficiency).toMatchObject({ calls: 2, estimated: true });
  });

  it('stops on abort: partial text with stopped=true during the stream, LLM_CANCELLED before it', async () => {
    mock.setBehaviour({ chunkDelayMs: 20 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const result = await collectAnswer(
      answerQuestion({ llm, source, clock }, 'Where did Ana run her marathon?', { signal: controller.signal }),
      (t) => {
        deltas.push(t);
        controller.abort();
      },
    );
    expect(result.stopped).toBe(true);
    expect(result.answer).toBe(deltas.join(''));
    expect(deltas).toHaveLength(1); // stopped at the first piece, which is kept
    expect(result.answer).not.toContain('See also'); // the reply's last words never arrived
    expect(result.usage.answer.estimated).toBe(true);

    const already = new AbortController();
    already.abort();
    await expect(collectAnswer(answerQuestion({ llm, source, clock }, 'Where?', { signal: already.signal }))).rejects.toMatchObject({
      code: 'LLM_CANCELLED',
    });
  });

  it('Stop ends a recall stuck waiting (a dead model worker never answers the question embedding)', async () => {
    const stuck = new Proxy(source, {
      get: (target, key) => {
        const value = (target as unknown as Record<PropertyKey, unknown>)[key];
        return typeof value === 'function' ? () => new Promise(() => undefined) : value;
      },
    });
    const controller = new AbortController();
    const run = answerQuestion({ llm, source: stuck, clock }, 'Where did Ana run her marathon?', { signal: controller.signal });
    await expect(run.next()).resolves.toMatchObject({ value: { type: 'status', stage: 'retrieval' } });
    const next = run.next();
    controller.abort();
    await expect(next).rejects.toMatchObject({ code: 'LLM_CANCELLED' });
  });

  it('surfaces endpoint errors of the answer call with their code', async () => {
    mock.setBehaviour({ apiKey: 'another-key' });
    await expect(collectAnswer(answerQuestion({ llm, source, clock }, 'Where did Ana run?'))).rejects.toMatchObject({
      code: 'LLM_UNAUTHORIZED',
    });
  });

  it('writes nothing to memory', async () => {
    const before = await store.db.query(
      'SELECT (SELECT count(*) FROM messages) AS m, (SELECT count(*) FROM memcells) AS c, (SELECT count(*) FROM facts) AS f',
    );
    // An Llm without a call log, as a temporary chat would use.
    llm = new LlmClient({ baseUrl: mock.url, apiKey: KEY, model: 'mock-model' }, { timeoutMs: 5_000 });
    await run('Where did Ana run her marathon?', { sufficiencyCheck: true });
    const after = await store.db.query(
      'SELECT (SELECT count(*) FROM messages) AS m, (SELECT count(*) FROM memcells) AS c, (SELECT count(*) FROM facts) AS f',
    );
    expect(after).toEqual(before);
    expect(await store.llmCalls.totals()).toMatchObject({ calls: 0 });
  });
});

describe('citedItems', () => {
  const cites = [1, 2, 3, 4].map((id) => ({ id, kind: 'turn' as const, label: `t${id}`, ref: `m${id}` }));
  it('reads single, grouped, adjacent and ranged markers in first-cited order, ignoring unknown numbers', () => {
    expect(citedItems('A [3]. B [1, 2]. C [2][4]. D [7].', cites).map((c) => c.id)).toEqual([3, 1, 2, 4]);
    expect(citedItems('Range [2-4] and [1–1].', cites).map((c) => c.id)).toEqual([2, 3, 4, 1]);
    expect(citedItems('No markers here, only [a] and (1).', cites)).toEqual([]);
  });
});
