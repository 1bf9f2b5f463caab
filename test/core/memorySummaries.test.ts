/**
 * The memory summary through the engine (engine.profile.summary / makeSummary / editSummarySentence)
 * over SQLite, with facts and a plan written by synthesis (mock endpoint, pipeline behaviour only):
 * made from the items with no model, by the endpoint when its reply is usable, from the items with a
 * note when it is not; kept and stale when the items change; a deleted item's words gone from the
 * kept value without anyone opening the page; an edit stored as a memory written by the person; the
 * chats of a project-only project never in it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RecollectError } from '../../src/core/base/errors';
import { SUMMARY_META_KEY } from '../../src/core/explorer/memorySummary';
import type { Llm, LlmJsonRequest } from '../../src/core/base/ports';
import { SUMMARY_PROMPT_START } from '../../src/core/explorer/summaryPrompt';
import { startMockLlmServer, type MockChatRequest, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { synthesisedEngine } from '../support/synthesisedEngine';

const T0 = Date.now() - 10 * 86_400_000;
let mock: MockLlmServer;
/** The summary reply the mock endpoint gives (given the prompt), or null for the synthesis responder's. */
let summaryReply: ((prompt: string) => string) | null = null;

const isSummary = (req: MockChatRequest) => req.messages[0]?.content.startsWith(SUMMARY_PROMPT_START) ?? false;
beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => (isSummary(req) && summaryReply ? summaryReply(req.messages[1]!.content) : synthesisResponder(req)),
  });
});
afterAll(async () => mock.close());

const FILLER =
  ' We talked it through for a while, the schedule, the money, what the first weeks would look like, and who would look after the plants while I am away.';
/** Real-length turns (≈ 1,000 characters each with the filler) about work, people and a plan. */
const TURNS = [
  `I work night shifts as a nurse at St James hospital in Leeds, mostly on the cardiac ward.${FILLER.repeat(6)}`,
  `My sister Marta is moving to Porto next month and I am going to help her pack the van.${FILLER.repeat(6)}`,
  `I am going to the dentist next week for a check-up, the appointment is at ten.${FILLER.repeat(6)}`,
];

const knowingEngine = () =>
  synthesisedEngine({
    mockUrl: mock.url,
    topics: ['nurse', 'sister', 'dentist'],
    turns: TURNS,
    t0: T0,
    memory: 'I am vegetarian and cook lentils every Sunday.',
  });

async function itemIds(engine: Awaited<ReturnType<typeof knowingEngine>>['engine']): Promise<Set<string>> {
  const facts = await engine.memory.listFacts({ limit: 500 });
  return new Set([
    ...(await engine.profile.list()).map((p) => p.id),
    ...(await engine.plans.list()).map((p) => p.id),
    ...facts.items.map((f) => f.id),
  ]);
}

describe('the memory summary through the engine', () => {
  it('with no model: made from the items, every sentence citing existing items; stale on a new memory; a deleted fact leaves the kept value at once', async () => {
    const { engine, store } = await knowingEngine();
    engine.setLlm(null);
    const before = await engine.profile.summary();
    expect(before).toMatchObject({ summary: null, stale: false, maker: 'items' });
    expect(before.items).toBeGreaterThanOrEqual(4);

    const made = await engine.profile.makeSummary();
    expect(made.summary!.madeBy).toBe('items');
    expect(made.stale).toBe(false);
    const ids = await itemIds(engine);
    const refs = made.summary!.paragraphs.flatMap((p) => p.sentences.flatMap((s) => s.items));
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const r of refs) expect(ids.has(r.id)).toBe(true);
    expect(made.summary!.paragraphs.map((p) => p.topic)).toContain('Work');
    // Kept: a second read is the same summary (no remaking).
    expect((await engine.profile.summary()).summary).toEqual(made.summary);

    await engine.profile.addMemory('I am learning Portuguese before the trip.');
    expect((await engine.profile.summary()).stale).toBe(true);

    // Deleting the fact about the nurse's ward: its words leave the kept value without a read of the page.
    const nurse = (await engine.memory.listFacts({ limit: 500 })).items.find((f) => f.content.includes('cardiac'))!;
    expect(JSON.stringify((await engine.profile.summary()).summary)).toContain('cardiac');
    await engine.memory.deleteFact(nurse.id);
    await vi.waitFor(async () => expect(await store.getMeta(SUMMARY_META_KEY)).not.toContain('cardiac'));
    const after = await engine.profile.summary();
    expect(after.summary!.paragraphs.flatMap((p) => p.sentences.flatMap((s) => s.items.map((r) => r.id)))).not.toContain(nurse.id);
    expect(after.stale).toBe(true);
    engine.stop();
  });

  it('with the endpoint: its sentences cite the items it was shown; a reply citing nothing shown, or not JSON, gives the items summary with a note', async () => {
    const { engine } = await knowingEngine();
    let prompt = '';
    summaryReply = (p) => {
      prompt = p;
      const label = (words: string) => /^(M\d+) /m.exec(p.split('\n').find((l) => l.includes(words)) ?? '')?.[1];
      return JSON.stringify({
        paragraphs: [
          { topic: 'Work', sentences: [{ text: 'You are a night nurse in Leeds.', items: [label('cardiac')] }] },
          {
            topic: 'About you',
            sentences: [
              { text: 'You eat no meat.', items: [label('vegetarian')] },
              { text: 'You own a yacht.', items: ['M77'] },
            ],
          },
        ],
      });
    };
    try {
      const made = await engine.profile.makeSummary();
      expect(prompt).toContain('[about you');
      expect(made.summary).toMatchObject({ madeBy: 'endpoint' });
      expect(made.summary!.note).toBeUndefined();
      const sentences = made.summary!.paragraphs.flatMap((p) => p.sentences);
      expect(sentences.map((s) => s.text)).toEqual(['You are a night nurse in Leeds.', 'You eat no meat.']); // the yacht cited nothing shown
      const facts = (await engine.memory.listFacts({ limit: 500 })).items;
      expect(sentences[0]!.items).toEqual([{ id: facts.find((f) => f.content.includes('cardiac'))!.id, kind: 'fact' }]);
      expect(sentences[1]!.items[0]!.kind).toBe('profile');

      summaryReply = () => JSON.stringify({ paragraphs: [{ topic: 'Boats', sentences: [{ text: 'You own a yacht.', items: ['M77'] }] }] });
      const invented = await engine.profile.makeSummary();
      expect(invented.summary!.madeBy).toBe('items');
      expect(invented.summary!.note).toContain('no sentence of the reply cited one of the memories it was given');
      expect(JSON.stringify(invented.summary)).not.toContain('yacht');

      summaryReply = () => 'Here is what I know: you are a nurse and';
      const broken = await engine.profile.makeSummary();
      expect(broken.summary!.madeBy).toBe('items');
      expect(broken.summary!.note).toContain('its reply was not readable JSON');
      expect(broken.summary!.paragraphs.length).toBeGreaterThan(0);
    } finally {
      summaryReply = null;
      engine.stop();
    }
  });

  it('an edited sentence is saved as a memory written by the person, and the sentence cites it; a sentence changed meanwhile is refused', async () => {
    const { engine } = await knowingEngine();
    engine.setLlm(null);
    const made = await engine.profile.makeSummary();
    const p = made.summary!.paragraphs.findIndex((x) => x.topic === 'Work');
    const was = made.summary!.paragraphs[p]!.sentences[0]!.text;
    const edited = await engine.profile.editSummarySentence(
      { paragraph: p, sentence: 0, was },
      'I work night shifts as a nurse on the cardiac ward, three nights a week.',
    );
    const sentence = edited.summary!.paragraphs[p]!.sentences[0]!;
    expect(sentence.text).toBe('I work night shifts as a nurse on the cardiac ward, three nights a week.');
    const written = (await engine.profile.list()).find((x) => x.id === sentence.items[0]!.id)!;
    expect(written).toMatchObject({ value: sentence.text, editedByUser: true, status: 'active' });
    expect(edited.stale).toBe(false); // the summary already says what the new memory says
    expect((await engine.profile.summary()).summary!.paragraphs[p]!.sentences[0]).toEqual(sentence);

    const count = (await engine.profile.list()).length;
    const err = await engine.profile.editSummarySentence({ paragraph: p, sentence: 0, was }, 'Something else.').catch((e: unknown) => e);
    expect((err as RecollectError).code).toBe('NOT_FOUND');
    const empty = await engine.profile
      .editSummarySentence({ paragraph: p, sentence: 0, was: sentence.text }, '   ')
      .catch((e: unknown) => e);
    expect((empty as RecollectError).code).toBe('INVALID_INPUT');
    expect((await engine.profile.list()).length).toBe(count);
    engine.stop();
  });

  it('with no endpoint, the model on this device writes it, shown only the items that fit its window; the endpoint goes first when there is one', async () => {
    const { engine } = await knowingEngine();
    // Many saved memories: more than a 1,500-token window holds with its reply.
    for (let i = 0; i < 40; i++)
      await engine.profile.addMemory(
        `I keep spare key number ${i} for the allotment shed in the blue tin by the door, next to the seed trays.`,
      );
    const prompts: string[] = [];
    const device = {
      onDevice: 'Test model, WASM',
      contextTokens: 1_500,
      complete: async () => {
        throw new Error('not used');
      },
      stream: () => {
        throw new Error('not used');
      },
      completeJson: async <T>(req: LlmJsonRequest<T>) => {
        const items = req.messages[1]!.content;
        prompts.push(items);
        return {
          value: { paragraphs: [{ topic: 'About you', sentences: [{ text: 'You keep many keys.', items: ['M1', 'M2'] }] }] } as T,
          raw: '',
          repaired: false,
          attempts: 1,
          usage: { promptTokens: 1, completionTokens: 1, estimated: true },
        };
      },
    } as unknown as Llm;
    engine.useDeviceLlm(() => device);
    // The endpoint is still set: it goes first.
    summaryReply = () => JSON.stringify({ paragraphs: [{ topic: 'Work', sentences: [{ text: 'You are a nurse.', items: ['M1'] }] }] });
    try {
      expect((await engine.profile.makeSummary()).summary!.madeBy).toBe('endpoint');
      expect(prompts).toHaveLength(0);
      engine.setLlm(null);
      const view = await engine.profile.summary();
      expect(view.maker).toBe('device');
      const made = await engine.profile.makeSummary();
      expect(made.summary).toMatchObject({ madeBy: 'device', paragraphs: [{ sentences: [{ text: 'You keep many keys.' }] }] });
      const shown = prompts[0]!.split('\n').filter((l) => /^M\d+ /.test(l)).length;
      expect(shown).toBeGreaterThan(5);
      expect(shown).toBeLessThan(view.items); // the rest did not fit, so could not be cited
    } finally {
      summaryReply = null;
      engine.stop();
    }
  });

  it('never holds the chats of a project-only project: moving the chat there drops its sentences', async () => {
    const { engine, store } = await knowingEngine();
    engine.setLlm(null);
    const made = await engine.profile.makeSummary();
    expect(JSON.stringify(made.summary)).toContain('Marta');
    const project = await engine.projects.create({ name: 'Family', memory: 'project-only' });
    await engine.projects.move('c', project.id);
    const after = await engine.profile.summary();
    expect(JSON.stringify(after.summary)).not.toContain('Marta');
    expect(await store.getMeta(SUMMARY_META_KEY)).not.toContain('Marta');
    const remade = await engine.profile.makeSummary();
    expect(JSON.stringify(remade.summary)).not.toContain('Marta');
    expect(JSON.stringify(remade.summary)).toContain('vegetarian'); // the person's own memory is not the chat's
    engine.stop();
  });
});
