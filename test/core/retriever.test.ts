/**
 * The Retriever over the real storage path (openNodeStore → appendTurn → turn index) on tiny
 * hand-made conversations where the right order is known, with a fake embedder and reranker.
 */
import { describe, expect, it } from 'vitest';
import { Retriever, type RetrievalSource } from '../../src/core/recall/Retriever';
import { withConfig } from '../../src/core/recall/fusion';
import { VectorIndex } from '../../src/core/capture/vectorIndex';
import type { Embedder, Reranker } from '../../src/core/base/ports';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlRetrievalSource } from '../../src/storage/retrievalSource';
import { boundSource as bound } from '../support/boundSource';

const DAY = 86_400_000;
const MAY_8 = Date.UTC(2023, 4, 8, 13, 56);
const SEP_1 = Date.UTC(2023, 8, 1, 10, 0);

/** Words → one of 4 "meaning" axes; dog and puppy mean the same thing. */
const AXES: Record<string, number> = { dog: 0, puppy: 0, pet: 0, bicycle: 1, bike: 1, marathon: 2, run: 2, beach: 3, sea: 3 };
const fakeEmbedder: Embedder = {
  id: 'fake@1',
  dim: 4,
  embed(texts) {
    return Promise.resolve(
      texts.map((t) => {
        const v = new Float32Array(4);
        for (const w of t.toLowerCase().match(/[a-z]+/g) ?? []) if (AXES[w] !== undefined) v[AXES[w]!]! += 1;
        const n = Math.hypot(...v);
        return n > 0 ? v.map((x) => x / n) : v;
      }),
    );
  },
};

interface Turn {
  readonly speaker: string;
  readonly content: string;
  readonly at: number;
  readonly caption?: string;
}

async function setUp(
  turns: readonly Turn[],
  options: { embedder?: boolean; reranker?: Reranker; config?: Parameters<typeof withConfig>[0] } = {},
) {
  const store = await openNodeStore();
  await store.createConversation({ id: 'c', title: 'chat' });
  const index = new VectorIndex(fakeEmbedder.dim);
  for (const [i, t] of turns.entries()) {
    await store.appendTurn({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user',
      speaker: t.speaker,
      content: t.content,
      occurredAt: t.at,
      metadata: t.caption ? { caption: t.caption } : {},
    });
    const [v] = await fakeEmbedder.embed([t.content]);
    index.add(`t${i}`, v!);
  }
  const source = new SqlRetrievalSource(store.db, {
    vectors: (model, q, k) => Promise.resolve(model === fakeEmbedder.id ? index.search(q, k) : []),
  });
  const retriever = new Retriever({
    source,
    ...(options.embedder ? { embedder: fakeEmbedder } : {}),
    ...(options.reranker ? { reranker: options.reranker } : {}),
    config: withConfig(options.config ?? {}),
  });
  return { store, source, retriever };
}

const ids = (r: { turns: readonly { message: { id: string } }[] }) => r.turns.map((t) => t.message.id);

describe('Retriever', () => {
  it('finds a reply that only makes sense with its neighbour (context indexing)', async () => {
    const turns: Turn[] = [
      { speaker: 'Ann', content: 'Did you finish the marathon in the end?', at: MAY_8 },
      { speaker: 'Bob', content: 'Yes, last Friday! Three hours forty.', at: MAY_8 },
      { speaker: 'Ann', content: 'I baked rye bread.', at: MAY_8 },
      { speaker: 'Bob', content: 'Nice, what kind of flour?', at: MAY_8 },
    ];
    const { retriever } = await setUp(turns);
    const r = await retriever.retrieve('When did Bob finish the marathon?', { speakers: ['Ann', 'Bob'], now: MAY_8 + DAY });
    expect(ids(r).slice(0, 2).sort()).toEqual(['t0', 't1']);
    const reply = r.turns.find((t) => t.message.id === 't1')!;
    expect(reply.reasons).toContain('lexical');
    expect(reply.reasons).toContain('speaker');
    expect(reply.reasons).toContain('timeExpression');

    // The reply holds none of the query's words: only its neighbour context matched.
    expect(reply.message.content).not.toMatch(/marathon|finish/i);
  });

  it('finds that reply in a large memory too, where neighbour context is added by score (own words + context links)', async () => {
    const turns: Turn[] = [
      { speaker: 'Ann', content: 'Did you finish the marathon in the end?', at: MAY_8 },
      { speaker: 'Bob', content: 'Yes, last Friday! Three hours forty.', at: MAY_8 },
      { speaker: 'Ann', content: 'I baked rye bread.', at: MAY_8 },
      { speaker: 'Bob', content: 'Nice, what kind of flour?', at: MAY_8 },
      // A later session: not the reply's context (more than the window's gap apart).
      { speaker: 'Bob', content: 'A quiet week.', at: SEP_1 },
    ];
    const question = 'When did Bob finish the marathon?';
    const large = await setUp(turns, { config: { large: { above: 0 } } });
    const r = await large.retriever.retrieve(question, { speakers: ['Ann', 'Bob'], now: MAY_8 + DAY });
    expect(ids(r).slice(0, 2).sort()).toEqual(['t0', 't1']);
    expect(r.turns.find((t) => t.message.id === 't1')!.reasons).toContain('lexical');
    expect(ids(r)).not.toContain('t4');
    // Without the context links the reply is not a lexical candidate at all.
    const alone = await setUp(turns, { config: { large: { above: 0, context: 0 } } });
    const r2 = await alone.retriever.retrieve(question, { speakers: ['Ann', 'Bob'], now: MAY_8 + DAY });
    expect(r2.turns.find((t) => t.message.id === 't1')?.reasons ?? []).not.toContain('lexical');
    await large.store.db.close();
    await alone.store.db.close();
  });

  it('indexes image captions with their turn', async () => {
    const { retriever } = await setUp([
      { speaker: 'Ann', content: 'Look what I got!', at: MAY_8, caption: 'a photo of a red bicycle leaning on a fence' },
      { speaker: 'Bob', content: 'I need a new helmet.', at: SEP_1 },
    ]);
    const r = await retriever.retrieve('What colour is the bicycle Ann got?', { speakers: ['Ann', 'Bob'] });
    expect(ids(r)[0]).toBe('t0');
  });

  it('prefers the turn of the speaker the question names', async () => {
    const { retriever } = await setUp([
      { speaker: 'Ann', content: 'I love hiking in the mountains.', at: MAY_8 },
      { speaker: 'Bob', content: 'I love hiking in the mountains.', at: SEP_1 },
    ]);
    const r = await retriever.retrieve('Does Bob love hiking?', { speakers: ['Ann', 'Bob'] });
    expect(ids(r)).toEqual(['t1', 't0']);
    expect(r.turns[0]!.reasons).toContain('speaker');
    expect(r.analysis.speakers).toEqual(['Bob']);
  });

  it('prefers turns inside the date range the question names', async () => {
    const { retriever } = await setUp([
      { speaker: 'Ann', content: 'We spent the day at the beach.', at: MAY_8 },
      { speaker: 'Ann', content: 'We spent the day at the beach.', at: SEP_1 },
    ]);
    const sep = await retriever.retrieve('What did Ann do at the beach in September 2023?', { speakers: ['Ann'], now: SEP_1 + 30 * DAY });
    expect(ids(sep)).toEqual(['t1', 't0']);
    expect(sep.turns[0]!.reasons).toContain('dateRange');
    const may = await retriever.retrieve('What did Ann do at the beach in May 2023?', { speakers: ['Ann'], now: SEP_1 + 30 * DAY });
    expect(ids(may)).toEqual(['t0', 't1']);
  });

  it('finds a turn by meaning through vector candidates when no word matches', async () => {
    const turns: Turn[] = [
      { speaker: 'Ann', content: 'We adopted a puppy from the shelter.', at: MAY_8 },
      { speaker: 'Bob', content: 'My bike got a flat tyre.', at: SEP_1 },
    ];
    const { retriever } = await setUp(turns, { embedder: true });
    const r = await retriever.retrieve('dog', {});
    expect(ids(r)[0]).toBe('t0');
    expect(r.turns[0]!.reasons).toEqual(['vector']);
    // Without an embedder, nothing matches the word "dog".
    const { retriever: lexicalOnly } = await setUp(turns);
    expect(ids(await lexicalOnly.retrieve('dog', {}))).toEqual([]);
  });

  it('lets a trusted reranker lift the turn it singles out, and an untrusted one change nothing', async () => {
    const turns: Turn[] = [
      { speaker: 'Ann', content: 'The garden party was lovely, the garden looked great.', at: MAY_8 },
      { speaker: 'Ann', content: 'The garden gnome fell over in the garden.', at: MAY_8 },
      { speaker: 'Ann', content: 'I painted the garden shed.', at: MAY_8 },
      { speaker: 'Ann', content: 'Garden birds were singing.', at: MAY_8 },
      { speaker: 'Ann', content: 'A garden hose leaked.', at: MAY_8 },
      { speaker: 'Bob', content: 'Our garden has tomatoes now.', at: SEP_1 },
    ];
    let calls = 0;
    const scoring = (trust?: number): Reranker => ({
      id: 'fake-rerank',
      ...(trust !== undefined ? { trust } : {}),
      rerank: (_q, docs) => {
        calls++;
        return Promise.resolve(docs.map((d) => (d.includes('tomatoes') ? 5 : -5)));
      },
    });
    const { retriever: plain } = await setUp(turns);
    const fused = ids(await plain.retrieve('garden'));
    expect(fused[0]).not.toBe('t5');
    const { retriever: strong } = await setUp(turns, { reranker: scoring() });
    const r = await strong.retrieve('garden');
    expect(ids(r)[0]).toBe('t5');
    expect(r.turns[0]!.reasons).toContain('rerank');
    expect(r.turns[0]!.rerankScore).toBe(5);
    expect(r.turns.map((t) => t.score)).toEqual([...r.turns.map((t) => t.score)].sort((a, b) => b - a)); // scores follow the order
    // rerank: false skips the stage; a reranker of trust 0 is not even asked (it could move nothing).
    calls = 0;
    expect(ids(await strong.retrieve('garden', { rerank: false }))).toEqual(fused);
    const { retriever: untrusted } = await setUp(turns, { reranker: scoring(0) });
    const u = await untrusted.retrieve('garden');
    expect(ids(u)).toEqual(fused);
    expect(u.turns.every((t) => t.rerankScore === undefined)).toBe(true);
    expect(calls).toBe(0);
    // The rerank pool reaches below the boosted candidates (depth.fused): a turn fused at rank 6 is
    // still scored and lifted; without a reranker only depth.fused candidates are read.
    const shallow = { depth: { fused: 1 }, rerank: { candidates: 10 } };
    const { retriever: noRerank } = await setUp(turns, { config: shallow });
    expect(ids(await noRerank.retrieve('garden'))).toEqual([fused[0]]);
    const { retriever: deep } = await setUp(turns, { reranker: scoring(), config: shallow });
    expect(ids(await deep.retrieve('garden'))[0]).toBe('t5');
  });

  it('asks a trusted reranker also about the neighbours of the best turns and the deeper vector list, never a stand-in', async () => {
    const turns: Turn[] = [
      { speaker: 'Ann', content: 'We went to the marathon expo.', at: MAY_8 },
      { speaker: 'Bob', content: 'Which shoes did you buy there?', at: MAY_8 + 60_000 },
      { speaker: 'Ann', content: 'The blue ones with thick soles.', at: MAY_8 + 120_000 },
      { speaker: 'Ann', content: 'My puppy chewed a sock.', at: SEP_1 },
      { speaker: 'Ann', content: 'The sea was calm.', at: SEP_1 + DAY },
      { speaker: 'Ann', content: 'I run every morning.', at: SEP_1 + 2 * DAY },
    ];
    let seen: string[] = [];
    const recording = (trust?: number): Reranker => ({
      id: 'recording',
      ...(trust !== undefined ? { trust } : {}),
      rerank: (_q, docs) => {
        seen = [...docs];
        return Promise.resolve(docs.map(() => 0));
      },
    });
    // One candidate per list: the pool is the best turn alone, plus what the pool options add.
    const narrow = { depth: { lexical: 1, prf: 1, vector: 1, fused: 1 }, prf: { enabled: false } };
    const asked = async (rerank: Record<string, number>, trust?: number) => {
      seen = [];
      const { retriever } = await setUp(turns, {
        embedder: true,
        reranker: recording(trust),
        config: { ...narrow, rerank: { candidates: 2, neighbours: 0, window: 0, vectorDepth: 0, ...rerank } },
      });
      await retriever.retrieve('marathon expo');
      return seen.map((d) => turns.find((t) => d.includes(t.content))?.content);
    };
    expect(await asked({})).toEqual([]); // one candidate: nothing to reorder, the reranker is not asked
    // neighbours: the turns just before and after the best one (the first), same conversation and session.
    expect(await asked({ neighbours: 1, window: 1 })).toEqual([turns[0]!.content, turns[1]!.content]);
    expect(await asked({ neighbours: 1, window: 3 })).toEqual([turns[0]!.content, turns[1]!.content, turns[2]!.content]); // the puppy is another session
    // vectorDepth: the vector list read deeper for the pool (the fused lists keep depth.vector).
    expect(await asked({ vectorDepth: 5 })).toEqual([turns[0]!.content, turns[5]!.content]); // extras after the fused candidates
    // A reranker of trust 0 is asked about nothing, however the pool is configured.
    expect(await asked({ neighbours: 5, vectorDepth: 5 }, 0)).toEqual([]);
  });

  it('respects the limit and a conversation scope, and never returns deleted turns', async () => {
    const { retriever, store } = await setUp([
      { speaker: 'Ann', content: 'pottery class on Monday', at: MAY_8 },
      { speaker: 'Ann', content: 'another pottery class', at: MAY_8 },
      { speaker: 'Ann', content: 'pottery again', at: MAY_8 },
    ]);
    expect(ids(await retriever.retrieve('pottery', { limit: 2 }))).toHaveLength(2);
    expect(ids(await retriever.retrieve('pottery', { scope: { conversationIds: ['elsewhere'] } }))).toEqual([]);
    await store.deleteMessage('t1');
    const after = ids(await retriever.retrieve('pottery'));
    expect(after).not.toContain('t1');
    expect(after).toHaveLength(2);
  });

  it('reads whole only the turns it returns: the other candidates by their ranking facts, text only when a boost reads it', async () => {
    const { source, store } = await setUp(
      Array.from({ length: 12 }, (_, i) => ({
        speaker: 'Ann',
        content: `pottery class number ${i} on Monday`,
        at: MAY_8 + i,
        caption: `kiln ${i}`,
      })),
    );
    const whole: string[] = [];
    const facts: { ids: string[]; content: boolean | 'user' }[] = [];
    const recording: RetrievalSource = {
      ...bound(source),
      turns: (ids) => {
        whole.push(...ids);
        return source.turns(ids);
      },
      facts: (ids, o) => {
        facts.push({ ids: [...ids], content: o.content });
        return source.facts(ids, o);
      },
    };
    // Feedback off: it reads the best few lexical hits whole for their words.
    const retriever = new Retriever({ source: recording, config: withConfig({ prf: { enabled: false } }) });
    const r = await retriever.retrieve('pottery class', { limit: 3, now: SEP_1 });
    expect(ids(r)).toHaveLength(3);
    expect([...whole].sort()).toEqual([...ids(r)].sort());
    expect(r.turns.every((t) => t.message.metadata.caption !== undefined)).toBe(true);
    expect(facts).toHaveLength(1);
    expect(facts[0]!.ids.length).toBe(12);
    // The user's turns' text only, for the standing-instruction boost.
    expect(facts[0]!.content).toBe('user');
    await retriever.retrieve('When was the pottery class?', { limit: 3, now: SEP_1 });
    expect(facts[1]!.content).toBe(true);
    const off = new Retriever({ source: recording, config: withConfig({ prf: { enabled: false }, boosts: { instruction: 0 } }) });
    await off.retrieve('pottery class', { limit: 3, now: SEP_1 });
    expect(facts[2]!.content).toBe(false);
    const [fact] = await source.facts(['t3', 'missing'], { content: true });
    expect(fact).toEqual({
      id: 't3',
      conversationId: 'c',
      occurredAt: MAY_8 + 3,
      speaker: 'Ann',
      role: 'user',
      content: 'pottery class number 3 on Monday',
    });
    expect((await source.facts(['t3'], { content: false }))[0]!.content).toBeUndefined();
    await store.db.close();
  });

  it("gives a turn's neighbours in conversation order (source)", async () => {
    const { source } = await setUp(['one', 'two', 'three', 'four', 'five'].map((content) => ({ speaker: 'Ann', content, at: MAY_8 })));
    expect((await source.neighbours('t2', 1, 2)).map((m) => m.content)).toEqual(['two', 'four', 'five']);
    expect((await source.neighbours('t0', 3, 0)).map((m) => m.content)).toEqual([]);
    expect(await source.neighbours('nope', 1, 1)).toEqual([]);
  });

  it('links a turn to the turns whose neighbour context holds it, within the window and the time gap (source)', async () => {
    const at = [MAY_8, MAY_8, MAY_8, MAY_8, SEP_1];
    const { source, store } = await setUp(
      ['one', 'two', 'three', 'four', 'five'].map((content, i) => ({ speaker: 'Ann', content, at: at[i]! })),
    );
    const links = (await source.contextLinks(['t1', 't3'])).map((l) => `${l.from}>${l.to}:${l.side}${l.distance}`).sort();
    // t1 is "after" context of t0 and "before" context of t2 and t3; t3 of t2, of nothing later (t4 is months later).
    expect(links).toEqual(['t1>t0:after1', 't1>t2:before1', 't1>t3:before2', 't3>t2:after1']);
    expect(await source.contextLinks([])).toEqual([]);
    expect((await source.contextLinks(['t1'], { until: MAY_8 - 1 })).length).toBe(0);
    await store.db.close();
  });

  it('scores turns by their own words, the rarest terms first when their postings exceed the budget (source)', async () => {
    const { source, store } = await setUp(
      ['red apple', 'red car', 'red hat', 'green apple'].map((content) => ({ speaker: 'Ann', content, at: MAY_8 })),
    );
    const all = await source.ownWords(['red', 'apple'], { limit: 10, content: 1, speaker: 0, postings: 1000 });
    expect(all[0]!.id).toBe('t0');
    expect(all.map((h) => h.id).sort()).toEqual(['t0', 't1', 't2', 't3']);
    expect(all.every((h) => h.score > 0)).toBe(true);
    // 'red' (3 turns) and 'apple' (2): a budget of 2 keeps only 'apple'.
    const rare = await source.ownWords(['red', 'apple'], { limit: 10, content: 1, speaker: 0, postings: 2 });
    expect(rare.map((h) => h.id).sort()).toEqual(['t0', 't3']);
    await store.db.close();
  });

  it("reads the index's own statistics for full-query scoring: turns, mean length, each term's turns (source)", async () => {
    const { source, store } = await setUp(
      ['red apple pie', 'red car', 'red hat', 'green apple'].map((content) => ({ speaker: 'Ann', content, at: MAY_8 })),
    );
    const stats = await source.termStats(['red', 'apple', 'blue']);
    expect(stats.docs).toBe(4);
    expect(stats.avgLength).toBeCloseTo(9 / 4, 5);
    expect(Object.fromEntries(stats.df)).toEqual({ red: 3, apple: 2, blue: 0 });
    await store.db.close();
  });

  it('ranks a large memory by every query word again when rescoring, though its candidates came from the rarest words only', async () => {
    // 'trip' is in two turns, 'paris' in three: a budget of 2 postings queries 'trip' alone, so
    // both candidates tie on it (pk breaks the tie); the whole question puts t1 first only when rescored.
    const turns = ['my trip', 'paris trip', 'paris', 'paris again', 'nothing', 'other', 'more', 'stuff'].map((content) => ({
      speaker: 'Ann',
      content,
      at: MAY_8,
    }));
    const large = (rescore: number, rescoreAbove = 0) => ({
      config: {
        large: {
          above: 0,
          context: 0,
          contextHits: 10,
          postings: 2,
          prf: false,
          rescore,
          rescoreVector: 0,
          rescoreAbove,
          rescoreContext: 1,
        },
        weights: { lexical: 1, prf: 0, vector: 0 },
      },
    });
    const { retriever: on } = await setUp(turns, large(200));
    const ranked = ids(await on.retrieve('trip paris', { rerank: false }));
    expect(ranked[0]).toBe('t1');
    expect(ranked).toEqual(['t1', 't0']);
    const { retriever: off } = await setUp(turns, large(0));
    expect(ids(await off.retrieve('trip paris', { rerank: false }))[0]).toBe('t0');
    // Rescoring waits for a memory of more than `rescoreAbove` turns: 8 turns is not, 7 is.
    const { retriever: small } = await setUp(turns, large(200, 8));
    expect(ids(await small.retrieve('trip paris', { rerank: false }))[0]).toBe('t0');
    const { retriever: big } = await setUp(turns, large(200, 7));
    expect(ids(await big.retrieve('trip paris', { rerank: false }))[0]).toBe('t1');
  });

  it("lends a rescored hit's neighbours the share rescoreContext sets", async () => {
    // t1 holds no question word: only its neighbour t0's hit lends it a score (context), which
    // rescoreContext scales once the hits were rescored; at 0 it lends nothing.
    const turns = ['did you finish the marathon', 'yes last friday', 'nothing', 'other', 'more', 'stuff'].map((content) => ({
      speaker: 'Ann',
      content,
      at: MAY_8,
    }));
    const large = (rescoreContext: number) => ({
      config: {
        large: {
          above: 0,
          context: 1,
          contextHits: 10,
          postings: 100,
          prf: false,
          rescore: 200,
          rescoreVector: 0,
          rescoreAbove: 0,
          rescoreContext,
        },
        weights: { lexical: 1, prf: 0, vector: 0 },
      },
    });
    const { retriever: lends } = await setUp(turns, large(0.3));
    const lent = ids(await lends.retrieve('marathon finish', { rerank: false }));
    expect(lent[0]).toBe('t0');
    expect(lent).toContain('t1');
    const { retriever: none } = await setUp(turns, large(0));
    expect(ids(await none.retrieve('marathon finish', { rerank: false }))).toEqual(['t0']);
  });
});

/** One chat between a user and an assistant, turns t0, t1, … a millisecond apart, and a source over it. */
async function chat(turns: readonly { role: 'user' | 'assistant'; content: string }[]) {
  const store = await openNodeStore();
  await store.createConversation({ id: 'c', title: 'chat' });
  for (const [i, t] of turns.entries()) {
    await store.appendTurn({
      id: `t${i}`,
      conversationId: 'c',
      role: t.role,
      speaker: t.role === 'user' ? 'User' : 'Assistant',
      content: t.content,
      occurredAt: MAY_8 + i,
      metadata: {},
    });
  }
  return { store, source: new SqlRetrievalSource(store.db) };
}

describe('requests for advice', () => {
  it("rank the user's own stated preference above the assistant's old suggestions (and did not before the knobs)", async () => {
    const { store, source } = await chat([
      { role: 'assistant', content: 'Here are some hotel options for your trip: the Grand and the Palm, both near the beach.' },
      { role: 'user', content: 'Besides great views, I also like hotels with a rooftop pool.' },
      { role: 'user', content: 'We booked the flights for the trip last month.' },
    ]);
    const question = 'Can you recommend a hotel for my trip to Miami?';
    const now = await new Retriever({ source }).retrieve(question, { now: SEP_1 });
    expect(ids(now)[0]).toBe('t1');
    expect(now.turns[0]!.reasons).toEqual(expect.arrayContaining(['role', 'preference']));
    const before = await new Retriever({ source, config: withConfig({ boosts: { adviceAboutUser: false, preference: 0 } }) }).retrieve(
      question,
      { now: SEP_1 },
    );
    expect(ids(before)[0]).toBe('t0');
    await store.db.close();
  });
});

describe('standing instructions', () => {
  it("rank the user's standing instruction second for a request it covers, which it shares one word with (and unboosted without the knobs)", async () => {
    const { store, source } = await chat([
      { role: 'user', content: 'Always format code snippets with syntax highlighting when I ask about implementation details.' },
      { role: 'assistant', content: 'Understood, every code snippet will come with syntax highlighting.' },
      {
        role: 'user',
        content: 'The login feature should use the session table, and the login page needs a feature flag for login by email.',
      },
      { role: 'assistant', content: 'A login feature usually needs a login form, a login route and a session.' },
    ]);
    const question = 'Could you show me the implementation of a login feature?';
    const now = await new Retriever({ source }).retrieve(question, { now: SEP_1 });
    // Second: the best other match keeps the first place (boosts.instructionSecond).
    expect(ids(now)[1]).toBe('t0');
    expect(now.turns[1]!.reasons).toEqual(expect.arrayContaining(['preference', 'instruction']));
    const before = await new Retriever({
      source,
      config: withConfig({
        boosts: { requests: false, instructions: false, instruction: 0, instructionSecond: false },
        rules: { weight: 0 },
      }),
    }).retrieve(question, { now: SEP_1 });
    const t0 = before.turns.find((t) => t.message.id === 't0');
    expect(t0?.reasons ?? []).not.toContain('instruction');
    expect(t0?.reasons ?? []).not.toContain('preference');
    await store.db.close();
  });
});

describe('BM25F candidates (fielded)', () => {
  it("give a turn with its neighbours, in the turn index's window, and each text once (source)", async () => {
    const at = [MAY_8, MAY_8, MAY_8, MAY_8, SEP_1];
    const { source, store } = await setUp(
      ['one', 'two', 'three', 'four', 'five'].map((content, i) => ({
        speaker: 'Ann',
        content,
        at: at[i]!,
        ...(i === 2 ? { caption: 'a cat' } : {}),
      })),
    );
    const { texts, windows } = await source.contextWindows(['t3', 't0', 't4']);
    const by = Object.fromEntries(windows.map((w) => [w.id, w]));
    // Two turns before (nearest first) and one after, same conversation, within the time gap.
    expect(by.t3).toEqual({ id: 't3', before: ['t2', 't1'], after: [], timeline: 'May 2023' });
    expect(by.t0).toMatchObject({ before: [], after: ['t1'] });
    expect(by.t4).toMatchObject({ before: [], after: [], timeline: 'September 2023' });
    expect(texts.get('t2')).toBe('three a cat');
    expect(new Set(texts.keys())).toEqual(new Set(['t0', 't1', 't2', 't3', 't4']));
    await store.db.close();
  });

  it("rank a short turn beside long replies by its own length when fielded is on (FTS5's row length buries it)", async () => {
    const long = (topic: string) => `${topic} ${'and here is a very long explanation of many other things '.repeat(30)}`;
    const turns = [
      { speaker: 'Ann', content: long('setup'), at: MAY_8 },
      { speaker: 'Ann', content: 'the sprint deadline is March 29', at: MAY_8 },
      { speaker: 'Ann', content: long('reply'), at: MAY_8 },
      // Longer than t1 itself, but alone in its session (a short row).
      { speaker: 'Ann', content: 'we talked about the sprint and the deadline of the project plan last week', at: SEP_1 },
    ];
    // Ranks alone decide: no session aggregation (it lends t1 its neighbours' scores).
    const { retriever: plain, store } = await setUp(turns, {
      config: { weights: { lexical: 1, prf: 0, vector: 0, own: 0 }, boosts: { session: 0 }, fielded: { pool: 0 } },
    });
    const { retriever: fielded, store: store2 } = await setUp(turns, {
      config: {
        weights: { lexical: 1, prf: 0, vector: 0, own: 0 },
        boosts: { session: 0 },
        fielded: { pool: 200, weight: 0, mode: 'bm25f' },
      },
    });
    const q = 'sprint deadline';
    expect(ids(await fielded.retrieve(q, { rerank: false }))[0]).toBe('t1');
    expect(ids(await plain.retrieve(q, { rerank: false }))[0]).toBe('t3');
    await store.db.close();
    await store2.db.close();
  });
});

describe('lexical query terms', () => {
  /** A source that records the terms of each lexical query and finds nothing. */
  const recording = () => {
    const queries: string[][] = [];
    const fields: { before: number; after: number }[] = [];
    const source = {
      lexical: (terms: readonly string[], o: { fields: { before: number; after: number } }) => {
        queries.push([...terms]);
        fields.push({ before: o.fields.before, after: o.fields.after });
        return Promise.resolve([]);
      },
      vector: () => Promise.resolve([]),
      turns: () => Promise.resolve([]),
      facts: () => Promise.resolve([]),
      neighbours: () => Promise.resolve([]),
      size: () => Promise.resolve(100),
      turnIndexCurrent: () => Promise.resolve(true),
      ownWords: () => Promise.resolve([]),
      contextWindows: () => Promise.resolve({ texts: new Map(), windows: [] }),
      contextLinks: () => Promise.resolve([]),
      termStats: () => Promise.resolve({ docs: 0, avgLength: 1, df: new Map() }),
    };
    return { queries, fields, source };
  };

  it("weigh the neighbour context less when the question is about the user's own words", async () => {
    const r = recording();
    const config = withConfig({ fields: { before: 0.5, after: 0.5 }, userFields: { before: 0.2, after: 0.1 } });
    await new Retriever({ source: r.source, config }).retrieve('Where did I buy my tennis racket?');
    await new Retriever({ source: r.source, config }).retrieve('Where did Caroline buy her tennis racket?');
    expect(r.fields[0]).toEqual({ before: 0.2, after: 0.1 });
    expect(r.fields.at(-1)).toEqual({ before: 0.5, after: 0.5 });
  });

  it('leave out the words of a relative date the question names, but keep absolute dates and everything when off', async () => {
    const now = Date.UTC(2023, 2, 28);
    const on = recording();
    await new Retriever({ source: on.source, config: withConfig({ dropDateWords: true }) }).retrieve(
      'What business milestone did I mention four weeks ago?',
      { now },
    );
    expect(on.queries[0]).toEqual(['business', 'milestone']);
    await new Retriever({ source: on.source, config: withConfig({ dropDateWords: true }) }).retrieve(
      'When did Melanie go camping in June?',
      { now },
    );
    expect(on.queries[1]).toEqual(['melanie', 'go', 'camping', 'june']);
    const off = recording();
    await new Retriever({ source: off.source, config: withConfig({ dropDateWords: false }) }).retrieve(
      'What business milestone did I mention four weeks ago?',
      { now },
    );
    expect(off.queries[0]).toEqual(['business', 'milestone', 'four', 'weeks', 'ago']);
  });
});

describe('Retriever: standing instructions', () => {
  it("finds the user's standing instruction nearest the question in meaning, though it shares none of its words", async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'chat' });
    const turns = [
      'Always mention the breed when I ask about my pet.',
      'I walked to the beach and swam in the sea.',
      'My bike has a flat tyre again.',
      'We ate too much cake on Sunday.',
      'I never liked running on the treadmill.',
      'What should I feed my puppy tonight? It is eight weeks old.',
    ];
    for (const [i, content] of turns.entries()) {
      await store.appendTurn({
        id: `t${i}`,
        conversationId: 'c',
        role: 'user',
        speaker: 'User',
        content,
        occurredAt: MAY_8 + i * 60_000,
        metadata: {},
      });
    }
    await store.putVectors(
      'message',
      fakeEmbedder.id,
      await Promise.all(turns.map(async (t, i) => ({ itemId: `t${i}`, vector: (await fakeEmbedder.embed([t]))[0]! }))),
    );
    // No vector list: only the rules list can reach the instruction.
    const source = new SqlRetrievalSource(store.db, { vectors: () => Promise.resolve([]) });
    const ask = (rules: number) =>
      new Retriever({
        source,
        embedder: fakeEmbedder,
        config: withConfig({
          rules: { weight: rules, scan: 50, top: 2 },
          boosts: { instruction: 1, instructionTop: 2, instructionSecond: true },
        }),
      }).retrieve('How much food does a puppy need?', { now: MAY_8 + DAY });
    expect(ids(await ask(0))).not.toContain('t0');
    const found = await ask(1);
    expect(ids(found)).toContain('t0');
    const rule = found.turns.find((t) => t.message.id === 't0')!;
    expect(rule.reasons).toContain('rules');
    expect(rule.reasons).toContain('instruction');
    // "I never liked running…" holds a trigger word but is no instruction: never in the rules list.
    expect(found.turns.find((t) => t.message.id === 't4')?.reasons ?? []).not.toContain('rules');
  });
});

describe('Retriever: a large memory fuses with its own list weights', () => {
  it("uses large.lexical, not weights.lexical, on the large path (the small memory's weights were chosen beside the relative-BM25 list)", async () => {
    const turns: Turn[] = [
      { speaker: 'Ann', content: 'The kiln reached 1200 degrees today.', at: MAY_8 },
      { speaker: 'Ann', content: 'We bought bread on the way home.', at: MAY_8 },
    ];
    const run = async (large: { lexical: number }) => {
      const { retriever, store } = await setUp(turns, { config: { weights: { lexical: 0, prf: 0 }, large: { above: 0, ...large } } });
      const r = await retriever.retrieve('How hot was the kiln?', { now: SEP_1 });
      await store.db.close();
      return ids(r);
    };
    expect(await run({ lexical: 1 })).toContain('t0');
    expect(await run({ lexical: 0 })).not.toContain('t0');
  });

  it('asks for the vector list on the large path when large.vector is above 0, though weights.vector is 0', async () => {
    const turns: Turn[] = [
      { speaker: 'Ann', content: 'We took the puppy along the shore.', at: MAY_8 },
      { speaker: 'Ann', content: 'We bought bread on the way home.', at: MAY_8 },
    ];
    const run = async (vector: number) => {
      const { retriever, store } = await setUp(turns, {
        embedder: true,
        config: {
          weights: { lexical: 0, prf: 0, vector: 0 },
          rules: { weight: 0 },
          large: { above: 0, lexical: 0, vector, rescoreVector: 0 },
        },
      });
      // Shares no word with t0, only its meaning (dog ~ puppy).
      const r = await retriever.retrieve('Where did I walk the dog?', { now: SEP_1 });
      await store.db.close();
      return ids(r);
    };
    expect(await run(1)).toContain('t0');
    expect(await run(0)).not.toContain('t0');
  });
});
