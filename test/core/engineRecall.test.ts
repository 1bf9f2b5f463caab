import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';

describe('MemoryEngine.recall', () => {
  it('ranks the turn that answers the question first and says why it was retrieved', async () => {
    const store = await openNodeStore();
    const engine = createEngine(store, { only: ['recall'] });
    await engine.start();
    await store.createConversation({ id: 'c', title: 't' });
    const turns: [string, string][] = [
      ['Ana', 'I finally ran my first marathon in Boston!'],
      ['Ben', 'That is amazing, how long did it take?'],
      ['Ana', 'Four hours and ten minutes, my knees still hurt.'],
      ['Ben', 'I bought a new guitar yesterday.'],
      ['Ana', 'Which brand did you get?'],
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
    const result = await engine.answers.recall('Where did Ana run her marathon?', { limit: 3 });
    expect(result.turns[0]!.message.id).toBe('t0');
    expect(result.turns[0]!.reasons).toContain('lexical');
    expect(result.analysis.speakers).toEqual(['Ana']);
    const guitar = await engine.answers.recall('Which guitar does Ben have?', { limit: 2 });
    expect(guitar.turns[0]!.message.id).toBe('t3');
    expect(await engine.answers.recall('  ', { limit: 3 }).then((r) => r.turns)).toEqual([]);
  });
});
