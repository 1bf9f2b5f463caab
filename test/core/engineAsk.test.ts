import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskEvent } from '../../src/core/protocol';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'Your dog Biscuit is a beagle mix [1].' });
});
afterAll(async () => mock.close());

async function setup(withLlm = true) {
  const { store, engine } = await answeringEngine(mock.url, { withLlm });
  await store.createConversation({ id: 'c', title: 'pets' });
  // An earlier conversation: a turn of this one's recent history is sent as history, not recalled.
  await store.createConversation({ id: 'b', title: 'the dog' });
  await engine.conversations.appendTurn({
    id: 'u1',
    conversationId: 'b',
    role: 'user',
    speaker: 'You',
    content: 'My dog Biscuit is a beagle mix.',
    occurredAt: Date.UTC(2026, 0, 3),
  });
  await engine.conversations.appendTurn({
    id: 'u2',
    conversationId: 'c',
    role: 'user',
    speaker: 'You',
    content: 'What breed is my dog Biscuit?',
  });
  await engine.idle();
  return { store, engine };
}

describe('MemoryEngine.ask', () => {
  it('streams a cited answer from memory and stores it with what was sent', async () => {
    const { store, engine } = await setup();
    const events: AskEvent[] = [];
    const result = await engine.answers.ask({ conversationId: 'c', userMessageId: 'u2', answerId: 'a1' }, (e) => events.push(e));
    expect(events.filter((e) => e.type === 'delta').length).toBeGreaterThan(1);
    expect(result.answer.answer).toContain('beagle');
    expect(result.answer.citations[0]).toMatchObject({ kind: 'turn', ref: 'u1' });
    const stored = await store.getMessage('a1');
    expect(stored).toMatchObject({ role: 'assistant', content: 'Your dog Biscuit is a beagle mix [1].' });
    const meta = stored!.metadata as { requests: { messages: { content: string }[] }[]; citations: unknown[]; answerTo: string };
    expect(meta.answerTo).toBe('u2');
    expect(JSON.stringify(meta.requests)).toContain('My dog Biscuit is a beagle mix.');
    expect((await store.llmCalls.byStage()).answer?.calls).toBe(1);
  });

  it('temporary chat stores nothing and consults no memory', async () => {
    const { store, engine } = await setup();
    const before = (await store.stats()).messageCount;
    const result = await engine.answers.ask(
      { conversationId: 'c', question: 'What breed is my dog?', temporary: true, answerId: 't1' },
      () => undefined,
    );
    expect(result.messageId).toBeNull();
    expect(result.answer.contextCitations).toEqual([]);
    expect(JSON.stringify(result.answer.requests)).not.toContain('beagle mix.');
    expect((await store.stats()).messageCount).toBe(before);
  });

  it('fails clearly without an endpoint and keeps the user turn', async () => {
    const { store, engine } = await setup(false);
    await expect(engine.answers.ask({ conversationId: 'c', userMessageId: 'u2', answerId: 'a2' }, () => undefined)).rejects.toMatchObject({
      code: 'LLM_NOT_CONFIGURED',
    });
    expect(await store.getMessage('u2')).not.toBeNull();
  });
});

describe('what an answer recalls', () => {
  it('never recalls the question itself, nor the turns the history already carries', async () => {
    const { store, engine } = await answeringEngine(mock.url);
    await store.createConversation({ id: 'old', title: 'an older chat' });
    await store.createConversation({ id: 'now', title: 'today' });
    await engine.conversations.appendTurn({
      id: 'old1',
      conversationId: 'old',
      role: 'user',
      content: 'My dog Biscuit is a beagle mix, adopted in 2021.',
      occurredAt: Date.UTC(2025, 0, 3),
    });
    await engine.conversations.appendTurn({
      id: 'h1',
      conversationId: 'now',
      role: 'user',
      content: 'Biscuit the dog had his vet check today.',
    });
    await engine.conversations.appendTurn({
      id: 'h2',
      conversationId: 'now',
      role: 'assistant',
      content: 'Good to hear Biscuit the dog is well.',
    });
    await engine.conversations.appendTurn({ id: 'q', conversationId: 'now', role: 'user', content: 'What breed is my dog Biscuit?' });
    await engine.idle();
    const result = await engine.answers.ask({ conversationId: 'now', userMessageId: 'q', answerId: 'a' }, () => undefined);
    const recalled = result.answer.contextCitations.filter((c) => c.kind === 'turn').map((c) => c.ref);
    expect(recalled).toContain('old1');
    expect(recalled).not.toContain('q');
    expect(recalled).not.toContain('h1');
    expect(recalled).not.toContain('h2');
    // The history still goes, once, as chat turns before the question.
    const sent = result.answer.requests.at(-1)!.messages;
    expect(sent.filter((m) => m.content.includes('had his vet check today'))).toHaveLength(1);
    expect(sent.filter((m) => m.content.includes('What breed is my dog Biscuit?'))).toHaveLength(1);
  });
});

describe('answer settings', () => {
  it('stores the memory budget and the sufficiency check, and answers use them', async () => {
    const { engine } = await setup();
    expect(await engine.settings.answerSettings()).toEqual({ budgetTokens: 2500, defaultBudgetTokens: 2500, sufficiencyCheck: false });
    expect(await engine.settings.setAnswerSettings({ budgetTokens: 1000, sufficiencyCheck: true })).toEqual({
      budgetTokens: 1000,
      defaultBudgetTokens: 2500,
      sufficiencyCheck: true,
    });
    await expect(engine.settings.setAnswerSettings({ budgetTokens: 10 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const result = await engine.answers.ask({ conversationId: 'c', userMessageId: 'u2', answerId: 'a9' }, () => undefined);
    expect(result.answer.context.budgetTokens).toBe(1000);
    expect(result.answer.sufficiency.checked).toBe(true);
  });
});
