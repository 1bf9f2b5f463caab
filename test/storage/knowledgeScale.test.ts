/**
 * SqlKnowledgeSource at scale (src/storage/knowledgeSource.ts): the facts' and episodes' full-text
 * queries leave out their commonest terms when the postings exceed the budget (and keep every term
 * under it), rank inside the FTS table with the same results as the joined query, never return a
 * raw episode, and the answer's profile read takes its few most confident items in SQL.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { KNOWLEDGE_POSTINGS_BUDGET, SqlKnowledgeSource } from '../../src/storage/knowledgeSource';
import { answerSourceOf } from '../../src/core/recall/answerSource';

let store: SqliteMemoryStore;

/**
 * 60 synthesised episodes of one conversation, each with one fact. Every fact and narrative says
 * "hello"; episodes 10 and 40 (and their facts) mention running, 25 a zebra. Episode 50 is raw but
 * titled "running" (a user named it), 51 is raw.
 */
async function seed(): Promise<void> {
  const db = store.db;
  await store.createConversation({ id: 'c', title: 'c' });
  const text = (i: number) =>
    i === 10
      ? 'hello, she was running by the river'
      : i === 40
        ? 'hello again, running late today'
        : i === 25
          ? 'hello, we saw a zebra at the zoo'
          : `hello there, number ${i} of the weather report`;
  for (let i = 0; i < 52; i++) {
    const synthesised = i < 50;
    await db.exec(
      `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, status, created_at, updated_at)
       VALUES (?, 'c', ?, ?, ?, ?, ?, ?, ?, 0, 0)`,
      [
        `e${i}`,
        i + 1,
        i + 1,
        i,
        i,
        i === 50 ? 'running' : synthesised ? `episode ${i}` : null,
        synthesised ? `Ann said ${text(i)}` : null,
        synthesised ? 'synthesised' : 'raw',
      ],
    );
    if (synthesised) {
      await db.exec('INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)', [
        `f${i}`,
        `e${i}`,
        i % 2 ? 'Bob' : 'Ann',
        text(i),
      ]);
    }
  }
}

beforeEach(async () => {
  store = await openNodeStore();
});

describe('SqlKnowledgeSource at scale', () => {
  it('leaves out the commonest term of a fact query over its postings budget, counting stemmed forms', async () => {
    await seed();
    const exact = new SqlKnowledgeSource(store.db);
    const budgeted = new SqlKnowledgeSource(store.db, { postingsBudget: 30 });
    // "hello" matches all 50 facts; "runs" stems like "running" (2 facts).
    expect(await exact.lexicalFacts('hello runs', { limit: 100 })).toHaveLength(50);
    const cut = await budgeted.lexicalFacts('hello runs', { limit: 100 });
    expect(cut.map((f) => f.id).sort()).toEqual(['f10', 'f40']);
    // The same head either way: the rare term decides it.
    expect((await exact.lexicalFacts('hello runs', { limit: 2 })).map((f) => f.id).sort()).toEqual(['f10', 'f40']);
    // Under the budget nothing is left out: a database this small never reaches the default one.
    expect(60 * 2).toBeLessThan(KNOWLEDGE_POSTINGS_BUDGET);
    expect(await new SqlKnowledgeSource(store.db, { postingsBudget: 100 }).lexicalFacts('hello runs', { limit: 100 })).toHaveLength(50);
  });

  it('leaves out the commonest term of an episode query over its budget, and never returns a raw episode', async () => {
    await seed();
    const exact = new SqlKnowledgeSource(store.db);
    const budgeted = new SqlKnowledgeSource(store.db, { postingsBudget: 30 });
    expect(await exact.lexicalEpisodes('hello zebra', { limit: 100 })).toHaveLength(50);
    expect((await budgeted.lexicalEpisodes('hello zebra', { limit: 100 })).map((e) => e.id)).toEqual(['e25']);
    // e50 is titled "running" but raw: the top rows hold it, so the joined query fills the limit.
    const running = await exact.lexicalEpisodes('running', { limit: 2 });
    expect(running.map((e) => e.id).sort()).toEqual(['e10', 'e40']);
    expect((await exact.lexicalEpisodes('running', { limit: 1 })).map((e) => e.id)).toHaveLength(1);
  });

  it('ranks unscoped queries in the FTS table in the same order as the conversation-scoped, joined query', async () => {
    await seed();
    const source = new SqlKnowledgeSource(store.db);
    for (const [query, limit] of [
      ['hello zebra', 20],
      ['weather report running', 12],
      ['river', 5],
      ['hello', 50],
    ] as const) {
      const unscoped = await source.lexicalFacts(query, { limit });
      const scoped = await source.lexicalFacts(query, { limit, conversationId: 'c' });
      expect(unscoped.map((f) => f.id)).toEqual(scoped.map((f) => f.id));
      const cells = await source.lexicalEpisodes(query, { limit });
      const scopedCells = await source.lexicalEpisodes(query, { limit, conversationId: 'c' });
      expect(cells.map((e) => e.id)).toEqual(scopedCells.map((e) => e.id));
    }
  });

  it('reads only the most confident profile items an answer asks for, in the order the answer source sorts them', async () => {
    const db = store.db;
    for (let i = 0; i < 40; i++) {
      await db.exec(
        `INSERT INTO profile_items (id, kind, key, value, confidence, status, created_at, updated_at) VALUES (?, 'explicit', ?, 'v', ?, ?, 0, ?)`,
        [`p${String(i).padStart(2, '0')}`, `key ${i}`, (i % 4) / 4, i % 10 === 9 ? 'deleted' : 'active', i % 3],
      );
    }
    const knowledge = new SqlKnowledgeSource(db);
    const all = await answerSourceOf(knowledge, async () => ({ turns: [] })).profile();
    expect(all).toHaveLength(36);
    const top = await knowledge.profile(10);
    expect(top.map((p) => p.id)).toEqual(all.slice(0, 10).map((p) => p.id));
    expect((await answerSourceOf(knowledge, async () => ({ turns: [] })).profile(10)).map((p) => p.id)).toEqual(
      all.slice(0, 10).map((p) => p.id),
    );
    expect(top.every((p) => p.status === 'active')).toBe(true);
  });
});
