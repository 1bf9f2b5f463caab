/**
 * Core logic over the in-memory store, no wa-sqlite: the engine captures turns, embeds them in the
 * background, finds them by meaning, and forgets a deleted turn's vector — the same capture path
 * the app runs, with SQL out of the picture.
 */
import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { InMemoryStore } from '../support/InMemoryStore';
import { topicProvider } from '../support/topicEmbedder';

describe('MemoryEngine over InMemoryStore', () => {
  it('captures, embeds and finds turns by meaning, and a deleted turn leaves the index', async () => {
    const store = new InMemoryStore();
    const engine = new MemoryEngine({ store, embedders: topicProvider(['dog', 'guitar', 'flight']) });
    await engine.start();
    await engine.conversations.create({ id: 'c', title: 'Life' });
    await engine.conversations.appendTurns([
      { id: 'a', conversationId: 'c', role: 'user', content: 'My dog Biscuit loves the beach.' },
      { id: 'b', conversationId: 'c', role: 'user', content: 'I bought a new guitar today.' },
      { id: 'f', conversationId: 'c', role: 'user', content: 'My flight leaves on Tuesday.' },
    ]);
    await engine.idle();
    expect(await engine.indexing.embeddingStatus()).toMatchObject({ embedded: 3, total: 3, state: 'idle' });
    expect((await engine.answers.vectorSearch('walking the dog'))[0]?.message.id).toBe('a');
    expect((await engine.conversations.search('guitar')).map((h) => h.message.id)).toEqual(['b']);

    expect(await engine.conversations.deleteMessage('a')).toBe(true);
    expect((await engine.answers.vectorSearch('walking the dog')).map((h) => h.message.id)).not.toContain('a');
    expect(await store.countVectors('message', 'topic@1')).toBe(2);
  });
});
