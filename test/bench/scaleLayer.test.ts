/**
 * The scale benchmark's synthesised layer (bench/scaleLayer.ts): its ratios (an episode per 20
 * turns synthesised, a fact per 5, a profile item and a plan per 300), made from the turns' own
 * text, deterministic, and the same whether it is added in one go or checkpoint by checkpoint;
 * written through the storage write path so an answer's reads find it.
 */
import { describe, expect, it } from 'vitest';
import { addScaleLayer, LAYER_RATIOS, layerCounts, planLayer, type LayerCounts, type LayerTurn } from '../../bench/scaleLayer';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlKnowledgeSource } from '../../src/storage/knowledgeSource';

const DAY = 86_400_000;
const T0 = Date.UTC(2023, 4, 1);
const WORDS = ['pottery', 'marathon', 'beagle', 'museum', 'violin', 'sourdough', 'kayak', 'orchid', 'garden', 'chess'];
const NONE: LayerCounts = { turns: 0, episodes: 0, facts: 0, profile: 0, plans: 0 };

/** `sessions` conversations of `perSession` turns each (LongMemEval-like: a session is a conversation), one date per session. */
function turns(sessions: number, perSession: number, prefix = 's'): LayerTurn[] {
  const out: LayerTurn[] = [];
  for (let s = 0; s < sessions; s++) {
    for (let i = 0; i < perSession; i++) {
      const w = WORDS[(s * 7 + i) % WORDS.length]!;
      out.push({
        id: `${prefix}${s}:${i}`,
        conversationId: `${prefix}${s}`,
        seq: i + 1,
        role: i % 2 ? 'assistant' : 'user',
        speaker: i % 2 ? 'Assistant' : 'User',
        content: `I went to the ${w} club on day ${s}. It was busy and loud. We talked about ${WORDS[(i + 3) % WORDS.length]} for hours.`,
        occurredAt: T0 + s * DAY,
      });
    }
  }
  return out;
}

describe('planLayer', () => {
  it('places every turn in an episode of at most 20 and keeps the ratios: an episode per 20 turns, a fact per 5, a profile item and a plan per 300', () => {
    // 300 sessions of 10 turns: episodes are sessions (10 turns), so about every other one is synthesised.
    const input = turns(300, 10);
    const { cells, after } = planLayer(input, NONE);
    expect(cells.flatMap((c) => c.turns)).toEqual(input);
    expect(cells.every((c) => c.turns.length <= LAYER_RATIOS.cellTurns && new Set(c.turns.map((t) => t.conversationId)).size === 1)).toBe(
      true,
    );
    const synthesised = cells.filter((c) => c.synthesis);
    expect(synthesised).toHaveLength(3000 / 20);
    expect(synthesised.flatMap((c) => c.synthesis!.facts)).toHaveLength(3000 / 5);
    expect(synthesised.flatMap((c) => c.synthesis!.plans)).toHaveLength(3000 / 300);
    expect(cells.flatMap((c) => c.profile)).toHaveLength(3000 / 300);
    expect(after).toEqual({ turns: 3000, episodes: 150, facts: 600, profile: 10, plans: 10 });
    // Raw episodes carry nothing beyond their turns.
    expect(cells.filter((c) => !c.synthesis).every((c) => c.profile.length === 0)).toBe(true);
  });

  it("makes facts, narratives and plans from the turns' own sentences", () => {
    const { cells } = planLayer(turns(40, 10), NONE);
    const cell = cells.find((c) => c.synthesis && c.synthesis.facts.length > 0)!;
    const text = cell.turns.map((t) => t.content).join(' ');
    for (const f of cell.synthesis!.facts) {
      expect(f.content).toMatch(/^(User|Assistant) said: /);
      expect(text).toContain(f.content.replace(/^\w+ said: /, ''));
    }
    expect(cell.synthesis!.narrative).toContain(`${cell.turns[0]!.speaker}: I went to the`);
    expect(cell.synthesis!.narrative.length).toBeLessThanOrEqual(LAYER_RATIOS.narrativeChars);
    for (const p of cells.flatMap((c) => c.synthesis?.plans ?? [])) expect(p.endAt).toBeGreaterThan(p.startAt);
  });

  it('is deterministic, and the same added in one go or in two parts (a checkpoint between)', () => {
    const input = turns(120, 10);
    expect(planLayer(input, NONE)).toEqual(planLayer(input, NONE));
    const whole = planLayer(input, NONE);
    const first = planLayer(input.slice(0, 500), NONE);
    const second = planLayer(input.slice(500), first.after);
    expect(second.after).toEqual(whole.after);
    expect([...first.cells, ...second.cells].map((c) => [c.id, c.synthesis?.facts.length ?? -1])).toEqual(
      whole.cells.map((c) => [c.id, c.synthesis?.facts.length ?? -1]),
    );
    // Another seed draws other sentences.
    expect(planLayer(input, NONE, 2).cells.flatMap((c) => c.synthesis?.facts ?? [])).not.toEqual(
      whole.cells.flatMap((c) => c.synthesis?.facts ?? []),
    );
  });

  it('splits a long conversation at 20 turns and at a gap between sessions', () => {
    const long = turns(1, 50, 'c').map((t, i) => ({ ...t, conversationId: 'c', occurredAt: T0 + (i < 30 ? 0 : DAY) }));
    const { cells } = planLayer(long, NONE);
    expect(cells.map((c) => c.turns.length)).toEqual([20, 10, 20]);
  });
});

describe('addScaleLayer', () => {
  it("writes the layer through the storage write path, continues from what the database holds, and an answer's full-text reads find it", async () => {
    const store = await openNodeStore();
    const write = async (from: number, to: number) => {
      for (let s = from; s < to; s++) {
        await store.createConversation({ id: `s${s}`, title: `s${s}` });
        await store.appendTurns(
          turns(to, 10)
            .filter((t) => t.conversationId === `s${s}`)
            .map(({ seq: _seq, ...t }) => t),
        );
      }
    };
    await write(0, 40);
    const first = await addScaleLayer(store, null, { now: T0 });
    expect(first).toMatchObject({ turns: 400, episodes: 20, facts: 80, profile: 1, plans: 1, cells: 40, scenes: 0 });
    // Nothing new: nothing added.
    expect(await addScaleLayer(store, null, { now: T0 })).toMatchObject({ turns: 400, episodes: 20, facts: 80 });
    await write(40, 70);
    const second = await addScaleLayer(store, null, { now: T0 });
    expect(second).toMatchObject({ turns: 700, episodes: 35, facts: 140, profile: 2, plans: 2, cells: 70 });
    expect(await layerCounts(store.db)).toMatchObject({ turns: 700, episodes: 35, facts: 140 });

    const knowledge = new SqlKnowledgeSource(store.db);
    const facts = await knowledge.lexicalFacts('What did we talk about at the violin club?', { limit: 12 });
    expect(facts.length).toBe(12);
    expect(facts[0]!.content).toMatch(/violin/i);
    const episodes = await knowledge.lexicalEpisodes('the violin club', { limit: 8 });
    expect(episodes.length).toBe(8);
    expect(episodes.every((e) => e.narrative.includes('talked.'))).toBe(true);
    expect(await knowledge.profile(20)).toHaveLength(2);
    expect((await knowledge.foresight(T0)).length).toBe(2);
    await store.db.close();
  });
});
