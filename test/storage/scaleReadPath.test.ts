/**
 * The read path's scale measures: lexical term selection by document frequency under
 * a postings budget, ranking inside the FTS table before the join (same order as the joined
 * query), BM25 search with snippets for its top rows only, and the cached speaker list.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { SqlRetrievalSource, selectTerms } from '../../src/storage/retrievalSource';
import { RETRIEVAL_CONFIG } from '../../src/core/recall/fusion';
import { HIGHLIGHT_START } from '../../src/core/base/types';

let store: SqliteMemoryStore;
const fields = RETRIEVAL_CONFIG.fields;

/** 60 turns that all say "hello"; two mention running, one a zebra. */
async function seed(): Promise<void> {
  await store.createConversation({ id: 'c', title: 'c' });
  const lines = Array.from({ length: 60 }, (_, i) => `hello there, number ${i} of the weather report`);
  lines[10] = 'hello, I was running by the river';
  lines[40] = 'hello again, running late today';
  lines[25] = 'hello, we saw a zebra at the zoo';
  await store.appendTurns(
    lines.map((content, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user',
      speaker: i % 2 ? 'Bob' : 'Ann',
      content,
      occurredAt: 1_700_000_000_000 + i,
    })),
  );
}

beforeEach(async () => {
  store = await openNodeStore();
});

describe('selectTerms', () => {
  const df = new Map([
    ['rare', 3],
    ['mid', 40],
    ['common', 900],
    ['none', 0],
  ]);
  it('keeps every term while their postings fit the budget', () => {
    expect(selectTerms(['common', 'rare', 'mid'], df, 1000)).toEqual(['common', 'rare', 'mid']);
  });
  it('over the budget keeps the rarest terms, in their input order, and always at least one', () => {
    expect(selectTerms(['common', 'rare', 'mid', 'none'], df, 100)).toEqual(['rare', 'mid', 'none']);
    expect(selectTerms(['common', 'mid'], df, 10)).toEqual(['mid']);
  });
});

describe('SqlRetrievalSource at scale', () => {
  it('leaves out the commonest term when a query is over its postings budget, counting stemmed forms', async () => {
    await seed();
    const exact = new SqlRetrievalSource(store.db);
    const budgeted = new SqlRetrievalSource(store.db, { postingsBudget: 30 });
    // "hello" matches all 60 turns (its own and its neighbours' context); "runs" stems like "running".
    expect(await exact.lexical(['hello', 'runs'], { limit: 100, fields })).toHaveLength(60);
    const cut = await budgeted.lexical(['hello', 'runs'], { limit: 100, fields });
    expect(cut.slice(0, 2).sort()).toEqual(['t10', 't40']);
    expect(cut.length).toBeLessThan(60);
    expect(cut).not.toContain('t30');
    // The same ranking head either way: the rare term decides it.
    expect((await exact.lexical(['hello', 'runs'], { limit: 2, fields })).sort()).toEqual(['t10', 't40']);
  });

  it('ranks unscoped queries in the FTS table in the same order as the joined, scoped query', async () => {
    await seed();
    const source = new SqlRetrievalSource(store.db);
    // Every turn says hello and 58 give the weather report: those two fill the limit of 50.
    for (const [terms, hits] of [
      [['hello', 'zebra'], 50],
      [['weather', 'report', 'running'], 50],
      [['river'], 4],
    ] as const) {
      const unscoped = await source.lexical([...terms], { limit: 50, fields });
      const scoped = await source.lexical([...terms], { limit: 50, fields, scope: { until: Number.MAX_SAFE_INTEGER } });
      expect(unscoped).toHaveLength(hits);
      expect(unscoped).toEqual(scoped);
    }
  });
});

describe('SqlRetrievalSource vector candidates', () => {
  it('asks the vector search for its approximate order, and applies a conversation scope inside its scan', async () => {
    await seed();
    await store.createConversation({ id: 'd', title: 'd' });
    await store.appendTurns([
      { id: 'u0', conversationId: 'd', role: 'user', speaker: 'Ann', content: 'elsewhere', occurredAt: 1_700_000_000_000 },
    ]);
    const asked: { k: number; approximate: boolean | undefined }[] = [];
    const hits = [
      { id: 'u0', score: 0.9 },
      { id: 't3', score: 0.8 },
      { id: 'gone', score: 0.7 },
      { id: 't5', score: 0.6 },
      { id: 't7', score: -0.1 },
    ];
    const source = new SqlRetrievalSource(store.db, {
      vectors: async (_model, _query, k, options) => {
        asked.push({ k, approximate: options?.approximate });
        return hits.filter((h) => !options?.filter || options.filter(h.id)).slice(0, k);
      },
    });
    const q = new Float32Array([1, 0]);
    // Non-positive cosines are dropped; unscoped, ids are not checked.
    expect(await source.vector(q, 'm', { limit: 5 })).toEqual(['u0', 't3', 'gone', 't5']);
    // Scoped: the index is asked for exactly k and filters by the conversations' turns while it
    // scans, so a small scope still gets its k best (u0, ahead of them, is not in c).
    expect(await source.vector(q, 'm', { limit: 2, scope: { conversationIds: ['c'] } })).toEqual(['t3', 't5']);
    // Excluding c keeps everything else the index holds ('gone' stands for an id no table has:
    // the scan's test is the walled conversations' turns, not a lookup of every hit).
    expect(await source.vector(q, 'm', { limit: 5, scope: { excludeConversationIds: ['c'] } })).toEqual(['u0', 'gone']);
    expect(asked).toEqual([
      { k: 5, approximate: true },
      { k: 2, approximate: true },
      { k: 5, approximate: true },
    ]);
  });
});

describe('store search and speakers', () => {
  it('BM25 search returns its top rows best first with snippets, the same as within the conversation', async () => {
    await seed();
    const all = await store.searchMessages('zebra running', { limit: 5 });
    expect(all.map((h) => h.message.id)).toEqual(
      (await store.searchMessages('zebra running', { limit: 5, conversationId: 'c' })).map((h) => h.message.id),
    );
    expect(all[0]!.message.id).toBe('t25');
    expect(all[0]!.snippet).toContain(`${HIGHLIGHT_START}zebra`);
    expect(all.map((h) => h.score)).toEqual([...all.map((h) => h.score)].sort((a, b) => b - a));
    expect(await store.searchMessages('unicorn')).toEqual([]);
  });

  it('caches the speaker list until a turn is written', async () => {
    await seed();
    expect(await store.speakers()).toEqual(expect.arrayContaining(['Ann', 'Bob']));
    expect(await store.speakers()).not.toContain('Cleo');
    await store.appendTurn({ id: 'x', conversationId: 'c', role: 'user', speaker: 'Cleo', content: 'hi' });
    expect(await store.speakers()).toContain('Cleo');
    await store.deleteMessage('x');
    expect(await store.speakers()).not.toContain('Cleo');
  });
});
