/**
 * A project's few items among many get their k best vector hits: the scope is applied inside the
 * vector index's scan (turns: SqlRetrievalSource.vector; facts and episodes: answerSourceOf's
 * nearest), not to a global top k afterwards. The big conversation's items are all nearer the
 * question than the project's, so filtering after the top k leaves the project with nothing.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlRetrievalSource } from '../../src/storage/retrievalSource';
import { SqlKnowledgeSource } from '../../src/storage/knowledgeSource';
import { SemanticIndex } from '../../src/core/capture/SemanticIndex';
import { answerSourceOf } from '../../src/core/recall/answerSource';

const MODEL = 'unit@1';
const T0 = Date.UTC(2026, 0, 5);
const BIG = 600;
const SMALL = 4;
const QUESTION = new Float32Array([1, 0, 0]);

/** A real-length turn (≈1,100 characters) with a table and a code block. */
function turn(i: number, where: string): string {
  return `Entry ${i} in ${where}. ${'We went over the schedule again, moved two meetings and wrote down who brings what on Saturday, because last time nobody did. '.repeat(7)}
| step | who |
|---|---|
| ${i} | me |

\`\`\`text
entry ${i}
\`\`\``;
}

/** Unit vectors: the big conversation's items lean towards the question more than the project's. */
function unit(x: number, y: number): Float32Array {
  const n = Math.hypot(x, y);
  return new Float32Array([x / n, y / n, 0]);
}
const near = (i: number) => unit(1, 0.1 + i * 0.0005);
const far = (i: number) => unit(0.5, 1 + i * 0.01);

async function seeded() {
  const store = await openNodeStore();
  await store.db.exec(
    `INSERT INTO projects (id, name, memory, created_at, updated_at) VALUES ('p', 'Thesis', 'project-only', ${T0}, ${T0})`,
  );
  await store.createConversation({ id: 'big', title: 'Everything else' });
  await store.createConversation({ id: 'small', title: 'Lab', projectId: 'p' });
  await store.appendTurns(
    Array.from({ length: BIG }, (_, i) => ({
      id: `b${i}`,
      conversationId: 'big',
      role: 'user' as const,
      speaker: 'You',
      content: turn(i, 'the big chat'),
      occurredAt: T0 + i,
    })),
  );
  await store.appendTurns(
    Array.from({ length: SMALL }, (_, i) => ({
      id: `s${i}`,
      conversationId: 'small',
      role: 'user' as const,
      speaker: 'You',
      content: turn(i, 'the project'),
      occurredAt: T0 + i,
    })),
  );
  await store.putVectors('message', MODEL, [
    ...Array.from({ length: BIG }, (_, i) => ({ itemId: `b${i}`, vector: near(i) })),
    ...Array.from({ length: SMALL }, (_, i) => ({ itemId: `s${i}`, vector: far(i) })),
  ]);
  // One episode per conversation; many facts in the big one, a few in the project.
  for (const [cell, conv] of [
    ['cell-big', 'big'],
    ['cell-small', 'small'],
  ] as const) {
    await store.db
      .exec(`INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, status, created_at, updated_at)
      VALUES ('${cell}', '${conv}', 0, 0, ${T0}, ${T0}, 'Planning', 'The user planned the week.', 'synthesised', ${T0}, ${T0})`);
  }
  const facts: { itemId: string; vector: Float32Array }[] = [];
  for (let i = 0; i < 300; i++) {
    await store.db.exec(
      `INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('fb${i}', 'cell-big', 'You', 'A note number ${i}.', ${T0}, ${T0})`,
    );
    facts.push({ itemId: `fb${i}`, vector: near(i) });
  }
  for (let i = 0; i < 3; i++) {
    await store.db.exec(
      `INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('fs${i}', 'cell-small', 'You', 'A lab note number ${i}.', ${T0}, ${T0})`,
    );
    facts.push({ itemId: `fs${i}`, vector: far(i) });
  }
  await store.putVectors('fact', MODEL, facts);
  const turns = new SemanticIndex(store, 'message');
  const factIndex = new SemanticIndex(store, 'fact');
  const source = new SqlRetrievalSource(store.db, {
    vectors: (model, query, k, options) => turns.search(model, query.length, query, k, options),
  });
  return { store, source, factIndex };
}

describe('scoped vector search: a small project in a big memory', () => {
  it('turn vectors: a project-only scope gets every one of its turns, best first, though 600 others are nearer', async () => {
    const { source } = await seeded();
    const unscoped = await source.vector(QUESTION, MODEL, { limit: 10 });
    expect(unscoped.every((id) => id.startsWith('b'))).toBe(true);
    const scoped = await source.vector(QUESTION, MODEL, { limit: 10, scope: { conversationIds: ['small'] } });
    expect(scoped).toEqual(['s0', 's1', 's2', 's3']);
    // Seen from the walled side: everything but the big chat is the project's turns.
    const walled = await source.vector(QUESTION, MODEL, { limit: 3, scope: { excludeConversationIds: ['big'] } });
    expect(walled).toEqual(['s0', 's1', 's2']);
  });

  it('a turn written after a scoped search is seen by the next one: the kept list of a scope’s turn ids follows writes', async () => {
    const { store } = await seeded();
    const turns = new SemanticIndex(store, 'message');
    const withIndex = new SqlRetrievalSource(store.db, {
      vectors: (model, query, k, options) => turns.search(model, query.length, query, k, options),
    });
    expect(await withIndex.vector(QUESTION, MODEL, { limit: 10, scope: { conversationIds: ['small'] } })).toEqual(['s0', 's1', 's2', 's3']);
    expect(await withIndex.vector(QUESTION, MODEL, { limit: 1, scope: { excludeConversationIds: ['small'] } })).toEqual(['b0']);
    // The nearest turn of all is written to the project, then one to the big chat.
    const add = async (id: string, conversationId: string) => {
      await store.appendTurns([
        { id, conversationId, role: 'user', speaker: 'You', content: turn(99, conversationId), occurredAt: T0 + 999 },
      ]);
      await turns.add(MODEL, [{ itemId: id, vector: QUESTION }]);
    };
    await add('s-new', 'small');
    expect((await withIndex.vector(QUESTION, MODEL, { limit: 10, scope: { conversationIds: ['small'] } }))[0]).toBe('s-new');
    // Walled off from the project's side: the project's new turn must not leak out of a kept list.
    expect(await withIndex.vector(QUESTION, MODEL, { limit: 1, scope: { excludeConversationIds: ['small'] } })).toEqual(['b0']);
    await add('b-new', 'big');
    expect(await withIndex.vector(QUESTION, MODEL, { limit: 1, scope: { conversationIds: ['big'] } })).toEqual(['b-new']);
    expect(await withIndex.vector(QUESTION, MODEL, { limit: 1, scope: { excludeConversationIds: ['big'] } })).toEqual(['s-new']);
  });

  it('a replaced file (an import) drops the kept list too, though SQLite counts no change for it', async () => {
    const { store } = await seeded();
    const turns = new SemanticIndex(store, 'message');
    const source = new SqlRetrievalSource(store.db, {
      vectors: (model, query, k, options) => turns.search(model, query.length, query, k, options),
    });
    expect(await source.vector(QUESTION, MODEL, { limit: 10, scope: { conversationIds: ['small'] } })).toHaveLength(SMALL);
    const other = await openNodeStore();
    await other.createConversation({ id: 'small', title: 'Lab' });
    await other.appendTurns([
      { id: 'x1', conversationId: 'small', role: 'user', speaker: 'You', content: turn(1, 'the import'), occurredAt: T0 },
    ]);
    await other.putVectors('message', MODEL, [{ itemId: 'x1', vector: QUESTION }]);
    const [before] = await store.db.query<{ c: number }>('SELECT total_changes() AS c');
    await store.db.replaceWith(other.db);
    const [after] = await store.db.query<{ c: number }>('SELECT total_changes() AS c');
    expect(after!.c).toBe(before!.c);
    turns.reset(); // the engine's import resets its vector indexes the same way
    expect(await source.vector(QUESTION, MODEL, { limit: 10, scope: { conversationIds: ['small'] } })).toEqual(['x1']);
  });

  it('a time bound on top of the scope still holds', async () => {
    const { source } = await seeded();
    const scoped = await source.vector(QUESTION, MODEL, { limit: 10, scope: { conversationIds: ['small'], until: T0 + 1 } });
    expect(scoped).toEqual(['s0', 's1']);
  });

  it('fact vectors for an answer in the project: its facts, not an empty list', async () => {
    const { store, factIndex } = await seeded();
    const knowledge = new SqlKnowledgeSource(store.db);
    const answers = answerSourceOf(
      knowledge,
      async () => ({ turns: [] }),
      (_kind, _query, k, filter) => factIndex.search(MODEL, 3, QUESTION, k, filter ? { filter } : {}),
    );
    // The question's words match no fact: only the vector side can find them.
    const facts = await answers.facts('quasar', { limit: 5, scope: { only: ['small'], profile: true } });
    expect(facts.map((f) => f.id)).toEqual(['fs0', 'fs1', 'fs2']);
    const outside = await answers.facts('quasar', { limit: 5, scope: { without: ['small'], profile: true } });
    expect(outside).toHaveLength(5);
    expect(outside.every((f) => f.id.startsWith('fb'))).toBe(true);
  });
});
