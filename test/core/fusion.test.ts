import { describe, expect, it } from 'vitest';
import {
  applyBoosts,
  diversify,
  reciprocalRankFusion,
  RETRIEVAL_CONFIG,
  withConfig,
  type BoostFacts,
  type RetrievalConfig,
} from '../../src/core/recall/fusion';

const NO_BOOSTS = {
  speaker: 0,
  dateRange: 0,
  dateRangeSlackMs: 0,
  timeExpression: 0,
  session: 0,
  sessionTop: 0,
  sessionGapMs: 0,
  roleUser: 0,
  roleAssistant: 0,
  adviceAboutUser: false,
  preference: 0,
  requests: false,
  instructions: false,
  instruction: 0,
  instructionTop: 0,
  instructionSecond: false,
  recency: 0,
};

describe('reciprocalRankFusion', () => {
  it('sums w / (k + rank) over lists', () => {
    const fused = reciprocalRankFusion(
      [
        { name: 'lexical', weight: 1, ids: ['a', 'b', 'c'] },
        { name: 'vector', weight: 0.5, ids: ['c', 'a'] },
      ],
      60,
    );
    expect(fused.map((f) => f.id)).toEqual(['a', 'c', 'b']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 0.5 / 62, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 63 + 0.5 / 61, 12);
    expect(fused[0]!.ranks).toEqual({ lexical: 1, vector: 2 });
  });

  it('lets a heavier list decide, ignores zero-weight lists and duplicate ids', () => {
    const lists = [
      { name: 'lexical', weight: 1, ids: ['a', 'b'] },
      { name: 'vector', weight: 3, ids: ['b', 'b', 'a'] },
      { name: 'off', weight: 0, ids: ['z'] },
    ];
    const fused = reciprocalRankFusion(lists, 60);
    expect(fused.map((f) => f.id)).toEqual(['b', 'a']);
    expect(fused.find((f) => f.id === 'b')!.ranks).toEqual({ lexical: 2, vector: 1 });
  });

  it('breaks score ties by best rank, then id', () => {
    const fused = reciprocalRankFusion(
      [
        { name: 'x', weight: 1, ids: ['q', 'p'] },
        { name: 'y', weight: 1, ids: ['p', 'q'] },
      ],
      60,
    );
    expect(fused.map((f) => f.id)).toEqual(['p', 'q']);
  });
});

describe('applyBoosts', () => {
  const base = (id: string, score: number) => ({ id, score, ranks: { lexical: 1 } });
  const fact = (over: Partial<BoostFacts> = {}): BoostFacts => ({
    conversationId: 'c',
    occurredAt: 0,
    speaker: 'Ann',
    hasTimeExpression: false,
    ...over,
  });

  it('boosts turns of the named speaker', () => {
    const facts = new Map([
      ['a', fact({ speaker: 'Bob' })],
      ['b', fact({ speaker: 'Ann' })],
    ]);
    const out = applyBoosts(
      [base('a', 1), base('b', 0.95)],
      facts,
      { speakers: ['ann'], asksForTime: false, ranges: [] },
      { ...NO_BOOSTS, speaker: 0.1 },
    );
    expect(out.map((x) => x.id)).toEqual(['b', 'a']);
    expect(out[0]!.boosts).toEqual({ speaker: 0.1 });
    expect(out[0]!.score).toBeCloseTo(0.95 * 1.1, 12);
  });

  it("boosts the user's turns for first-person questions and the assistant's for questions about what it said", () => {
    const facts = new Map([
      ['u', fact({ role: 'user' })],
      ['a', fact({ role: 'assistant' })],
      ['x', fact()],
    ]);
    const fused = [base('x', 1), base('a', 0.95), base('u', 0.9)];
    const cfg = { ...NO_BOOSTS, roleUser: 0.2, roleAssistant: 0.1 };
    const mine = applyBoosts(fused, facts, { speakers: [], asksForTime: false, ranges: [], about: 'user' }, cfg);
    expect(mine.map((x) => x.id)).toEqual(['u', 'x', 'a']);
    expect(mine[0]!.boosts).toEqual({ role: 0.2 });
    const yours = applyBoosts(fused, facts, { speakers: [], asksForTime: false, ranges: [], about: 'assistant' }, cfg);
    expect(yours.map((x) => x.id)).toEqual(['a', 'x', 'u']);
    const neither = applyBoosts(fused, facts, { speakers: [], asksForTime: false, ranges: [], about: null }, cfg);
    expect(neither.map((x) => x.id)).toEqual(['x', 'a', 'u']);
  });

  it('boosts turns inside a named date range (with slack) and time expressions for "when" questions', () => {
    const day = 86_400_000;
    const facts = new Map([
      ['in', fact({ occurredAt: 10 * day })],
      ['near', fact({ occurredAt: 12 * day })],
      ['out', fact({ occurredAt: 40 * day })],
    ]);
    const ranges = [{ start: 9 * day, end: 11 * day }];
    const out = applyBoosts(
      [base('out', 1), base('near', 0.9), base('in', 0.8)],
      facts,
      { speakers: [], asksForTime: false, ranges },
      { ...NO_BOOSTS, dateRange: 0.5, dateRangeSlackMs: 2 * day },
    );
    expect(out.map((x) => x.id)).toEqual(['near', 'in', 'out']);

    const timed = new Map([
      ['plain', fact()],
      ['dated', fact({ hasTimeExpression: true })],
    ]);
    const asks = applyBoosts(
      [base('plain', 1), base('dated', 0.95)],
      timed,
      { speakers: [], asksForTime: true, ranges: [] },
      { ...NO_BOOSTS, timeExpression: 0.1 },
    );
    expect(asks.map((x) => x.id)).toEqual(['dated', 'plain']);
    const notAsked = applyBoosts(
      [base('plain', 1), base('dated', 0.95)],
      timed,
      { speakers: [], asksForTime: false, ranges: [] },
      { ...NO_BOOSTS, timeExpression: 0.1 },
    );
    expect(notAsked.map((x) => x.id)).toEqual(['plain', 'dated']);
  });

  it('lifts a turn whose session neighbours score high, not one in a lone session', () => {
    const hour = 3_600_000;
    const facts = new Map([
      ['lone', fact({ occurredAt: 100 * hour })],
      ['s1', fact({ occurredAt: 0 })],
      ['s2', fact({ occurredAt: 0 })],
      ['s3', fact({ occurredAt: hour })],
      ['other-conv', fact({ conversationId: 'd', occurredAt: 0 })],
    ]);
    const fused = [base('lone', 1), base('s1', 0.9), base('s2', 0.9), base('s3', 0.5), base('other-conv', 0.95)];
    const out = applyBoosts(
      fused,
      facts,
      { speakers: [], asksForTime: false, ranges: [] },
      { ...NO_BOOSTS, session: 0.1, sessionTop: 2, sessionGapMs: 2 * hour },
    );
    const byId = new Map(out.map((x) => [x.id, x]));
    expect(byId.get('lone')!.score).toBe(1);
    expect(byId.get('other-conv')!.score).toBe(0.95);
    expect(byId.get('s1')!.score).toBeCloseTo(0.9 + 0.1 * (0.9 + 0.5), 12);
    expect(byId.get('s3')!.boosts.session).toBeCloseTo(0.1 * 1.8, 12);
    expect(out[0]!.id).toBe('s1');
    expect(out.at(-1)!.id).toBe('s3');
  });

  it('drops candidates whose turn is gone', () => {
    const out = applyBoosts([base('gone', 1)], new Map(), { speakers: [], asksForTime: false, ranges: [] }, RETRIEVAL_CONFIG.boosts);
    expect(out).toEqual([]);
  });
});

describe('config', () => {
  it('merges partial overrides over the defaults without touching them', () => {
    const c = withConfig({ weights: { vector: 0.9 } });
    expect(c.weights).toEqual({ ...RETRIEVAL_CONFIG.weights, vector: 0.9 });
    expect(RETRIEVAL_CONFIG.weights.vector).not.toBe(0.9);
    expect(c.rrfK).toBe(60);
  });
});

describe('advice, preference and recency boosts', () => {
  const base = (id: string, score: number) => ({ id, score, ranks: { lexical: 1 } });
  const fact = (over: Partial<BoostFacts> = {}): BoostFacts => ({
    conversationId: 'c',
    occurredAt: 0,
    speaker: 'User',
    hasTimeExpression: false,
    ...over,
  });

  it('treats a request for advice as about the user, and lifts the turns stating a preference', () => {
    const facts = new Map([
      ['a', fact({ role: 'assistant' })],
      ['u', fact({ role: 'user' })],
      ['p', fact({ role: 'user', statesPreference: true })],
    ]);
    const fused = [base('a', 1), base('u', 0.9), base('p', 0.8)];
    const query = { speakers: [], asksForTime: false, ranges: [], about: 'assistant' as const, asksForAdvice: true };
    expect(applyBoosts(fused, facts, query, { ...NO_BOOSTS, roleAssistant: 0.3, roleUser: 0.3 }).map((x) => x.id)).toEqual(['a', 'u', 'p']);
    const advice = applyBoosts(fused, facts, query, {
      ...NO_BOOSTS,
      roleAssistant: 0.3,
      roleUser: 0.3,
      adviceAboutUser: true,
      preference: 0.2,
    });
    expect(advice.map((x) => x.id)).toEqual(['p', 'u', 'a']);
    expect(advice[0]!.boosts).toEqual({ role: 0.3, preference: 0.2 });
  });

  it('prefers newer turns, by time rank among the candidates, only when the question asks for the current state', () => {
    const facts = new Map([
      ['old', fact({ occurredAt: 0 })],
      ['mid', fact({ occurredAt: 50 })],
      ['new', fact({ occurredAt: 100 })],
    ]);
    const fused = [base('old', 1), base('mid', 0.95), base('new', 0.9)];
    const now = applyBoosts(
      fused,
      facts,
      { speakers: [], asksForTime: false, ranges: [], asksForCurrent: true },
      { ...NO_BOOSTS, recency: 0.2 },
    );
    expect(now.map((x) => x.id)).toEqual(['new', 'mid', 'old']);
    expect(now[0]!.boosts.recency).toBeCloseTo(0.2, 12);
    const then = applyBoosts(
      fused,
      facts,
      { speakers: [], asksForTime: false, ranges: [], asksForCurrent: false },
      { ...NO_BOOSTS, recency: 0.2 },
    );
    expect(then.map((x) => x.id)).toEqual(['old', 'mid', 'new']);
  });
});

describe('applyBoosts: standing instructions', () => {
  const base = (id: string, score: number) => ({ id, score, ranks: { lexical: 1 } });
  const fact = (over: Partial<BoostFacts> = {}): BoostFacts => ({
    conversationId: 'c',
    occurredAt: 0,
    speaker: 'User',
    role: 'user',
    hasTimeExpression: false,
    ...over,
  });
  const facts = new Map([
    ['best', fact()],
    ['mid', fact({ role: 'assistant' })],
    ['rule1', fact({ statesInstruction: true })],
    ['rule2', fact({ statesInstruction: true })],
    ['said', fact({ role: 'assistant', statesInstruction: true })],
  ]);
  const fused = [base('best', 1), base('mid', 0.8), base('said', 0.7), base('rule1', 0.6), base('rule2', 0.5)];
  const query = { speakers: [], asksForTime: false, ranges: [] };

  it("lifts the user's standing instructions whatever the question, never the assistant's words", () => {
    const out = applyBoosts(fused, facts, query, { ...NO_BOOSTS, instruction: 1 });
    expect(out.map((x) => x.id)).toEqual(['rule1', 'best', 'rule2', 'mid', 'said']);
    expect(out[0]!.boosts).toEqual({ instruction: 1 });
    expect(applyBoosts(fused, facts, query, NO_BOOSTS).map((x) => x.id)).toEqual(fused.map((x) => x.id));
  });

  it('lifts only the best instructionTop of them, and with instructionSecond ranks none above the best other match', () => {
    const top1 = applyBoosts(fused, facts, query, { ...NO_BOOSTS, instruction: 1, instructionTop: 1 });
    expect(top1.map((x) => x.id)).toEqual(['rule1', 'best', 'mid', 'said', 'rule2']);
    const second = applyBoosts(fused, facts, query, { ...NO_BOOSTS, instruction: 1, instructionSecond: true });
    expect(second.map((x) => x.id)).toEqual(['best', 'rule1', 'rule2', 'mid', 'said']);
    // Even an instruction that ranks first unboosted yields the first place to the best other match.
    const own = applyBoosts([base('rule1', 1.2), base('best', 1), base('mid', 0.8)], facts, query, {
      ...NO_BOOSTS,
      instructionSecond: true,
    });
    expect(own.map((x) => x.id)).toEqual(['best', 'rule1', 'mid']);
  });
});

describe('diversify', () => {
  const item = (id: string, score: number) => ({ id, score, ranks: { lexical: 1 }, boosts: {} });
  const fact = (conversationId: string, occurredAt = 0): BoostFacts => ({
    conversationId,
    occurredAt,
    speaker: 'User',
    hasTimeExpression: false,
  });
  const cfg = (diversity: Partial<RetrievalConfig['diversity']>) =>
    withConfig({
      diversity: { perSession: 1, penalty: 0.5, depth: 10, byConversation: true, acrossOnly: false, flat: false, ...diversity },
    });

  it('lets one turn per conversation through before the second of any, when the penalty outweighs the gap', () => {
    const facts = new Map([
      ['a1', fact('A')],
      ['a2', fact('A')],
      ['a3', fact('A')],
      ['b1', fact('B')],
      ['c1', fact('C')],
    ]);
    const ranked = [item('a1', 1), item('a2', 0.9), item('a3', 0.8), item('b1', 0.6), item('c1', 0.3)];
    const out = diversify(ranked, facts, cfg({}));
    expect(out.map((x) => x.id)).toEqual(['a1', 'b1', 'a2', 'c1', 'a3']);
    expect(out[2]!.boosts).toEqual({ diversity: 0.5 });
    expect(diversify(ranked, facts, cfg({ penalty: 0 })).map((x) => x.id)).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
  });

  it('with acrossOnly, spreads only the top of a question about many occasions over time', () => {
    const facts = new Map([
      ['a1', fact('A')],
      ['a2', fact('A')],
      ['b1', fact('B')],
    ]);
    const ranked = [item('a1', 1), item('a2', 0.9), item('b1', 0.6)];
    expect(diversify(ranked, facts, cfg({ acrossOnly: true })).map((x) => x.id)).toEqual(['a1', 'a2', 'b1']);
    expect(diversify(ranked, facts, cfg({ acrossOnly: true }), true).map((x) => x.id)).toEqual(['a1', 'b1', 'a2']);
  });

  it('changes nothing when every candidate is in one conversation and sessions are whole conversations', () => {
    const facts = new Map([
      ['x', fact('A', 0)],
      ['y', fact('A', 10 * 86_400_000)],
      ['z', fact('A', 0)],
    ]);
    const ranked = [item('x', 1), item('y', 0.9), item('z', 0.8)];
    expect(diversify(ranked, facts, cfg({})).map((x) => x.id)).toEqual(['x', 'y', 'z']);
    // By time runs instead, the second turn of the first day's session yields to the other day's.
    expect(diversify([item('x', 1), item('z', 0.9), item('y', 0.8)], facts, cfg({ byConversation: false })).map((x) => x.id)).toEqual([
      'x',
      'y',
      'z',
    ]);
  });
});
