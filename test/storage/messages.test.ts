import { beforeEach, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { HIGHLIGHT_END, HIGHLIGHT_START } from '../../src/core/base/types';
import { MAX_TURN_CHARS } from '../../src/core/base/limits';
import { charsOverFour } from '../../src/core/base/tokens';

let store: SqliteMemoryStore;
let t = 1_700_000_000_000;
const clock = { now: () => ++t };

async function seed() {
  await store.createConversation({ id: 'c1', title: 'Pets' });
  await store.createConversation({ id: 'c2', title: 'Travel' });
  await store.appendTurn({
    id: 'm1',
    conversationId: 'c1',
    role: 'user',
    speaker: 'Ana',
    content: 'I adopted a puppy named Biscuit last week.',
  });
  await store.appendTurn({
    id: 'm2',
    conversationId: 'c1',
    role: 'assistant',
    content: 'Congratulations on Biscuit! What breed is the puppy?',
  });
  await store.appendTurn({
    id: 'm3',
    conversationId: 'c2',
    role: 'user',
    speaker: 'Ana',
    content: 'We are flying to Lisbon in March for a conference.',
  });
}

beforeEach(async () => {
  store = await openNodeStore({ clock });
});

describe('conversations and turns', () => {
  it('appends turns in order with speakers and sequence numbers', async () => {
    await seed();
    const msgs = await store.listMessages('c1');
    expect(msgs.map((m) => [m.id, m.seq, m.role, m.speaker])).toEqual([
      ['m1', 1, 'user', 'Ana'],
      ['m2', 2, 'assistant', 'Assistant'],
    ]);
    // Each turn stores its token estimate (a quarter of its characters, rounded up), not a placeholder.
    expect(msgs.map((m) => m.tokenCount)).toEqual(msgs.map((m) => charsOverFour(m.content)));
    expect(msgs[0]!.tokenCount).toBe(Math.ceil('I adopted a puppy named Biscuit last week.'.length / 4));
    const convs = await store.listConversations();
    expect(convs.map((c) => [c.id, c.messageCount])).toEqual([
      ['c2', 1],
      ['c1', 2],
    ]);
  });

  it('stores the same client id once (idempotent re-send)', async () => {
    await seed();
    const again = await store.appendTurn({
      id: 'm1',
      conversationId: 'c1',
      role: 'user',
      speaker: 'Ana',
      content: 'I adopted a puppy named Biscuit last week.',
    });
    expect(again.created).toBe(false);
    expect(again.message.seq).toBe(1);
    expect(await store.listMessages('c1')).toHaveLength(2);
    expect((await store.stats()).messageCount).toBe(3);
  });

  it('refuses empty, huge and binary turns with clear errors and stores nothing', async () => {
    await seed();
    await expect(store.appendTurn({ id: 'x1', conversationId: 'c1', role: 'user', content: '   ' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      store.appendTurn({ id: 'x2', conversationId: 'c1', role: 'user', content: 'a'.repeat(MAX_TURN_CHARS + 1) }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('too long') });
    await expect(
      store.appendTurn({ id: 'x3', conversationId: 'c1', role: 'user', content: 'PK\u0003\u0004\u0000\u0000binary' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('binary') });
    await expect(store.appendTurn({ id: 'x4', conversationId: 'nope', role: 'user', content: 'hello' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await store.stats()).messageCount).toBe(3);
  });

  it('renames and deletes conversations, removing their turns from search', async () => {
    await seed();
    expect((await store.renameConversation('c1', '  Dogs  ')).title).toBe('Dogs');
    await store.deleteConversation('c1');
    expect((await store.listConversations()).map((c) => c.id)).toEqual(['c2']);
    expect(await store.searchMessages('Biscuit')).toEqual([]);
  });
});

describe('full-text search', () => {
  it('ranks by BM25 with OR semantics and highlights matches', async () => {
    await seed();
    const hits = await store.searchMessages('what is the name of the puppy?');
    expect(hits.map((h) => h.message.id)).toEqual(expect.arrayContaining(['m1', 'm2']));
    expect(hits.every((h) => h.score > 0)).toBe(true);
    expect(hits[0]!.snippet).toContain(`${HIGHLIGHT_START}puppy${HIGHLIGHT_END}`);
    // OR semantics: one matching term is enough.
    expect((await store.searchMessages('Lisbon zebra')).map((h) => h.message.id)).toEqual(['m3']);
    // stemming: "flights" ~ "flying" is not expected, but "conferences" → "conference" is
    expect((await store.searchMessages('conferences')).map((h) => h.message.id)).toEqual(['m3']);
    expect(await store.searchMessages('puppy', { conversationId: 'c2' })).toEqual([]);
  });

  it.each([
    ['"'],
    ['"unterminated'],
    ['*'],
    ['pup*'],
    ['NEAR('],
    ['NEAR(puppy Biscuit'],
    ['-'],
    ['-puppy'],
    ['puppy AND'],
    ['OR'],
    ['content:puppy'],
    ['^puppy'],
    ['(puppy'],
    ['{speaker}: Ana'],
    ['🐶🐶'],
    [''],
    ['   '],
    ["'; DROP TABLE messages; --"],
  ])('never lets user text inject FTS syntax: %j', async (q) => {
    await seed();
    const hits = await store.searchMessages(q);
    expect(Array.isArray(hits)).toBe(true);
    expect((await store.stats()).messageCount).toBe(3);
  });

  it('treats operators in the query as plain words', async () => {
    await seed();
    expect((await store.searchMessages('NEAR(puppy')).map((h) => h.message.id)).toEqual(expect.arrayContaining(['m1', 'm2']));
    expect((await store.searchMessages('-Lisbon')).map((h) => h.message.id)).toEqual(['m3']);
  });

  it('handles a 10 kB query', async () => {
    await seed();
    const q = 'puppy '.repeat(2000) + 'x'.repeat(5000);
    expect(q.length).toBeGreaterThan(10_000);
    expect((await store.searchMessages(q)).map((h) => h.message.id)).toEqual(expect.arrayContaining(['m1']));
  });

  it('finds text with emoji and accents', async () => {
    await store.createConversation({ id: 'c', title: 't' });
    await store.appendTurn({ id: 'e1', conversationId: 'c', role: 'user', content: 'Café trip 🎉 was great' });
    expect((await store.searchMessages('cafe')).map((h) => h.message.id)).toEqual(['e1']);
  });
});

describe('delete', () => {
  it('removes the turn from messages, FTS and vectors in one transaction', async () => {
    await seed();
    await store.db.exec(
      "INSERT INTO vectors (item_kind, item_id, model_id, dim, vector, created_at) VALUES ('message', 'm1', 'test', 2, x'0000803f00000000', 0)",
    );
    await store.db.exec(
      "INSERT INTO vectors (item_kind, item_id, model_id, dim, vector, created_at) VALUES ('message', 'm3', 'test', 2, x'0000803f00000000', 0)",
    );
    expect(await store.deleteMessage('m1')).toBe(true);
    expect(await store.getMessage('m1')).toBeNull();
    expect((await store.searchMessages('Biscuit')).map((h) => h.message.id)).toEqual(['m2']);
    const fts = await store.db.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'adopted'");
    expect(fts).toEqual([]);
    const vecs = await store.db.query('SELECT item_id FROM vectors');
    expect(vecs.map((v) => v.item_id)).toEqual(['m3']);
    expect(await store.deleteMessage('m1')).toBe(false);
    // FTS index stays consistent with its content table
    await expect(store.db.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")).resolves.toBeUndefined();
  });
});

describe('batch append', () => {
  it('appends a session in one transaction, all or none', async () => {
    await store.createConversation({ id: 'b', title: 'batch' });
    const results = await store.appendTurns([
      { id: 'b1', conversationId: 'b', role: 'user', content: 'first' },
      { id: 'b2', conversationId: 'b', role: 'assistant', content: 'second' },
    ]);
    expect(results.map((r) => [r.message.seq, r.created])).toEqual([
      [1, true],
      [2, true],
    ]);
    await expect(
      store.appendTurns([
        { id: 'b3', conversationId: 'b', role: 'user', content: 'third' },
        { id: 'b4', conversationId: 'b', role: 'user', content: '' },
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await store.listMessages('b')).map((m) => m.id)).toEqual(['b1', 'b2']);
  });
});
