import { describe, expect, it } from 'vitest';
import {
  charsOverFour,
  composeContext,
  gatherContext,
  mergeParts,
  type AnswerSource,
  type ContextEpisode,
  type ContextFact,
  type ContextParts,
} from '../../src/core/recall/answerContext';
import type { ForesightItem, ProfileItem } from '../../src/core/synthesis/knowledge';
import type { Message } from '../../src/core/base/types';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlKnowledgeSource } from '../../src/storage/knowledgeSource';
import { answerSourceOf } from '../../src/core/recall/answerSource';

const DAY = 86_400_000;
const NOW = Date.UTC(2023, 5, 1, 12, 0);

function turn(id: string, content: string, at: number, speaker = 'Ana', seq = 1): Message {
  return { id, conversationId: 'c', seq, role: 'user', speaker, content, occurredAt: at, ingestedAt: at, tokenCount: 0, metadata: {} };
}

function profile(id: string, key: string, value: string): ProfileItem {
  return {
    id,
    kind: 'explicit',
    key,
    value,
    confidence: 0.8,
    evidence: [],
    status: 'active',
    editedByUser: false,
    createdAt: 0,
    updatedAt: 0,
  };
}

function foresight(
  id: string,
  content: string,
  startAt: number | null,
  endAt: number | null,
  status: ForesightItem['status'] = 'active',
): ForesightItem {
  return { id, memcellId: null, content, startAt, endAt, evidence: [], status, source: 'llm' };
}

function episode(id: string, title: string, narrative: string, at: number, sceneId: string | null = null): ContextEpisode {
  return { id, conversationId: 'c', sceneId, title, narrative, startAt: at, endAt: at + 600_000 };
}

const EMPTY: ContextParts = { profile: [], foresight: [], episodes: [], facts: [], turns: [] };

describe('composeContext', () => {
  it('puts sections in priority order, numbers items [1]..[n] in print order and maps each to a citation', () => {
    const parts: ContextParts = {
      profile: [profile('p1', 'home city', 'Lisbon')],
      foresight: [foresight('fs1', 'Ana will run the Boston marathon', NOW + 10 * DAY, NOW + 11 * DAY)],
      episodes: [episode('e1', 'Marathon training', 'Ana trains for a marathon with Ben.', NOW - 20 * DAY)],
      facts: [
        {
          id: 'f1',
          memcellId: 'e1',
          speaker: 'Ana',
          content: 'Ana runs 40 km a week.',
          occurredAt: NOW - 20 * DAY,
          validFrom: null,
          validTo: null,
          current: true,
        },
      ],
      // Ranked best first, printed in time order.
      turns: [
        turn('t2', 'My knee hurts after the long run.', NOW - 2 * DAY, 'Ana', 2),
        turn('t1', 'I signed up for Boston!', NOW - 30 * DAY, 'Ana', 1),
      ],
    };
    const ctx = composeContext(parts, { budgetTokens: 10_000, now: NOW });
    const order = ['Profile', 'Plans', 'Episodes', 'Facts', 'Conversation excerpts'].map((h) => ctx.text.indexOf(`## ${h}`));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    expect(ctx.citations.map((c) => [c.id, c.kind, c.ref])).toEqual([
      [1, 'profile', 'p1'],
      [2, 'foresight', 'fs1'],
      [3, 'episode', 'e1'],
      [4, 'fact', 'f1'],
      [5, 'turn', 't1'],
      [6, 'turn', 't2'],
    ]);
    const markers = [...ctx.text.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1]));
    expect(markers).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ctx.text).toMatch(/\[1\] home city: Lisbon/);
    expect(ctx.text).toMatch(/\[5\] .*2023.* · Ana: I signed up for Boston!/);
    expect(ctx.text).toContain('(upcoming)');
    expect(ctx.dropped).toBe(0);
    expect(ctx.tokens).toBe(charsOverFour(ctx.text));
  });

  it('never includes expired or dismissed foresight, and keeps current and open-ended items', () => {
    const ctx = composeContext(
      {
        ...EMPTY,
        foresight: [
          foresight('old', 'Ana is on holiday in Rome', NOW - 10 * DAY, NOW - DAY),
          foresight('gone', 'Ana has a dentist appointment', NOW - DAY, NOW + DAY, 'dismissed'),
          foresight('stale', 'Ana prepares for an exam', NOW - 5 * DAY, NOW + DAY, 'expired'),
          foresight('now', 'Ana is recovering from a knee injury', NOW - 3 * DAY, NOW + 7 * DAY),
          foresight('open', 'Ana wants to learn Portuguese', null, null),
        ],
      },
      { budgetTokens: 10_000, now: NOW },
    );
    expect(ctx.citations.map((c) => c.ref).sort()).toEqual(['now', 'open']);
    expect(ctx.text).not.toContain('Rome');
    expect(ctx.text).not.toContain('dentist');
    expect(ctx.text).not.toContain('exam');
  });

  it('cuts a long turn around the question words, not from its head', () => {
    const filler = (tag: string) => Array.from({ length: 120 }, (_, i) => `${tag}${i}`).join(' ');
    const long = `${filler('intro')} The Speyer tourism board number is 06232 14230. ${filler('outro')}`;
    const parts: ContextParts = { ...EMPTY, turns: [turn('t0', long, NOW - DAY)] };
    const question = "What's the phone number of the Speyer tourism board?";
    const focused = composeContext(parts, { budgetTokens: 2_500, now: NOW, query: question, focus: true, maxTurnChars: 300 });
    expect(focused.text).toContain('06232 14230');
    expect(focused.text).not.toContain('intro0 ');
    const head = composeContext(parts, { budgetTokens: 2_500, now: NOW, query: question, focus: false, maxTurnChars: 300 });
    expect(head.text).toContain('intro0 ');
    expect(head.text).not.toContain('06232');
  });

  it('respects the token budget, dropping lower-priority items first and keeping the profile', () => {
    const turns = Array.from({ length: 40 }, (_, i) =>
      turn(`t${i}`, `Turn ${i}: ${'words about running and training '.repeat(6)}`, NOW - i * DAY, 'Ana', i),
    );
    const parts: ContextParts = { ...EMPTY, profile: [profile('p1', 'name', 'Ana'), profile('p2', 'sport', 'running')], turns };
    for (const budget of [60, 150, 400, 1000]) {
      const ctx = composeContext(parts, { budgetTokens: budget, now: NOW });
      expect(ctx.tokens).toBeLessThanOrEqual(budget);
      expect(ctx.citations.filter((c) => c.kind === 'profile')).toHaveLength(2);
      expect(ctx.dropped).toBe(40 - ctx.citations.filter((c) => c.kind === 'turn').length);
      // No more turns fit than the budget holds of the shortest one.
      const shortest = Math.min(...turns.map((t) => charsOverFour(t.content)));
      expect(ctx.dropped).toBeGreaterThanOrEqual(40 - Math.floor(budget / shortest));
      // The best-ranked turns survive (t0 is ranked first).
      if (ctx.citations.some((c) => c.kind === 'turn')) expect(ctx.citations.some((c) => c.ref === 't0')).toBe(true);
    }
    const small = composeContext(parts, { budgetTokens: 150, now: NOW });
    const large = composeContext(parts, { budgetTokens: 1000, now: NOW });
    expect(large.citations.length).toBeGreaterThan(small.citations.length);
    // A custom counter is honoured: counting every character as a token leaves far less room.
    const strict = composeContext(parts, { budgetTokens: 1000, now: NOW, countTokens: (t) => t.length });
    expect(strict.tokens).toBeLessThanOrEqual(1000);
    expect(strict.citations.length).toBeLessThan(large.citations.length);
  });

  it('gives an empty context for empty parts and for a zero budget', () => {
    expect(composeContext(EMPTY, { budgetTokens: 500, now: NOW })).toEqual({ text: '', citations: [], tokens: 0, dropped: 0 });
    const ctx = composeContext({ ...EMPTY, profile: [profile('p', 'k', 'v')] }, { budgetTokens: 0, now: NOW });
    expect(ctx.citations).toEqual([]);
    expect(ctx.dropped).toBe(1);
  });
});

/** An in-memory AnswerSource for the gathering logic. */
function fakeSource(data: {
  turns?: Message[];
  facts?: ContextFact[];
  episodes?: ContextEpisode[];
  all?: ContextEpisode[];
  turnCells?: Record<string, string>;
}): AnswerSource & { queries: string[] } {
  const all = data.all ?? data.episodes ?? [];
  const queries: string[] = [];
  return {
    queries,
    turns: async (q) => {
      queries.push(q);
      return data.turns ?? [];
    },
    facts: async () => data.facts ?? [],
    episodes: async () => data.episodes ?? [],
    episodesByIds: async (ids) => all.filter((e) => ids.includes(e.id)),
    episodesOfTurns: async (ids) => new Map(Object.entries(data.turnCells ?? {}).filter(([t]) => ids.includes(t))),
    sceneMembers: async (scenes, n) => scenes.flatMap((s) => all.filter((e) => e.sceneId === s).slice(0, n)),
    profile: async () => [profile('p1', 'name', 'Ana')],
    foresight: async () => [foresight('old', 'expired', NOW - 9 * DAY, NOW - DAY), foresight('ok', 'current', NOW - DAY, NOW + DAY)],
    origins: async () => ({ conversations: new Map(), cells: new Map() }),
  };
}

describe('gatherContext', () => {
  it('ranks episodes reached several ways first and pulls in the other members of the top scene', async () => {
    const all = [
      episode('e1', 'Boston marathon', 'Ana ran Boston.', NOW - 30 * DAY, 's1'),
      episode('e2', 'Knee injury', 'Ana hurt her knee.', NOW - 20 * DAY, 's1'),
      episode('e3', 'Physio', 'Ana sees a physiotherapist weekly.', NOW - 10 * DAY, 's1'),
      episode('e4', 'Guitar', 'Ben bought a guitar.', NOW - 5 * DAY, 's2'),
    ];
    const source = fakeSource({
      all,
      episodes: [all[3]!, all[0]!],
      facts: [
        {
          id: 'f1',
          memcellId: 'e1',
          speaker: 'Ana',
          content: 'Ana ran Boston in 4h10.',
          occurredAt: null,
          validFrom: null,
          validTo: null,
          current: true,
        },
      ],
      turns: [turn('t1', 'Boston was hard', NOW - 30 * DAY)],
      turnCells: { t1: 'e1' },
    });
    const parts = await gatherContext(source, 'How did the marathon go?', { now: NOW, limits: { scenes: 1, episodes: 4 } });
    expect(parts.episodes[0]!.id).toBe('e1'); // reached by narrative, fact and turn
    expect(parts.episodes.map((e) => e.id)).toEqual(expect.arrayContaining(['e2', 'e3', 'e4']));
    // Scene siblings come after every direct hit.
    expect(parts.episodes.map((e) => e.id).indexOf('e4')).toBeLessThan(parts.episodes.map((e) => e.id).indexOf('e2'));
    expect(parts.foresight.map((f) => f.id)).toEqual(['ok']);
    expect(parts.profile).toHaveLength(1);
  });

  it('mergeParts keeps the first round first and de-duplicates follow-up results', () => {
    const a: ContextParts = { ...EMPTY, turns: [turn('t1', 'a', 1), turn('t2', 'b', 2)] };
    const b: ContextParts = { ...EMPTY, turns: [turn('t2', 'b', 2), turn('t3', 'c', 3)] };
    const c: ContextParts = { ...EMPTY, turns: [turn('t4', 'd', 4), turn('t5', 'e', 5)] };
    expect(mergeParts(a, [b, c]).turns.map((t) => t.id)).toEqual(['t1', 't2', 't4', 't3', 't5']);
  });
});

describe('answerSourceOf over SqlKnowledgeSource', () => {
  it('finds facts and synthesised episodes, maps turns to episodes, expands scenes and filters foresight by time', async () => {
    const store = await openNodeStore();
    const db = store.db;
    await store.createConversation({ id: 'c', title: 'Chat' });
    for (const [i, text] of ['I ran the Boston marathon today!', 'My knee hurts a lot.', 'Ben plays guitar now.'].entries()) {
      await store.appendTurn({
        id: `m${i}`,
        conversationId: 'c',
        role: 'user',
        speaker: 'Ana',
        content: text,
        occurredAt: NOW - (30 - i * 10) * DAY,
      });
    }
    await db.exec("INSERT INTO memscenes (id, created_at, updated_at) VALUES ('s1', 0, 0), ('s2', 0, 0)");
    const cell = (id: string, seq: number, scene: string, title: string | null, narrative: string | null) =>
      db.exec(
        `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, status, scene_id, created_at, updated_at)
       VALUES (?, 'c', ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`,
        [
          id,
          seq,
          seq,
          NOW - (30 - (seq - 1) * 10) * DAY,
          NOW - (30 - (seq - 1) * 10) * DAY,
          title,
          narrative,
          narrative ? 'synthesised' : 'raw',
          scene,
        ],
      );
    await cell('e1', 1, 's1', 'Boston marathon', 'Ana ran the Boston marathon.');
    await cell('e2', 2, 's1', 'Knee pain', 'Ana has knee pain after running.');
    await cell('e3', 3, 's2', null, null); // raw: never returned
    await db.exec(`INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES
      ('f1', 'e1', 'Ana', 'Ana finished the Boston marathon.', 0, 0), ('f2', 'e2', 'Ana', 'Ana has a sore knee.', 0, 0)`);
    await db.exec(
      `INSERT INTO foresights (id, content, start_at, end_at, status, source, created_at, updated_at) VALUES
      ('fs1', 'Ana rests her knee', ?, ?, 'active', 'llm', 0, 0), ('fs2', 'Ana travels to Boston', ?, ?, 'active', 'llm', 0, 0)`,
      [NOW - 2 * DAY, NOW + 5 * DAY, NOW - 40 * DAY, NOW - 29 * DAY],
    );
    await db.exec(`INSERT INTO profile_items (id, kind, key, value, confidence, status, created_at, updated_at) VALUES
      ('p1', 'explicit', 'sport', 'running', 0.9, 'active', 0, 0), ('p2', 'explicit', 'pet', 'cat', 0.4, 'deleted', 0, 0)`);

    const recallCalls: string[] = [];
    const source = answerSourceOf(new SqlKnowledgeSource(db), async (q) => {
      recallCalls.push(q);
      return { turns: (await store.listMessages('c')).filter((m) => m.content.includes('Boston')).map((message) => ({ message })) };
    });
    expect((await source.facts('marathon in Boston', { limit: 5 })).map((f) => f.id)).toEqual(['f1']);
    expect((await source.episodes('Boston marathon', { limit: 5 })).map((e) => e.id)).toEqual(['e1']);
    expect(await source.episodes('Ben guitar', { limit: 5 })).toEqual([]);
    expect(await source.episodesOfTurns(['m0', 'm1', 'm2'])).toEqual(
      new Map([
        ['m0', 'e1'],
        ['m1', 'e2'],
      ]),
    );
    expect((await source.profile()).map((p) => p.id)).toEqual(['p1']);
    expect((await source.foresight(NOW)).map((f) => f.id)).toEqual(['fs1']);

    const parts = await gatherContext(source, 'When did Ana run the Boston marathon?', { now: NOW });
    expect(recallCalls).toEqual(['When did Ana run the Boston marathon?']);
    expect(parts.episodes.map((e) => e.id)).toEqual(['e1', 'e2']); // e2 via scene s1
    expect(parts.turns.map((t) => t.id)).toEqual(['m0']);
    const ctx = composeContext(parts, { budgetTokens: 2000, now: NOW });
    expect(ctx.text).toContain('Ana ran the Boston marathon.');
    expect(ctx.text).toContain('I ran the Boston marathon today!');
    expect(ctx.text).not.toContain('travels to Boston');
  });
});
