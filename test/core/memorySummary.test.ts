/**
 * The memory summary's pure parts: the summary made with no model (grouped by topic, each sentence
 * citing the items it came from, merged by key or by the same words, deterministic), the reading of
 * a model's reply (labels mapped back to ids, unknown labels and sentences citing nothing dropped,
 * a reply of the wrong shape or empty refused with a reason), what a stored value may hold, and the
 * prune that makes a deleted item's words leave the summary.
 */
import { describe, expect, it } from 'vitest';
import { summariseItems, TOPICS } from '../../src/core/explorer/itemSummary';
import { buildSummaryPrompt, readSummaryReply, summaryOutputSchema, SUMMARY_PROMPT_START } from '../../src/core/explorer/summaryPrompt';
import {
  itemsFingerprint,
  readStoredSummary,
  withoutMissing,
  type MemorySummary,
  type SummaryItem,
} from '../../src/core/explorer/memorySummary';
import { completeJson } from '../../src/llm/structured';
import { RecollectError } from '../../src/core/base/errors';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 4, 9);

/** Real-shaped items: what synthesis writes (third-person facts, keyed profile items) and what people type. */
const ITEMS: SummaryItem[] = [
  { id: 'p-diet', kind: 'profile', key: 'diet', text: 'vegetarian since 2019', at: T0 - 90 * DAY, byUser: false },
  { id: 'p-diet2', kind: 'profile', key: 'Diet', text: 'avoids mushrooms', at: T0 - 80 * DAY, byUser: false },
  { id: 'p-home', kind: 'profile', key: 'home', text: 'lives in Leeds with two cats', at: T0 - 70 * DAY, byUser: false },
  { id: 'p-mine', kind: 'profile', key: 'I prefer short answers', text: 'I prefer short answers with code first.', at: T0, byUser: true },
  {
    id: 'f-job',
    kind: 'fact',
    key: null,
    text: 'Ana works night shifts as a nurse at St James hospital and is studying for a critical-care certificate.',
    at: T0 - 3 * DAY,
    byUser: false,
  },
  { id: 'f-sister', kind: 'fact', key: null, text: 'Ana’s sister Marta is moving to Porto in June.', at: T0 - 2 * DAY, byUser: false },
  { id: 'f-misc', kind: 'fact', key: null, text: 'Ana repaired the kitchen tap with a 15 mm washer.', at: T0 - DAY, byUser: false },
  { id: 'f-dup', kind: 'fact', key: null, text: 'I prefer short answers with code first', at: T0 - 5 * DAY, byUser: false },
  { id: 'plan-dentist', kind: 'plan', key: null, text: 'Dentist check-up at 10:00', at: T0 + 8 * DAY, until: T0 + 8 * DAY, byUser: false },
  {
    id: 'plan-trip',
    kind: 'plan',
    key: null,
    text: 'Trip to Porto to help Marta move',
    at: T0 + 30 * DAY,
    until: T0 + 35 * DAY,
    byUser: false,
  },
];

describe('the summary made from the items (no model)', () => {
  const paragraphs = summariseItems(ITEMS, 'Europe/London');
  const sentence = (id: string) =>
    paragraphs.flatMap((p) => p.sentences.map((s) => ({ topic: p.topic, ...s }))).find((s) => s.items.some((r) => r.id === id));

  it('groups by topic in a fixed order, each sentence citing the items it came from', () => {
    expect(paragraphs.map((p) => p.topic)).toEqual([
      TOPICS.about,
      TOPICS.work,
      TOPICS.people,
      TOPICS.preferences,
      TOPICS.plans,
      TOPICS.other,
    ]);
    expect(sentence('f-job')).toMatchObject({ topic: 'Work', items: [{ id: 'f-job', kind: 'fact' }] });
    expect(sentence('f-sister')!.topic).toBe('People');
    expect(sentence('plan-trip')).toMatchObject({ topic: 'Plans', text: 'Trip to Porto to help Marta move (3 June 2026 to 8 June 2026).' });
    expect(sentence('plan-dentist')!.text).toBe('Dentist check-up at 10:00 (12 May 2026).');
    expect(sentence('f-misc')!.topic).toBe('Things you mentioned');
    // Every item is cited exactly once, and every sentence cites at least one.
    const cited = paragraphs.flatMap((p) => p.sentences.flatMap((s) => s.items.map((r) => r.id))).sort();
    expect(cited).toEqual(ITEMS.map((i) => i.id).sort());
    for (const p of paragraphs) for (const s of p.sentences) expect(s.items.length).toBeGreaterThan(0);
  });

  it('merges profile items of one key, and items with the same words, into one sentence citing all', () => {
    // Newest first, as facts are.
    expect(sentence('p-diet')).toMatchObject({
      text: 'Diet: avoids mushrooms; vegetarian since 2019.',
      items: [{ id: 'p-diet2' }, { id: 'p-diet' }],
    });
    // The person's own memory and a fact in the same words: one sentence, in the person's words, citing both.
    expect(sentence('f-dup')).toMatchObject({
      text: 'I prefer short answers with code first.',
      items: [{ id: 'p-mine' }, { id: 'f-dup' }],
    });
    expect(sentence('p-home')!.text).toBe('Home: lives in Leeds with two cats.');
  });

  it('is deterministic: the same items in another order give the same summary', () => {
    expect(summariseItems([...ITEMS].reverse(), 'Europe/London')).toEqual(paragraphs);
    expect(summariseItems([], 'UTC')).toEqual([]);
  });

  it('keeps a paragraph to 12 sentences: the newest facts of 40', () => {
    const many: SummaryItem[] = Array.from({ length: 40 }, (_, i) => ({
      id: `f${i}`,
      kind: 'fact',
      key: null,
      text: `Ana fixed bicycle number ${i} in the shed.`,
      at: T0 + i * DAY,
      byUser: false,
    }));
    const [only] = summariseItems(many);
    expect(only!.sentences).toHaveLength(12);
    expect(only!.sentences[0]!.items[0]!.id).toBe('f39');
  });
});

describe("a model's reply", () => {
  const shown = ITEMS.slice(0, 5);

  it('is prompted with every shown item under a label', () => {
    const [system, user] = buildSummaryPrompt(shown, 'UTC');
    expect(system!.content.startsWith(SUMMARY_PROMPT_START)).toBe(true);
    expect(user!.content).toContain('M1 [about you, 3 February 2026] diet: vegetarian since 2019');
    expect(user!.content).toContain('M5 [fact, 1 May 2026] Ana works night shifts');
  });

  it('valid: labels become the ids of the items shown', () => {
    const reply = readSummaryReply(
      {
        paragraphs: [
          { topic: 'Work', sentences: [{ text: 'you work night shifts as a nurse', items: ['M5'] }] },
          { topic: 'About you', sentences: [{ text: 'You are vegetarian and live in Leeds.', items: ['M1', '[M3]', 2] }] },
        ],
      },
      shown,
    );
    expect(reply).toEqual({
      ok: true,
      paragraphs: [
        { topic: 'Work', sentences: [{ text: 'You work night shifts as a nurse.', items: [{ id: 'f-job', kind: 'fact' }] }] },
        {
          topic: 'About you',
          sentences: [
            {
              text: 'You are vegetarian and live in Leeds.',
              items: [
                { id: 'p-diet', kind: 'profile' },
                { id: 'p-home', kind: 'profile' },
                { id: 'p-diet2', kind: 'profile' },
              ],
            },
          ],
        },
      ],
    });
  });

  it('invalid ids: a label not shown is dropped, a sentence citing none of the shown items goes', () => {
    const reply = readSummaryReply(
      {
        paragraphs: [
          {
            topic: 'Work',
            sentences: [
              { text: 'You are a nurse.', items: ['M5', 'M99', 'f-job'] },
              { text: 'You own a boat.', items: ['M42'] },
              { text: 'You like jazz.', items: [] },
            ],
          },
          { topic: 'Invented', sentences: [{ text: 'You live on Mars.', items: ['M0'] }] },
        ],
      },
      shown,
    );
    expect(reply).toEqual({
      ok: true,
      paragraphs: [{ topic: 'Work', sentences: [{ text: 'You are a nurse.', items: [{ id: 'f-job', kind: 'fact' }] }] }],
    });
    const none = readSummaryReply({ paragraphs: [{ topic: 'X', sentences: [{ text: 'You own a boat.', items: ['M42'] }] }] }, shown);
    expect(none).toEqual({ ok: false, reason: 'no sentence of the reply cited one of the memories it was given' });
  });

  it('malformed JSON fails at completeJson with LLM_BAD_OUTPUT (the caller falls back); a wrong shape is refused here', async () => {
    const broken = {
      complete: async () => ({
        text: 'Sure! Here is the summary: You are a nurse who',
        usage: { promptTokens: 1, completionTokens: 1, estimated: true },
      }),
    };
    const err = await completeJson(broken as never, {
      stage: 'summary',
      messages: buildSummaryPrompt(shown, 'UTC'),
      schema: summaryOutputSchema,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecollectError);
    expect((err as RecollectError).code).toBe('LLM_BAD_OUTPUT');
    expect(readSummaryReply({ summary: 'You are a nurse.' }, shown)).toEqual({ ok: false, reason: 'the reply had no list of paragraphs' });
    expect(readSummaryReply({ paragraphs: 'You are a nurse.' }, shown).ok).toBe(false);
    expect(readSummaryReply(null, shown).ok).toBe(false);
  });

  it('empty: no paragraphs is refused', () => {
    expect(readSummaryReply({ paragraphs: [] }, shown)).toEqual({ ok: false, reason: 'the reply was empty' });
    expect(readSummaryReply({ paragraphs: [{ topic: 'Work', sentences: [] }] }, shown)).toEqual({
      ok: false,
      reason: 'the reply was empty',
    });
  });
});

describe('the kept summary', () => {
  const summary: MemorySummary = {
    paragraphs: summariseItems(ITEMS, 'UTC'),
    madeBy: 'items',
    madeAt: T0,
    fingerprint: itemsFingerprint(ITEMS),
  };

  it('reads back what it stored; refuses other values; drops sentences whose refs are unreadable', () => {
    expect(readStoredSummary(JSON.stringify(summary))).toEqual(summary);
    for (const bad of [null, '', '{', '[]', '{"madeBy":"someone"}', JSON.stringify({ ...summary, madeAt: 'yesterday' })])
      expect(readStoredSummary(bad)).toBeNull();
    const odd = {
      ...summary,
      paragraphs: [{ topic: 'Work', sentences: [{ text: 'You are a nurse.', items: [{ id: 'f-job', kind: 'episode' }] }] }],
    };
    expect(readStoredSummary(JSON.stringify(odd))!.paragraphs).toEqual([]);
  });

  it('a deleted item takes every sentence citing it (and a paragraph left empty) with it', () => {
    const existing = new Set(ITEMS.map((i) => i.id).filter((id) => id !== 'f-misc' && id !== 'p-diet2'));
    const pruned = withoutMissing(summary, existing);
    const text = JSON.stringify(pruned);
    expect(text).not.toContain('kitchen tap');
    expect(text).not.toContain('mushrooms');
    expect(text).not.toContain('vegetarian'); // merged with the deleted item: its sentence goes too
    expect(pruned.paragraphs.map((p) => p.topic)).not.toContain('Things you mentioned');
    expect(text).toContain('night shifts');
    expect(withoutMissing(summary, new Set(ITEMS.map((i) => i.id)))).toBe(summary);
  });

  it('the fingerprint changes when an item is added, edited or deleted, not when the order does', () => {
    const base = itemsFingerprint(ITEMS);
    expect(itemsFingerprint([...ITEMS].reverse())).toBe(base);
    expect(itemsFingerprint(ITEMS.slice(1))).not.toBe(base);
    expect(itemsFingerprint([{ ...ITEMS[0]!, text: 'vegan since 2019' }, ...ITEMS.slice(1)])).not.toBe(base);
  });
});

describe('topics in the other languages the app reads dates in', () => {
  const at = Date.UTC(2026, 4, 1);
  const fact = (id: string, text: string): SummaryItem => ({ id, kind: 'fact', key: null, text, at, byUser: false });
  const topicOf = (text: string) => summariseItems([fact('x', text)])[0]!.topic;
  it.each([
    ['de', 'Meine Schwester Lena zieht im Juni nach Hamburg.', TOPICS.people],
    ['de', 'Er arbeitet als Krankenpfleger in der Nachtschicht im Klinikum.', TOPICS.work],
    ['de', 'Sie ist seit 2019 Vegetarierin und mag keine Pilze.', TOPICS.preferences],
    ['fr', 'Sa sœur Claire déménage à Lyon en juin.', TOPICS.people],
    ['fr', 'Il travaille de nuit comme infirmier à l’hôpital.', TOPICS.work],
    ['fr', 'Elle est végétarienne et déteste la coriandre.', TOPICS.preferences],
    ['es', 'Su hermana Lucía se muda a Valencia en junio.', TOPICS.people],
    ['es', 'Trabaja de noche como enfermero en el hospital.', TOPICS.work],
    ['es', 'Es vegetariana y es alérgica a los cacahuetes.', TOPICS.preferences],
    ['zh', '她的妹妹六月要搬到上海。', TOPICS.people],
    ['zh', '他在医院上夜班,是一名护士。', TOPICS.work],
    ['zh', '她吃素,对花生过敏。', TOPICS.preferences],
    ['ja', '妹は六月に大阪へ引っ越す。', TOPICS.people],
    ['ja', '病院で看護師として夜勤の仕事をしている。', TOPICS.work],
    ['ja', 'ベジタリアンで、ピーナッツアレルギーがある。', TOPICS.preferences],
    ['ko', '여동생이 6월에 부산으로 이사한다.', TOPICS.people],
    ['ko', '병원에서 간호사로 야간 근무를 하는 직장인이다.', TOPICS.work],
    ['ko', '채식을 하고 땅콩 알레르기가 있다.', TOPICS.preferences],
  ])('%s: %s → %s', (_lang, text, topic) => {
    expect(topicOf(text)).toBe(topic);
  });

  it('leaves everyday words alone: "大丈夫", "딸기", "아이디어" and "일요일" name no person and no work', () => {
    for (const text of ['大丈夫です、明日また話そう。', '딸기 케이크를 구웠다.', '새 아이디어를 적어 두었다.', '일요일에 등산을 갔다.']) {
      expect(topicOf(text)).toBe(TOPICS.other);
    }
  });
});
