/**
 * An answer and the endpoint's title read a bounded window of the conversation, never all of it
 * (both once read every turn of the conversation per answer, seconds at 100,000 turns).
 * Rows are counted at the database: in a 3,000-turn conversation an answer reads a handful of rows,
 * and what goes with the question is still exactly the turns just before it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { AnswerService } from '../../src/core/engine/AnswerService';
import { titleByEndpoint } from '../../src/core/engine/conversationTitles';
import type { NewTurn } from '../../src/core/base/types';
import { UNTITLED } from '../../src/core/base/titles';

let mock: MockLlmServer;
let answerRequests: string[][] = [];
beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => {
      if (req.messages[0]?.content.startsWith('You name conversations')) return 'Bread';
      answerRequests.push(req.messages.map((m) => m.content));
      return 'Noted.';
    },
  });
});
afterAll(async () => mock.close());

const TURNS = 3_000;
const text = (i: number) => `Turn ${i}: more about the sourdough starter`;

async function longChat(turns = TURNS) {
  const store = await openNodeStore();
  await store.createConversation({ id: 'c', title: UNTITLED });
  const all: NewTurn[] = Array.from({ length: turns }, (_, i) => ({
    id: `t${i}`,
    conversationId: 'c',
    role: i % 2 ? 'assistant' : 'user',
    content: text(i),
    occurredAt: Date.UTC(2024, 0, 1) + i * 60_000,
  }));
  for (let i = 0; i < turns; i += 1_000) await store.appendTurns(all.slice(i, i + 1_000));
  // Rows handed back by every query from here on.
  let rows = 0;
  const query = store.db.query.bind(store.db);
  vi.spyOn(store.db, 'query').mockImplementation(async (...args: Parameters<typeof query>) => {
    const out = await query(...args);
    rows += out.length;
    return out;
  });
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { maxAttempts: 1 });
  const answers = new AnswerService({
    llm: () => llm,
    source: null,
    clock: { now: () => Date.UTC(2024, 6, 1) },
    messageWindow: (id, request) => store.listMessageWindow(id, request),
    appendTurn: (turn) => store.appendTurn(turn),
    settings: async () => ({ budgetTokens: 2_000, defaultBudgetTokens: 2_000, sufficiencyCheck: false }),
    retrieved: async () => undefined,
  });
  const title = () =>
    titleByEndpoint(
      { llm, getConversation: (id) => store.getConversation(id), messageWindow: (id, request) => store.listMessageWindow(id, request) },
      'c',
    );
  return {
    store,
    answers,
    title,
    rowsRead: () => rows,
    reset: () => {
      rows = 0;
    },
  };
}

describe('an answer in a long conversation', () => {
  it('reads the question and the turns just before it, not the whole conversation', async () => {
    const { answers, rowsRead } = await longChat();
    answerRequests = [];
    await answers.ask({ conversationId: 'c', userMessageId: `t${TURNS - 2}`, answerId: 'a' }, () => undefined);
    // The window (9 turns) and the stored answer's own reads; the whole chat would be 3,000.
    expect(rowsRead()).toBeLessThan(40);
    const sent = answerRequests.at(-1)!;
    expect(sent.filter((c) => /^Turn \d+:/.test(c))).toEqual(Array.from({ length: 8 }, (_, i) => text(TURNS - 10 + i)));
    expect(sent.at(-1)).toContain(text(TURNS - 2));
  });

  it('answers a question far back with the turns before that one, fewer at the start', async () => {
    const { answers } = await longChat();
    answerRequests = [];
    await answers.ask({ conversationId: 'c', userMessageId: 't10', answerId: 'a' }, () => undefined);
    expect(answerRequests.at(-1)!.filter((c) => /^Turn \d+:/.test(c))).toEqual(Array.from({ length: 8 }, (_, i) => text(2 + i)));
    answerRequests = [];
    await answers.ask({ conversationId: 'c', userMessageId: 't2', answerId: 'b' }, () => undefined);
    expect(answerRequests.at(-1)!.filter((c) => /^Turn \d+:/.test(c))).toEqual([text(0), text(1)]);
  });

  it('refuses a message that is not stored', async () => {
    const { answers } = await longChat(20);
    await expect(answers.ask({ conversationId: 'c', userMessageId: 'gone', answerId: 'a' }, () => undefined)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe("the endpoint's title", () => {
  it('is not asked for in a long conversation, without reading it whole', async () => {
    const { title, rowsRead } = await longChat();
    expect(await title()).toBeNull();
    expect(rowsRead()).toBeLessThan(100);
  });

  it('is asked for after the first exchange', async () => {
    const { title } = await longChat(2);
    expect(await title()).toBe('Bread');
  });
});
