/**
 * Small-model discipline (synthesis/smallModel.ts, settings.ts): an episode's synthesis is split
 * into batches that fit a small context window, numbered with the episode's own turn numbers so
 * facts keep their sources; a model with no declared window (an endpoint) gets one call as
 * before; the memory budget defaults lower for a model on this device.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sql } from '../../src/core/base/sql';
import type { Llm, LlmRequest, LlmResult } from '../../src/core/base/ports';
import { ANSWER_BUDGET, DEVICE_ANSWER_BUDGET, answerBudgetOf, defaultAnswerBudget } from '../../src/core/base/settings';
import { loadTokenCounter } from '../../src/core/base/tokens';
import { clipToTokens, memCellBudget, synthesisBatches } from '../../src/core/synthesis/smallModel';
import { summariseScene, synthesiseMemCell } from '../../src/core/synthesis/synthesis';
import { updateProfile } from '../../src/core/synthesis/profileUpdate';
import { completeJson } from '../../src/llm/structured';
import { SqlKnowledgeStore } from '../../src/storage/knowledgeRepo';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { DeviceLlm } from '../../src/llm/DeviceLlm';
import { PromptApiGenerator } from '../../src/llm/PromptApiGenerator';
import { stubLanguageModel } from '../support/stubLanguageModel';

describe('synthesisBatches', () => {
  it('packs consecutive turns into batches that fit, covering every turn once', () => {
    expect(synthesisBatches([100, 100, 100], 250)).toEqual([
      [0, 2],
      [2, 3],
    ]);
    expect(synthesisBatches([100, 100, 100], 300)).toEqual([[0, 3]]);
    expect(synthesisBatches([50, 400, 50, 50], 200)).toEqual([
      [0, 1],
      [1, 2],
      [2, 4],
    ]); // an oversized turn goes alone
    expect(synthesisBatches([], 200)).toEqual([]);
  });
});

describe('memCellBudget', () => {
  it('is null for a model with no declared window (an endpoint): one call as before', () => {
    expect(memCellBudget(undefined, 1500, 20)).toBeNull();
  });

  it('caps the reply and the known facts for a small window, and leaves the rest for the turns', () => {
    const smol = memCellBudget(8192, 1500, 20)!;
    expect(smol.outputTokens).toBe(1500);
    expect(smol.knownFactLimit).toBe(8);
    expect(smol.turnTokens(1000)).toBe(Math.floor(8192 * 0.85) - 1500 - 1000);
    const tiny = memCellBudget(2048, 1500, 20)!;
    expect(tiny.outputTokens).toBe(512);
    expect(tiny.turnTokens(5000)).toBe(128); // never nothing: a turn always fits alone
    expect(memCellBudget(32_768, 1500, 20)!.knownFactLimit).toBe(20);
  });
});

describe('the default memory budget', () => {
  it('is lower for a model on this device, and a chosen budget is kept', () => {
    expect(defaultAnswerBudget()).toBe(ANSWER_BUDGET.default);
    expect(defaultAnswerBudget(8192)).toBe(DEVICE_ANSWER_BUDGET);
    expect(defaultAnswerBudget(32_768)).toBe(DEVICE_ANSWER_BUDGET);
    expect(defaultAnswerBudget(4096)).toBe(682);
    expect(defaultAnswerBudget(512)).toBe(ANSWER_BUDGET.min);
    expect(answerBudgetOf(null, 8192)).toBe(1000);
    expect(answerBudgetOf('4000', 8192)).toBe(4000);
    expect(answerBudgetOf(null)).toBe(2500);
  });

  it('follows the model answering: the engine reports 1,000 with a device model, 2,500 without', async () => {
    const store = await openNodeStore();
    const engine = createEngine(store, { only: ['episodes', 'synthesis', 'recall'], llm: null });
    await engine.start();
    expect(await engine.settings.answerSettings()).toMatchObject({ budgetTokens: 2500, defaultBudgetTokens: 2500 });
    engine.useDeviceLlm(
      (sink) =>
        new DeviceLlm(new PromptApiGenerator(stubLanguageModel()), {
          model: 'chrome-built-in',
          contextTokens: 6144,
          ...(sink ? { sink } : {}),
        }),
    );
    expect(await engine.settings.answerSettings()).toMatchObject({ budgetTokens: 1000, defaultBudgetTokens: 1000 });
    await engine.settings.setAnswerSettings({ budgetTokens: 4000 });
    expect(await engine.settings.answerSettings()).toMatchObject({ budgetTokens: 4000, defaultBudgetTokens: 1000 });
    engine.useDeviceLlm(null);
    expect(await engine.settings.answerSettings()).toMatchObject({ budgetTokens: 4000, defaultBudgetTokens: 2500 });
    await store.db.close();
  });
});

const T0 = Date.UTC(2023, 4, 8, 14, 0);

/** A model that records every prompt (with its reply cap) and answers with `reply(prompt text, prompts so far)`. */
function recordingLlm(contextTokens: number | undefined, reply: (text: string, seen: number) => unknown) {
  const prompts: { text: string; maxTokens: number | undefined }[] = [];
  const llm: Llm & { contextTokens?: number } = {
    ...(contextTokens !== undefined ? { contextTokens } : {}),
    async complete(req: LlmRequest): Promise<LlmResult> {
      const text = req.messages.map((m) => m.content).join('\n');
      prompts.push({ text, maxTokens: req.maxTokens });
      return {
        text: JSON.stringify(reply(text, prompts.length)),
        model: 'm',
        usage: { promptTokens: 10, completionTokens: 10, estimated: false },
        finishReason: 'stop',
      };
    },
    stream: () => {
      throw new Error('not used');
    },
    completeJson: (req) => completeJson(llm, req),
  };
  return { llm, prompts };
}

/** A model that reports one fact per turn it is shown, citing the turn by the number it saw. */
function factPerTurnLlm(contextTokens: number | undefined) {
  return recordingLlm(contextTokens, (text) => {
    const numbers = [...text.matchAll(/^\[(\d+)\] .*?: Ana said fact number (\d+)\b/gm)].map((m) => ({
      turn: Number(m[1]),
      fact: Number(m[2]),
    }));
    return {
      title: `Facts ${numbers[0]?.fact}`,
      narrative: `Ana listed facts ${numbers.map((n) => n.fact).join(', ')}.`,
      facts: numbers.map((n) => ({ text: `Ana's fact number ${n.fact} is true.`, speaker: 'Ana', kind: 'new', turns: [n.turn] })),
      foresight: [],
    };
  });
}

describe('synthesiseMemCell with a small context window', () => {
  let db: Sql;
  let store: SqlKnowledgeStore;
  const TURNS = 40;
  beforeEach(async () => {
    db = await openMemoryDatabase();
    store = new SqlKnowledgeStore(db);
    await db.exec("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Chat', 0, 0)");
    for (let i = 1; i <= TURNS; i++) {
      // ~1,200 characters each (the prompt's clip): 40 turns ≈ 12k tokens, over an 8k window.
      const content = `Ana said fact number ${i} ${'and went on about the weather in Lisbon at some length '.repeat(21)}`;
      await db.exec(
        'INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [`m${i}`, 'c1', i, 'user', 'Ana', content, T0 + i * 60_000, T0, 300],
      );
    }
    await db.exec(
      "INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, scene_id, created_at, updated_at) VALUES ('cell1', 'c1', 1, ?, ?, ?, NULL, 0, 0)",
      [TURNS, T0 + 60_000, T0 + TURNS * 60_000],
    );
  });

  it('splits the episode into batches that each fit, and every fact keeps its own turn as source', async () => {
    const { llm, prompts } = factPerTurnLlm(8192);
    const result = await synthesiseMemCell({ llm, store, clock: { now: () => T0 + 86_400_000 } }, 'cell1');
    expect(prompts.length).toBeGreaterThan(1);
    const count = await loadTokenCounter();
    for (const p of prompts) {
      expect(count(p.text) + p.maxTokens!).toBeLessThanOrEqual(8192);
      expect(p.text).toMatch(/TURNS \(part \d+ of \d+ of this episode/);
    }
    // Every turn was shown exactly once, with its number in the episode.
    const shown = prompts.flatMap((p) => [...p.text.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1])));
    expect(shown).toEqual(Array.from({ length: TURNS }, (_, i) => i + 1));
    // One fact per turn, up to the 30 an episode keeps (synthesis.ts MAX_FACTS_PER_CELL).
    expect(result!.factIds).toHaveLength(30);
    // A fact is dated by its source turn: fact n by turn n.
    const facts = await db.query<{ content: string; occurred_at: number }>('SELECT content, occurred_at FROM facts');
    expect(facts).toHaveLength(30);
    for (const f of facts) expect(f.occurred_at).toBe(T0 + Number(/number (\d+)/.exec(f.content)![1]) * 60_000);
    const [cell] = await db.query<{ title: string }>("SELECT title FROM memcells WHERE id = 'cell1'");
    expect(cell!.title).toBe('Facts 1');
  });

  it('an endpoint (no declared window) gets the whole episode in one call, as before', async () => {
    const { llm, prompts } = factPerTurnLlm(undefined);
    await synthesiseMemCell({ llm, store, clock: { now: () => T0 + 86_400_000 } }, 'cell1');
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.maxTokens).toBe(1500);
    expect(prompts[0]!.text).toContain('TURNS:');
  });
});

/**
 * A model that answers the scene and profile stages: the scene's summary names the episodes it
 * was shown; the profile adds one item per scene shown.
 */
function sceneProfileLlm(contextTokens: number | undefined) {
  return recordingLlm(contextTokens, (text, seen) =>
    text.includes('NEW EPISODES:')
      ? { title: `Trip ${seen}`, summary: `Summary ${seen} covers ${labels(text, /^(E\d+) \| /gm).join(' ')}.` }
      : {
          operations: labels(text, /^(S\d+) \(episodes/gm).map((s) => ({
            op: 'add',
            kind: 'explicit',
            key: `visited ${s}`,
            value: 'yes',
            confidence: 0.9,
            evidence: [s],
          })),
        },
  );
}

const labels = (text: string, re: RegExp): string[] => [...text.matchAll(re)].map((m) => m[1]!);

/** ~2,000 characters (the prompts' clip for one narrative or summary) ≈ 450 tokens. */
const longText = (n: number) =>
  `Episode ${n}: Ana walked through Lisbon ${'and described the tiled streets, the trams and the river at length '.repeat(30)}`;

describe('theme and profile synthesis with a small context window', () => {
  const WINDOW = 2048;
  let db: Sql;
  let store: SqlKnowledgeStore;
  beforeEach(async () => {
    db = await openMemoryDatabase();
    store = new SqlKnowledgeStore(db);
    await db.exec("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Chat', 0, 0)");
    await db.exec("INSERT INTO memscenes (id, title, summary, created_at, updated_at) VALUES ('s0', 'Lisbon', NULL, 0, 0)");
    // Twelve synthesised episodes in one theme: ≈ 5,500 tokens of narratives, over a 2k window.
    for (let i = 1; i <= 12; i++) {
      await db.exec(
        "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES (?, 'c1', ?, 'user', 'Ana', 'hi', ?, ?, 1)",
        [`m${i}`, i, T0 + i * 60_000, T0],
      );
      await db.exec(
        `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, scene_id, status, title, narrative, created_at, updated_at)
        VALUES (?, 'c1', ?, ?, ?, ?, 's0', 'synthesised', ?, ?, 0, 0)`,
        [`cell${i}`, i, i, T0 + i * 60_000, T0 + i * 60_000, `Walk ${i}`, longText(i)],
      );
    }
  });

  async function expectEveryPromptFits(prompts: readonly { text: string; maxTokens: number | undefined }[]) {
    const count = await loadTokenCounter();
    // Each message adds a few tokens of framing; the budget keeps 15% free for tokenizer differences.
    for (const p of prompts) expect(count(p.text) + 16 + p.maxTokens!).toBeLessThanOrEqual(WINDOW);
  }

  it('a theme folds its episodes into the summary in batches that each fit, every episode shown once, the last summary saved', async () => {
    const { llm, prompts } = sceneProfileLlm(WINDOW);
    const result = await summariseScene({ llm, store, clock: { now: () => T0 } }, 's0');
    expect(prompts.length).toBeGreaterThan(1);
    expect(result).toMatchObject({ calls: prompts.length, clippedEpisodes: 0 });
    await expectEveryPromptFits(prompts);
    const shown = prompts.flatMap((p) => labels(p.text, /^(E\d+) \| /gm));
    expect(shown).toEqual(Array.from({ length: 12 }, (_, i) => `E${i + 1}`));
    // Each batch after the first carries the summary the one before returned.
    for (let i = 1; i < prompts.length; i++) expect(prompts[i]!.text).toContain(`CURRENT SUMMARY:\nSummary ${i} covers`);
    const [scene] = await db.query<{ title: string; summary: string }>("SELECT title, summary FROM memscenes WHERE id = 's0'");
    expect(scene).toEqual({
      title: `Trip ${prompts.length}`,
      summary: expect.stringMatching(new RegExp(`^Summary ${prompts.length} covers .*E12\\.$`)),
    });
  });

  it('an episode too long for the window alone is shortened and counted, not left out', async () => {
    const { llm, prompts } = sceneProfileLlm(1024);
    const result = await summariseScene({ llm, store, clock: { now: () => T0 } }, 's0');
    expect(result!.clippedEpisodes).toBe(12);
    const count = await loadTokenCounter();
    for (const p of prompts) expect(count(p.text) + 16 + p.maxTokens!).toBeLessThanOrEqual(1024);
    expect(prompts.flatMap((p) => labels(p.text, /^(E\d+) \| /gm))).toHaveLength(12);
  });

  it('the profile sees every scene in batches that fit, with the whole profile each time, and applies all batches together', async () => {
    for (let s = 1; s <= 8; s++) {
      await db.exec('INSERT INTO memscenes (id, title, summary, created_at, updated_at) VALUES (?, ?, ?, 0, 0)', [
        `s${s}`,
        `Theme ${s}`,
        longText(100 + s),
      ]);
      await db.exec('UPDATE memcells SET scene_id = ? WHERE id = ?', [`s${s}`, `cell${s}`]);
    }
    await db.exec(
      "INSERT INTO profile_items (id, kind, key, value, confidence, evidence, status, created_at, updated_at) VALUES ('p0', 'explicit', 'home city', 'Lisbon', 0.9, '[]', 'active', 0, 0)",
    );
    const { llm, prompts } = sceneProfileLlm(WINDOW);
    const result = await updateProfile(
      {
        llm,
        store,
        clock: { now: () => T0 },
        newId: (() => {
          let n = 0;
          return () => `new${++n}`;
        })(),
      },
      { sceneLimit: 8 },
    );
    expect(prompts.length).toBeGreaterThan(1);
    expect(result).toMatchObject({ calls: prompts.length, clippedScenes: 0, hiddenItems: 0 });
    await expectEveryPromptFits(prompts);
    expect(prompts.flatMap((p) => labels(p.text, /^(S\d+) \(episodes/gm)).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `S${i + 1}`).sort(),
    );
    for (const p of prompts) expect(p.text).toContain('P1 | explicit | home city = Lisbon');
    const items = await store.profileItems();
    expect(items.filter((i) => i.key.startsWith('visited '))).toHaveLength(8);
  });

  it('an endpoint (no declared window) gets one call for the theme and one for the profile, as before', async () => {
    const { llm, prompts } = sceneProfileLlm(undefined);
    expect(await summariseScene({ llm, store, clock: { now: () => T0 } }, 's0')).toMatchObject({ calls: 1 });
    expect(prompts[0]!.maxTokens).toBe(500);
    expect(labels(prompts[0]!.text, /^(E\d+) \| /gm)).toHaveLength(12);
    expect(await updateProfile({ llm, store, clock: { now: () => T0 } })).toMatchObject({ calls: 1 });
    expect(prompts[1]!.maxTokens).toBe(1200);
  });
});

describe('clipToTokens', () => {
  it('keeps the start within the limit and leaves text that fits alone', async () => {
    const count = await loadTokenCounter();
    const text = longText(1);
    expect(clipToTokens('short', 10, count)).toBe('short');
    const clipped = clipToTokens(text, 50, count);
    expect(count(clipped)).toBeLessThanOrEqual(50);
    expect(count(clipped)).toBeGreaterThan(30);
    expect(text.startsWith(clipped.slice(0, -1))).toBe(true);
  });
});
