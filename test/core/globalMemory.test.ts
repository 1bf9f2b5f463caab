/**
 * The switches over every answer: "use saved memories" off sends no profile, fact or plan; "use
 * chat history" off sends no past turn or episode; both survive in the database and come back on.
 * What an answer reads (MemoryEngine.answerContext, the scale benchmark's answer read) follows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'An answer.' });
});
afterAll(async () => mock.close());

const T0 = Date.UTC(2026, 0, 3);

describe('use saved memories / use chat history', () => {
  it('leave each kind of memory out of answers while off, and bring it back when on', async () => {
    const { store, engine } = await answeringEngine(mock.url);
    await engine.conversations.create({ id: 'pets', title: 'pets' });
    await engine.conversations.appendTurn({
      id: 'p1',
      conversationId: 'pets',
      role: 'user',
      content: 'My dog Biscuit is a beagle mix.',
      occurredAt: T0,
    });
    await engine.profile.addMemory('I am vegetarian and cook lentils every Sunday.');
    await engine.conversations.create({ id: 'now', title: 'now' });
    await engine.idle();
    let n = 0;
    const sent = async (question: string) => {
      const id = `q${++n}`;
      await engine.conversations.appendTurn({ id, conversationId: 'now', role: 'user', content: question, occurredAt: T0 + 86_400_000 });
      await engine.answers.ask({ conversationId: 'now', userMessageId: id, answerId: `${id}-a` }, () => undefined);
      return JSON.stringify((await store.getMessage(`${id}-a`))!.metadata.requests);
    };
    const question = 'What does my dog Biscuit eat, and what do I cook on Sunday?';

    expect(await engine.settings.globalMemory()).toEqual({ useSavedMemories: true, useChatHistory: true });
    const both = await sent(question);
    expect(both).toContain('beagle mix');
    expect(both).toContain('vegetarian');

    await engine.settings.setGlobalMemory({ useSavedMemories: false });
    const noSaved = await sent(question);
    expect(noSaved).toContain('beagle mix');
    expect(noSaved).not.toContain('vegetarian');

    await engine.settings.setGlobalMemory({ useSavedMemories: true, useChatHistory: false });
    const noHistory = await sent(question);
    expect(noHistory).not.toContain('beagle mix');
    expect(noHistory).toContain('vegetarian');

    expect(await engine.settings.globalMemory()).toEqual({ useSavedMemories: true, useChatHistory: false });
    await expect(engine.settings.setGlobalMemory({ useChatHistory: 'no' as unknown as boolean })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await engine.settings.setGlobalMemory({ useChatHistory: true });
    expect(await sent(question)).toContain('beagle mix');
  });

  it('answerContext reads what an answer reads, under the same switches, and writes nothing', async () => {
    const { store, engine } = await answeringEngine(mock.url);
    await engine.conversations.create({ id: 'pets', title: 'pets' });
    await engine.conversations.appendTurn({
      id: 'p1',
      conversationId: 'pets',
      role: 'user',
      content: 'My dog Biscuit is a beagle mix.',
      occurredAt: T0,
    });
    await engine.profile.addMemory('I am vegetarian and cook lentils every Sunday.');
    await engine.idle();
    const question = 'What does my dog Biscuit eat, and what do I cook on Sunday?';
    const calls = () => engine.settings.llmUsage();
    const before = { turns: (await store.listMessages('pets')).length, usage: await calls() };

    const all = await engine.answerContext(question, { now: T0 + 86_400_000 });
    expect(all.turns.map((t) => t.id)).toContain('p1');
    expect(all.profile.map((p) => p.value).join(' ')).toContain('vegetarian');
    await engine.settings.setGlobalMemory({ useSavedMemories: false });
    const noSaved = await engine.answerContext(question, { now: T0 + 86_400_000 });
    expect(noSaved.profile).toEqual([]);
    expect(noSaved.turns.map((t) => t.id)).toContain('p1');
    await engine.settings.setGlobalMemory({ useSavedMemories: true, useChatHistory: false });
    expect((await engine.answerContext(question, { now: T0 + 86_400_000 })).turns).toEqual([]);

    expect((await store.listMessages('pets')).length).toBe(before.turns);
    expect(await calls()).toEqual(before.usage);
  });
});
