import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { forgetSummary, normaliseText, pca2d, tombstoneHash } from '../../src/core/explorer/explorerText';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { immediateTimer, topicProvider } from '../support/topicEmbedder';
import { createEngine } from '../../src/host/createEngine';

const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 10, 9);
const TOPICS = ['dog', 'flight', 'rent'];
const provider = topicProvider(TOPICS);

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

let n = 0;
async function setup() {
  const store = await openNodeStore();
  const llm = new LlmClient(
    { baseUrl: mock.url, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  );
  const engine = createEngine(store, { embedders: provider, llm, timer: immediateTimer, profileDebounceMs: 0 });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  await store.createConversation({ id: 'c', title: 'Chat' });
  const say = async (h: number, texts: string[]) => {
    for (const [i, content] of texts.entries())
      await engine.conversations.appendTurn({
        id: `m${++n}`,
        conversationId: 'c',
        role: 'user',
        speaker: 'Ana',
        content,
        occurredAt: T0 + h * H + i * 60_000,
      });
    await engine.idle();
  };
  const settle = async () => {
    await engine.closeOpenCells();
    await engine.idle();
  };
  await say(0, ['I adopted a dog named Biscuit.', 'The dog is a beagle mix.']);
  await say(24, ['I am going to Lisbon next week, the flight leaves at noon.']);
  await say(48, ['The dog learned to sit today.']);
  await settle();
  const cellOf = async (text: string) => (await engine.memory.search(text, { kinds: ['fact'] }))[0]!.memcellId!;
  return { store, engine, say, settle, cellOf };
}

describe('explorer text helpers', () => {
  it('hashes normalised text and projects vectors', () => {
    expect(normaliseText('Ana said: I like SUSHI!')).toBe('ana said i like sushi');
    expect(tombstoneHash('Ana likes sushi.')).toBe(tombstoneHash('ana  LIKES sushi'));
    expect(tombstoneHash('Ana likes sushi')).not.toBe(tombstoneHash('Ana likes ramen'));
    const pts = pca2d([Float32Array.of(1, 0, 0), Float32Array.of(0.9, 0.1, 0), Float32Array.of(0, 0, 1)]);
    expect(pts).toHaveLength(3);
    expect(Math.abs(pts[0]![0] - pts[1]![0])).toBeLessThan(Math.abs(pts[0]![0] - pts[2]![0]));
  });
});

describe('memory explorer', () => {
  it('gives an overview and searches every level with filters and reasons', async () => {
    const { engine, store } = await setup();
    const o = await engine.memory.overview();
    expect(o.counts).toMatchObject({ turns: 4, memcells: 3 });
    expect(o.counts.facts).toBe(4); // one per user turn (the mock synthesiser's rule)
    // Every logged call is counted: at least the three episodes' syntheses.
    expect(o.llm.calls).toBe(Number((await store.db.query<{ n: number }>('SELECT count(*) AS n FROM llm_calls'))[0]!.n));
    expect(o.llm.calls).toBeGreaterThanOrEqual(3);
    expect(o.embedder?.modelId).toBe('topic');
    const hits = await engine.memory.search('Biscuit');
    expect(new Set(hits.map((h) => h.kind))).toEqual(new Set(['turn', 'fact', 'episode', 'scene']));
    expect(hits.find((h) => h.kind === 'fact')!.reasons.join(' ')).toContain('“biscuit” in the fact');
    expect((await engine.memory.search('Biscuit', { kinds: ['turn'] })).every((h) => h.kind === 'turn')).toBe(true);
    expect(await engine.memory.search('Biscuit', { kinds: ['turn'], speaker: 'Bob' })).toEqual([]);
    expect(await engine.memory.search('Biscuit', { kinds: ['turn'], from: T0 + 30 * H })).toEqual([]);
    const page = await engine.memory.listMemCells({ offset: 0, limit: 2 });
    expect(page.total).toBe(3);
    expect(page.items).toHaveLength(2);
    const detail = await engine.memory.memCell(page.items[0]!.id);
    expect(detail?.turns).toHaveLength(page.items[0]!.turnCount);
    expect(page.items[0]!.turnCount).toBeGreaterThanOrEqual(1);
    // Each source turn shows its encoding score.
    for (const t of detail!.turns)
      expect(t.encoding).toMatchObject({ novelty: expect.any(Number), salience: expect.any(Number), act: expect.any(String) });
  });

  it('keeps an edited fact through re-synthesis and never writes a deleted one back', async () => {
    const { store, engine, cellOf } = await setup();
    const cell = await cellOf('Biscuit');
    const detail = (await engine.memory.memCell(cell))!;
    const [first, second] = detail.facts;
    await engine.memory.editFact(first!.id, { content: 'Ana adopted a beagle called Biscuit in March.' });
    expect((await engine.memory.search('beagle called', { kinds: ['fact'] }))[0]?.id).toBe(first!.id);
    await engine.memory.deleteFact(second!.id);
    await engine.memory.resynthesiseMemCell(cell);
    await engine.idle();
    const after = (await engine.memory.memCell(cell))!;
    expect(after.status).toBe('synthesised');
    const contents = after.facts.map((f) => f.content);
    expect(contents).toContain('Ana adopted a beagle called Biscuit in March.');
    expect(contents).not.toContain(first!.content); // the old wording stays corrected
    expect(contents).not.toContain(second!.content); // the deleted fact stays deleted
    const tomb = await store.db.query<{ text_hash: string }>("SELECT text_hash FROM tombstones WHERE kind = 'fact'");
    expect(tomb.map((t) => t.text_hash)).toContain(tombstoneHash(second!.content));
  });

  it('deletes a MemCell for good: not re-segmented, not re-synthesised, gone from search', async () => {
    const { store, engine, say, settle, cellOf } = await setup();
    const cell = await cellOf('sit today'); // the conversation's last episode
    expect(await engine.memory.deleteMemCell(cell)).toBe(true);
    expect(await engine.memory.memCell(cell)).toBeNull();
    expect(await engine.memory.search('sit today', { kinds: ['fact', 'episode'] })).toEqual([]);
    expect((await engine.conversations.search('sit today')).length).toBe(1); // the turn itself is kept
    // A later consolidation: new turns, closing, synthesis of everything queued.
    await say(96, ['Paid the rent for April.']);
    await settle();
    const cells = await store.db.query<{ first_seq: number; last_seq: number }>(
      'SELECT first_seq, last_seq FROM memcells ORDER BY first_seq',
    );
    expect(cells.map((c) => [c.first_seq, c.last_seq])).toEqual([
      [1, 2],
      [3, 3],
      [5, 5],
    ]); // seq 4 stays out
    expect(await engine.memory.search('sit today', { kinds: ['fact', 'episode'] })).toEqual([]);
    const jobs = await store.db.query('SELECT id FROM jobs WHERE dedupe_key = ?', [`memcell:${cell}`]);
    expect(jobs).toEqual([]);
  });

  it('can delete a MemCell with its turns, and the next turns still become episodes', async () => {
    const { store, engine, say, settle, cellOf } = await setup();
    const cell = await cellOf('sit today');
    await engine.memory.deleteMemCell(cell, { turns: true });
    expect(await engine.conversations.search('sit today')).toEqual([]);
    await say(96, ['Paid the rent for April.']);
    await settle();
    expect((await engine.memory.search('rent April', { kinds: ['episode'] })).length).toBe(1);
    expect((await store.db.query("SELECT id FROM memcells WHERE status = 'synthesised'")).length).toBe(3);
  });

  it('keeps a dismissed or re-timed foresight through re-synthesis', async () => {
    const { engine, cellOf } = await setup();
    const items = await engine.plans.list();
    const llmItem = items.find((f) => f.source === 'llm')!;
    expect(llmItem).toBeDefined();
    await engine.plans.dismiss(llmItem.id);
    await engine.memory.resynthesiseMemCell(llmItem.memcellId!);
    await engine.idle();
    const after = (await engine.plans.list()).filter((f) => f.memcellId === llmItem.memcellId && f.source === 'llm');
    expect(after.map((f) => [f.id, f.status])).toEqual([[llmItem.id, 'dismissed']]);
    const dated = (await engine.plans.list()).find((f) => f.source === 'date-parser')!;
    await engine.plans.edit(dated.id, { startAt: T0, endAt: T0 + 40 * 24 * H });
    expect((await engine.plans.list()).find((f) => f.id === dated.id)).toMatchObject({ endAt: T0 + 40 * 24 * H, source: 'user' });
    expect(await cellOf('Lisbon')).toBe(llmItem.memcellId);
  });

  it('turns a pipeline proposal on a pinned profile item into a conflict the user resolves, and never re-adds a deleted key', async () => {
    const { engine, say, settle } = await setup();
    const [item] = await engine.profile.list();
    expect(item).toBeDefined();
    await engine.profile.edit(item!.id, 'My own words');
    // Another episode of the same scene: a new scene summary, then a profile update proposing the model's value.
    await say(72, ['The dog chewed my slipper.']);
    await settle();
    const conflicted = (await engine.profile.list()).find((p) => p.id === item!.id)!;
    expect(conflicted.status).toBe('conflict');
    expect(conflicted.proposedValue).not.toBeNull();
    await engine.profile.resolveConflict(item!.id, 'keep');
    const kept = (await engine.profile.list()).find((p) => p.id === item!.id)!;
    expect(kept).toMatchObject({ status: 'active', value: 'My own words', pinned: true });
    expect(kept.history.map((h) => h.op)).toEqual(expect.arrayContaining(['add', 'update', 'conflict', 'resolve']));

    const others = (await engine.profile.list()).filter((p) => p.id !== item!.id);
    for (const p of others) await engine.profile.delete(p.id);
    await engine.profile.delete(item!.id);
    await say(120, ['The dog has a vet visit soon.', 'I moved my flight.', 'The rent went up.']);
    await settle();
    const keys = new Set([...others, item!].map((p) => normaliseText(p.key)));
    expect((await engine.profile.list()).filter((p) => keys.has(normaliseText(p.key)))).toEqual([]);
  });

  it('forgets everything about a topic in one go after showing it', async () => {
    const { engine } = await setup();
    const preview = await engine.memory.forgetPreview('Biscuit');
    expect(new Set(preview.map((p) => p.kind))).toEqual(new Set(['fact', 'episode', 'turn', 'scene', 'profile']));
    const result = await engine.memory.forget(preview.map(({ kind, id }) => ({ kind, id })));
    expect(result.deleted.turn).toBe(1);
    await engine.idle(); // the scene is re-summarised from what remains
    expect(await engine.memory.search('Biscuit')).toEqual([]);
    expect(await engine.memory.forgetPreview('Biscuit')).toEqual([]);
  });

  it('forgets exactly what the user confirmed and reports exactly that', async () => {
    const { engine, say, settle } = await setup();
    // One episode mentions Ana, and holds a plan and a fact that do not.
    await say(72, ['Ana and I went hiking on Mount Tam.', 'I am flying to Porto next week for the conference.']);
    await settle();
    const preview = await engine.memory.forgetPreview('Ana hiking');
    const episode = preview.find((p) => p.kind === 'episode' && /hiking/i.test(p.text));
    expect(episode).toBeDefined();
    const detail = (await engine.memory.memCell(episode!.id))!;
    const porto = detail.facts.find((f) => /Porto/.test(f.content));
    const plan = (await engine.plans.list()).find((f) => f.memcellId === episode!.id && /Porto/.test(f.content));
    expect(porto).toBeDefined();
    expect(plan).toBeDefined();
    // The user keeps everything about Porto: unticked, or never listed.
    const chosen = preview.filter((p) => p.id !== porto!.id && p.id !== plan!.id && (p.kind === 'episode' || !/Porto/.test(p.text)));
    expect(chosen.map((c) => c.id)).toContain(episode!.id);
    const result = await engine.memory.forget(chosen.map(({ kind, id }) => ({ kind, id })));
    const reported = Object.values(result.deleted).reduce((a, b) => a + b, 0);
    expect(reported).toBe(chosen.length);
    for (const kind of ['fact', 'episode', 'turn', 'foresight', 'profile', 'scene'] as const) {
      expect(result.deleted[kind], kind).toBe(chosen.filter((c) => c.kind === kind).length);
    }
    expect((await engine.memory.memCell(episode!.id))?.facts.map((f) => f.id)).toContain(porto!.id);
    expect((await engine.plans.list()).map((f) => f.id)).toContain(plan!.id);
    expect(await engine.memory.forgetPreview('hiking')).toEqual([]);
    expect(forgetSummary(result.deleted)).not.toMatch(
      /\b1 (facts|messages|plans|episodes)\b|\b(?:[02-9]|\d\d+) (fact|message|plan|episode)\b/,
    );
  });

  it('a plan and facts derived from a deleted message go with it, the episode says so, and the rest is derived again', async () => {
    const { engine, say, settle } = await setup();
    await say(72, ['I am flying to Porto next week for the conference.', 'The hotel in Porto has a rooftop pool.']);
    await settle();
    const plansAbout = async (re: RegExp) => (await engine.plans.list()).filter((f) => re.test(f.content));
    expect(await plansAbout(/flying to Porto/)).toHaveLength(2);
    const cellId = (await engine.memory.search('rooftop pool', { kinds: ['fact'] }))[0]!.memcellId!;
    const flying = (await engine.memory.memCell(cellId))!.turns.find((t) => /flying/.test(t.content))!;

    await engine.synthesis.setPolicy('off'); // nothing re-derives yet: what is left is visible
    await engine.conversations.deleteMessage(flying.id);
    await engine.idle();
    expect(await plansAbout(/flying to Porto/)).toEqual([]);
    const after = (await engine.memory.memCell(cellId))!;
    expect(after).toMatchObject({ status: 'raw', lostTurns: 1, narrative: null });
    expect(after.facts).toEqual([]);
    expect(JSON.stringify(await engine.memory.search('flying Porto conference'))).not.toMatch(/flying/);

    await engine.synthesis.setPolicy('eager');
    await engine.idle();
    const again = (await engine.memory.memCell(cellId))!;
    expect(again).toMatchObject({ status: 'synthesised', lostTurns: 0 });
    expect(again.facts.map((f) => f.content).join(' ')).toMatch(/rooftop pool/);
    expect(`${again.narrative} ${again.facts.map((f) => f.content).join(' ')}`).not.toMatch(/flying/);
  });

  it('forgets whole words only, and renames a conversation title that holds the word', async () => {
    const { engine, store } = await setup();
    await store.createConversation({ id: 'sis', title: 'New conversation' });
    const texts = [
      'My sister Ana is allergic to peanuts.',
      'We listened to Nirvana all evening.',
      'Time management is hard this month.',
      'The analysis of the panade recipe is done.',
      'Nirvana tribute concert next Friday.',
    ];
    for (const [i, content] of texts.entries()) {
      await engine.conversations.send({ id: `sis${i}`, conversationId: 'sis', content });
      await engine.idle();
    }
    await engine.closeOpenCells();
    await engine.idle();
    expect((await store.getConversation('sis'))!.title).toMatch(/^My sister Ana is allergic/);
    expect((await engine.plans.list()).some((f) => /Nirvana/.test(f.content))).toBe(true); // a plan the LIKE scan used to propose

    const preview = await engine.memory.forgetPreview('ana');
    const word = /(^|[^\p{L}\p{N}])Ana([^\p{L}\p{N}]|$)/iu;
    for (const p of preview) expect(p.text, `${p.kind}: ${p.text}`).toMatch(word);
    // (the setup's messages are said by "Ana": they are listed as "Ana: …", and count)
    expect(preview.filter((p) => p.kind === 'turn' && p.id.startsWith('sis')).map((p) => p.id)).toEqual(['sis0']);
    const title = preview.find((p) => p.kind === 'title' && p.id === 'sis');
    expect(title?.text).toContain('becomes “My sister … is allergic to');

    const result = await engine.memory.forget(
      preview.map(({ kind, id }) => ({ kind, id })),
      'ana',
    );
    expect(result.deleted.title).toBe(1);
    expect(forgetSummary(result.deleted)).toMatch(/1 conversation title/);
    const renamed = (await store.getConversation('sis'))!;
    expect(renamed.title).toMatch(/^My sister … is allergic/);
    expect(renamed.titledBy).toBe('user'); // no later titling brings the word back
    expect(await engine.memory.forgetPreview('Ana')).toEqual([]);
    // The word-internal mentions stay.
    expect((await engine.conversations.messages('sis')).map((m) => m.id)).toEqual(['sis1', 'sis2', 'sis3', 'sis4']);
  });

  it('says stored answers changed after each deletion that redacts them, so a chat on screen reads them again', async () => {
    const { engine, cellOf } = await setup();
    const events: string[] = [];
    engine.on((e) => events.push(e.type));
    const deletes: [string, () => Promise<unknown>][] = [
      ['a fact', async () => engine.memory.deleteFact((await engine.memory.search('beagle', { kinds: ['fact'] }))[0]!.id)],
      ['a profile item', async () => engine.profile.delete((await engine.profile.list())[0]!.id)],
      ['a plan (Forget)', async () => engine.memory.forget([{ kind: 'foresight', id: (await engine.plans.list())[0]!.id }])],
      ['an episode', async () => engine.memory.deleteMemCell(await cellOf('sit'))],
    ];
    for (const [what, run] of deletes) {
      events.length = 0;
      await run();
      expect(events, what).toContain('messages-changed');
    }
    // An edit redacts nothing: no chat is told to read its messages again.
    events.length = 0;
    await engine.memory.renameScene((await engine.memory.listScenes())[0]!.id, 'Pets');
    expect(events).not.toContain('messages-changed');
  });

  it('names what was forgotten with correct plurals', () => {
    expect(forgetSummary({ fact: 2, episode: 1, turn: 3, foresight: 1, profile: 0, scene: 0 })).toBe(
      '2 facts, 1 episode, 3 messages, 1 plan',
    );
    expect(forgetSummary({ fact: 0, episode: 0, turn: 0, foresight: 0, profile: 1, scene: 2 })).toBe('1 profile item, 2 theme summaries');
    expect(forgetSummary({ fact: 0 })).toBe('nothing');
  });

  it('renames, merges, splits scenes and maps episodes', async () => {
    const { engine } = await setup();
    const scenes = await engine.memory.listScenes();
    expect(scenes.length).toBeGreaterThanOrEqual(2);
    const dog = scenes.find((s) => s.members.length === 2)!;
    const other = scenes.find((s) => s.id !== dog.id)!;
    await engine.memory.renameScene(dog.id, 'Biscuit the dog');
    expect((await engine.memory.listScenes()).find((s) => s.id === dog.id)).toMatchObject({ title: 'Biscuit the dog', editedByUser: true });
    await engine.memory.mergeScenes(dog.id, [other.id]);
    const merged = (await engine.memory.listScenes()).find((s) => s.id === dog.id)!;
    expect(merged.memberCount).toBe(3);
    const newId = await engine.memory.splitScene(dog.id, [other.members[0]!.id], 'Travel');
    const after = await engine.memory.listScenes();
    expect(after.find((s) => s.id === newId)).toMatchObject({ title: 'Travel', memberCount: 1 });
    expect(after.find((s) => s.id === dog.id)?.memberCount).toBe(2);
    const map = await engine.memory.sceneMap();
    expect(map.points).toHaveLength(3);
    expect(map.episodes).toBe(3);
    expect(map.points.every((p) => Math.abs(p.x) <= 1 && Math.abs(p.y) <= 1)).toBe(true);
  });
});
