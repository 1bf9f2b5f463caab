/**
 * One behaviour suite for every MemoryStore + VectorStore implementation (PGlite-style): each
 * implementation runs it from a two-line test file. What it pins is the contract the engine relies
 * on — conversations, idempotent and all-or-nothing appends, typed-input limits, search, deletes
 * that take their vectors along (and a title made from a deleted turn), pending embeddings read
 * from a cursor, meta.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryStore, VectorStore } from '../../src/core/base/store';
import type { Clock } from '../../src/core/base/ports';
import { UNTITLED } from '../../src/core/base/titles';

export type StoreFactory = (options: { clock: Clock }) => Promise<MemoryStore & VectorStore>;

export function describeStore(name: string, open: StoreFactory): void {
  describe(`${name}: the store contract`, () => {
    const setup = async () => {
      let now = Date.UTC(2026, 0, 1);
      const store = await open({ clock: { now: () => now++ } });
      await store.createConversation({ id: 'c', title: 'Chat' });
      return store;
    };

    it('creates, renames, lists and deletes conversations with their turns', async () => {
      const store = await setup();
      await store.createConversation({ id: 'd', title: '  Second   chat ' });
      expect((await store.listConversations()).map((c) => c.id).sort()).toEqual(['c', 'd']);
      expect((await store.renameConversation('d', 'Renamed')).title).toBe('Renamed');
      await expect(store.renameConversation('nope', 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(store.createConversation({ title: '   ' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await store.appendTurn({ id: 'd1', conversationId: 'd', role: 'user', content: 'in d' });
      expect((await store.listConversations()).find((c) => c.id === 'd')?.messageCount).toBe(1);
      await store.deleteConversation('d');
      expect((await store.listConversations()).map((c) => c.id)).toEqual(['c']);
      expect(await store.getMessage('d1')).toBeNull();
    });

    it("keeps each conversation's memory switches: on by default, set at creation or later, listed when off", async () => {
      const store = await setup();
      expect(await store.getConversation('c')).toMatchObject({ useMemory: true, remember: true });
      await store.createConversation({ id: 'quiet', title: 'Quiet', useMemory: false, remember: false });
      expect(await store.getConversation('quiet')).toMatchObject({ useMemory: false, remember: false });
      expect(await store.conversationsNotRemembered()).toEqual(['quiet']);
      expect(await store.setConversationMemory('quiet', { remember: true })).toMatchObject({ useMemory: false, remember: true });
      expect(await store.setConversationMemory('c', { useMemory: false })).toMatchObject({ useMemory: false, remember: true });
      expect(await store.conversationsNotRemembered()).toEqual([]);
      expect((await store.listConversations()).map((c) => [c.id, c.useMemory, c.remember]).sort()).toEqual([
        ['c', false, true],
        ['quiet', false, true],
      ]);
      await expect(store.setConversationMemory('nope', { remember: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await store.getConversation('nope')).toBeNull();
    });

    it('appends turns in order, once per id, and refuses bad input without storing any of the batch', async () => {
      const store = await setup();
      const [a, b] = await store.appendTurns([
        { id: 't1', conversationId: 'c', role: 'user', content: 'first' },
        { id: 't2', conversationId: 'c', role: 'assistant', content: 'second', occurredAt: 5 },
      ]);
      expect([a!.created, b!.created]).toEqual([true, true]);
      expect([a!.message.seq, b!.message.seq]).toEqual([1, 2]);
      expect(b!.message).toMatchObject({ speaker: 'Assistant', occurredAt: 5 });
      expect((await store.appendTurn({ id: 't1', conversationId: 'c', role: 'user', content: 'first' })).created).toBe(false);
      await expect(
        store.appendTurns([
          { id: 't3', conversationId: 'c', role: 'user', content: 'fine' },
          { id: 't4', conversationId: 'c', role: 'user', content: 'bad\u0000binary' },
        ]),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(store.appendTurn({ id: 't5', conversationId: 'missing', role: 'user', content: 'x' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(store.appendTurn({ id: 't6', conversationId: 'c', role: 'user', content: '   ' })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      expect((await store.listMessages('c')).map((m) => m.id)).toEqual(['t1', 't2']);
      expect((await store.stats()).messageCount).toBe(2);
    });

    it('reads a window of a conversation: the newest turns, or a few turns before one far back', async () => {
      const store = await setup();
      await store.createConversation({ id: 'w', title: 'Long' });
      await store.appendTurns(
        Array.from({ length: 60 }, (_, i) => ({
          id: `w${i}`,
          conversationId: 'w',
          role: i % 2 ? ('assistant' as const) : ('user' as const),
          content: `turn ${i}`,
        })),
      );
      const ids = (w: { messages: readonly { id: string }[] }) => w.messages.map((m) => m.id);
      const newest = await store.listMessageWindow('w', { limit: 20 });
      expect(newest).toMatchObject({ total: 60, offset: 40 });
      expect(ids(newest)).toEqual(Array.from({ length: 20 }, (_, i) => `w${40 + i}`));
      const around = await store.listMessageWindow('w', { limit: 20, around: 'w25' });
      expect(around).toMatchObject({ total: 60, offset: 15 });
      expect(ids(around)[10]).toBe('w25');
      expect(ids(await store.listMessageWindow('w', { limit: 20, around: 'w3' }))).toEqual(Array.from({ length: 20 }, (_, i) => `w${i}`));
      // A turn of another conversation (or none) reads the newest.
      expect((await store.listMessageWindow('w', { limit: 5, around: 'nope' })).offset).toBe(55);
      expect(await store.listMessageWindow('missing', { limit: 5 })).toEqual({ messages: [], total: 0, offset: 0 });
      expect((await store.listMessageWindow('w', { limit: 100 })).messages).toHaveLength(60);
    });

    it('finds turns by their words, within a conversation when asked', async () => {
      const store = await setup();
      await store.createConversation({ id: 'd', title: 'Other' });
      await store.appendTurns([
        { id: 'm1', conversationId: 'c', role: 'user', content: 'My dog Biscuit loves the beach.' },
        { id: 'm2', conversationId: 'c', role: 'user', content: 'I bought a new guitar.' },
      ]);
      await store.appendTurn({ id: 'm3', conversationId: 'd', role: 'user', content: 'Biscuit chased a cat.' });
      expect((await store.searchMessages('biscuit')).map((h) => h.message.id).sort()).toEqual(['m1', 'm3']);
      expect((await store.searchMessages('Biscuit', { conversationId: 'd' })).map((h) => h.message.id)).toEqual(['m3']);
      expect(await store.searchMessages('zebra')).toEqual([]);
      expect(await store.searchMessages('!!!')).toEqual([]);
    });

    it('deletes a turn with its vectors, and reads pending embeddings from a cursor', async () => {
      const store = await setup();
      await store.appendTurns(
        ['one', 'two', 'three'].map((content, i) => ({ id: `p${i}`, conversationId: 'c', role: 'user' as const, content })),
      );
      const pending = await store.pendingEmbeddings('message', 'm@1', 10);
      expect(pending.map((p) => [p.itemId, p.text])).toEqual([
        ['p0', 'one'],
        ['p1', 'two'],
        ['p2', 'three'],
      ]);
      expect((await store.pendingEmbeddings('message', 'm@1', 10, pending[0]!.key)).map((p) => p.itemId)).toEqual(['p1', 'p2']);
      await store.putVectors('message', 'm@1', [
        { itemId: 'p0', vector: new Float32Array([1, 0]) },
        { itemId: 'p1', vector: new Float32Array([0, 1]) },
      ]);
      expect((await store.pendingEmbeddings('message', 'm@1', 10)).map((p) => p.itemId)).toEqual(['p2']);
      expect(await store.newestPendingKey('message', 'm@1', 5)).toBe(pending[2]!.key);
      expect(await store.countVectors('message', 'm@1')).toBe(2);
      expect(await store.countItems('message')).toBe(3);
      expect(await store.deleteMessage('p1')).toBe(true);
      expect(await store.deleteMessage('p1')).toBe(false);
      expect(await store.countVectors('message', 'm@1')).toBe(1);
      expect((await store.getVectors('message', ['p0', 'p1'], 'm@1')).map((v) => [v.itemId, [...v.vector]])).toEqual([['p0', [1, 0]]]);
      await store.putVectors('message', 'old@1', [{ itemId: 'p0', vector: new Float32Array([1, 1]) }]);
      expect(await store.deleteOtherVectors('message', 'm@1')).toBe(1);
      expect(await store.loadVectors('message', 'old@1')).toEqual([]);
    });

    it('remakes a title made from a deleted turn from what remains, and keeps a title the user typed', async () => {
      const store = await setup();
      const send = (id: string, role: 'user' | 'assistant', content: string) =>
        store.sendTurn({ id, conversationId: 'n', role, content }, { title: content });
      const title = async () => {
        const c = (await store.getConversation('n'))!;
        return [c.title, c.titledBy];
      };
      await store.createConversation({ id: 'n', title: UNTITLED });
      await send('n1', 'user', 'First words');
      await send('n1a', 'assistant', 'An answer');
      await send('n2', 'user', 'Second words');
      expect(await title()).toEqual(['First words', 'message']);
      await store.deleteMessage('n2');
      expect(await title()).toEqual(['First words', 'message']);
      await store.renameConversation('n', 'Named by the endpoint', 'endpoint');
      await store.deleteMessage('n1a'); // the first answer: the endpoint's title was made from it
      expect(await title()).toEqual(['First words', 'message']);
      await store.deleteMessage('n1');
      expect(await title()).toEqual([UNTITLED, 'none']);
      await send('n3', 'user', 'Third words');
      await send('n4', 'user', 'Fourth words');
      await store.renameConversation('n', 'Third words, typed');
      await store.deleteMessage('n3');
      expect(await title()).toEqual(['Third words, typed', 'user']);
    });

    it('keeps settings in meta', async () => {
      const store = await setup();
      expect(await store.getMeta('some.key')).toBeNull();
      await store.setMeta('some.key', 'one');
      await store.setMeta('some.key', 'two');
      expect(await store.getMeta('some.key')).toBe('two');
    });
  });
}
