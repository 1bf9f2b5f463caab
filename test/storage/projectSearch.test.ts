/**
 * The message search scoped to a project (Search results → Project): only that project's chats, or
 * only chats in no project, with the scope applied inside the ranking so a small project gets its
 * best hits even when many more outside it rank higher.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';

const long = (word: string, n: number) =>
  `${`Notes on ${word} for the greenhouse, again and again ${word}. `.repeat(n)}The rest of the turn is about the weather and the budget, at real length for a chat turn.`;

describe('searchMessages with a project', () => {
  it('keeps to the project (or to chats in no project) and ranks inside it', async () => {
    const store = await openNodeStore();
    await store.projects.createProject({ id: 'p1', name: 'Thesis', instructions: '', memory: 'shared', useProfile: true });
    await store.createConversation({ id: 'in', title: 'In the project', projectId: 'p1' });
    await store.createConversation({ id: 'out', title: 'Outside' });
    // Outside: five turns that rank above the project's one (the word many times).
    for (let i = 0; i < 5; i++)
      await store.appendTurn({
        id: `o${i}`,
        conversationId: 'out',
        role: 'user',
        content: long('humidity', 8),
        occurredAt: Date.UTC(2026, 0, 1, 9, i),
      });
    await store.appendTurn({
      id: 'i0',
      conversationId: 'in',
      role: 'user',
      content: long('humidity', 1),
      occurredAt: Date.UTC(2026, 0, 2),
    });

    const everywhere = await store.searchMessages('humidity', { limit: 1 });
    expect(everywhere.map((h) => h.message.id)).not.toContain('i0');
    expect((await store.searchMessages('humidity', { limit: 1, project: 'p1' })).map((h) => h.message.id)).toEqual(['i0']);
    const none = await store.searchMessages('humidity', { limit: 10, project: null });
    expect(none.map((h) => h.message.conversationId)).toEqual(['out', 'out', 'out', 'out', 'out']);
    expect(await store.searchMessages('humidity', { project: 'no-such-project' })).toEqual([]);
    await store.db.close();
  });
});
