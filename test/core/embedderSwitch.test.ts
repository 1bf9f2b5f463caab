/**
 * An embedder switch re-embeds every kind with vectors: turns, facts and episodes get
 * the new model's vectors before it becomes active, themes' centroids follow it, and
 * turns written during the switch get the old model's vector first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { Embedder, EmbedderProvider } from '../../src/core/base/ports';
import { LlmClient } from '../../src/llm/LlmClient';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { immediateTimer } from '../support/topicEmbedder';
import { createEngine } from '../../src/host/createEngine';
import { META_ACTIVE } from '../../src/core/capture/embeddingStatus';
import { RecollectError } from '../../src/core/base/errors';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { SwitchProgress } from '../../src/app/components/SwitchProgress';

const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 10, 9);

/** Maps a text to the axis of the first topic whose words it contains (a topic is "word|synonym"). */
function synonymEmbedder(id: string, topics: readonly string[], gate?: (call: number) => Promise<void>): Embedder {
  let calls = 0;
  return {
    id,
    dim: topics.length + 1,
    async embed(texts) {
      await gate?.(++calls);
      return texts.map((t) => {
        const v = new Float32Array(topics.length + 1);
        const i = topics.findIndex((topic) => topic.split('|').some((w) => t.toLowerCase().includes(w)));
        v[i < 0 ? topics.length : i] = 1;
        return v;
      });
    },
  };
}

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

async function setup(b: Embedder, a: Embedder = synonymEmbedder('a@1', ['dog', 'flight', 'rent'])) {
  const store = await openNodeStore();
  // Model a knows no synonyms; model b knows that a puppy is a dog.
  const models: Record<string, Embedder> = { a, b };
  const provider: EmbedderProvider = { defaultModelId: 'a', embedder: (id) => models[id]! };
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 1 });
  const engine = createEngine(store, { embedders: provider, llm, timer: immediateTimer, profileDebounceMs: 0 });
  await engine.start();
  await engine.setConsolidationPolicy('eager');
  await store.createConversation({ id: 'c', title: 'Chat' });
  let n = 0;
  for (const [h, content] of [[0, 'I adopted a dog named Biscuit.'], [24, 'My flight to Lisbon is on Friday.'], [48, 'The dog learned to sit today.']] as const) {
    await engine.appendTurn({ id: `t${++n}`, conversationId: 'c', role: 'user', speaker: 'Ana', content, occurredAt: T0 + h * H });
    await engine.idle();
  }
  await engine.closeOpenCells();
  await engine.idle();
  return { store, engine };
}

/** Forty short turns a day after the first ones: enough for two batches of a switch. */
async function addRentNotes(engine: Awaited<ReturnType<typeof setup>>['engine']) {
  for (let i = 0; i < 40; i++) await engine.appendTurn({ id: `x${i}`, conversationId: 'c', role: 'user', speaker: 'Ana', content: `Rent note ${i}.`, occurredAt: T0 + 50 * H + i * 1000 });
  await engine.idle();
}

/**
 * Switches to model b with forty turns to embed (`arm` first lets b's gate act); once `midway`
 * resolves, a turn 'during' is written; then waits until the indexer is idle.
 */
async function switchWithTurnDuring(s: Awaited<ReturnType<typeof setup>>, arm: () => void, midway: Promise<void>, content: string) {
  await addRentNotes(s.engine);
  arm();
  await s.engine.setEmbedder('b');
  await midway;
  await s.engine.appendTurn({ id: 'during', conversationId: 'c', role: 'user', speaker: 'Ana', content, occurredAt: T0 + 51 * H });
  await s.engine.idle();
}

const count = async (store: Awaited<ReturnType<typeof openNodeStore>>, kind: string, model: string) =>
  Number((await store.db.query<{ n: number }>('SELECT count(*) AS n FROM vectors WHERE item_kind = ? AND model_id = ?', [kind, model]))[0]!.n);

describe('embedder switch', () => {
  it('re-embeds turns, facts, episodes and themes; after it a fact is found by meaning with the new model', async () => {
    const { store, engine } = await setup(synonymEmbedder('b@1', ['dog|puppy', 'flight', 'rent']));
    const before = { fact: await count(store, 'fact', 'a@1'), memcell: await count(store, 'memcell', 'a@1') };
    expect(before.fact).toBe(3); // one fact per turn
    expect(before.memcell).toBe(3);
    expect(await store.db.query("SELECT id FROM memscenes WHERE summary <> ''")).toHaveLength(2); // the dog and flight themes
    expect(await count(store, 'memscene', 'a@1')).toBe(0); // theme summaries have no vectors (unread, removed)
    expect(await engine.searchMemory('puppy', { kinds: ['fact'] })).toEqual([]); // model a: no such meaning

    await engine.setEmbedder('b');
    await engine.idle();
    const status = (await engine.embeddingStatus())!;
    expect(status).toMatchObject({ activeModel: 'b', targetModel: 'b', state: 'idle' });
    expect(status.embedded).toBe(status.total);
    for (const kind of ['fact', 'memcell'] as const) {
      expect(await count(store, kind, 'b@1')).toBe(before[kind]);
      expect(await count(store, kind, 'a@1')).toBe(0);
    }
    const models = await store.db.query<{ centroid_model: string }>('SELECT DISTINCT centroid_model FROM memscenes WHERE centroid IS NOT NULL');
    expect(models).toEqual([{ centroid_model: 'b@1' }]);

    const hits = await engine.searchMemory('puppy', { kinds: ['fact'] });
    // Both dog facts, and nothing else, mean "puppy" to model b.
    expect(hits).toHaveLength(2);
    for (const hit of hits) expect(hit.text).toMatch(/dog/);

    // A new dog episode joins the existing dog theme under the new model (no new theme).
    const scenes = (await engine.listScenes()).length;
    await engine.appendTurn({ id: 't9', conversationId: 'c', role: 'user', speaker: 'Ana', content: 'The dog chased a ball.', occurredAt: T0 + 96 * H });
    await engine.idle();
    await engine.closeOpenCells();
    await engine.idle();
    expect((await engine.listScenes()).length).toBe(scenes);
    engine.stop();
  });

  it('a turn written during a switch gets the old model\'s vector before the switch ends', async () => {
    let release!: () => void;
    const written = new Promise<void>((r) => { release = r; });
    let engineRef: Awaited<ReturnType<typeof setup>> | null = null;
    // Model b's second batch waits until the turn written during the switch has model a's vector:
    // if it only got one at the end of the switch, this would never resolve.
    const gate = async (call: number) => {
      if (!engineRef) return;
      if (call === 1) {
        release(); // the test now writes a turn; this batch ends once that turn is stored
        for (let i = 0; i < 500 && !(await engineRef.store.getMessage('during')); i++) await new Promise((r) => setTimeout(r, 10));
      }
      if (call === 2) {
        for (let i = 0; i < 500; i++) {
          if ((await engineRef.store.getVectors('message', ['during'], 'a@1')).length > 0) return;
          await new Promise((r) => setTimeout(r, 10));
        }
        throw new Error('the turn written during the switch never got the active model\'s vector');
      }
    };
    const s = await setup(synonymEmbedder('b@1', ['dog|puppy', 'flight', 'rent'], gate));
    await switchWithTurnDuring(s, () => { engineRef = s; }, written, 'My dog sleeps a lot.');
    expect((await s.engine.embeddingStatus())!.activeModel).toBe('b');
    expect((await s.store.getVectors('message', ['during'], 'b@1')).length).toBe(1);
    s.engine.stop();
  });

  it('a fact written with the old model after the re-embedding pass passed it still gets the new model\'s vector', async () => {
    const { store, engine } = await setup(synonymEmbedder('b@1', ['dog|puppy', 'flight', 'rent']));
    const setMeta = store.setMeta.bind(store);
    let wrote = false;
    // The moment the new model becomes active, the facts pass is over: a fact the consolidator
    // stored meanwhile (with the old model, which was still active) arrives now.
    store.setMeta = async (key: string, value: string) => {
      if (key === META_ACTIVE && value === 'b' && !wrote) {
        wrote = true;
        await store.db.query(
          "INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) SELECT 'late-fact', memcell_id, speaker, 'Biscuit the puppy sleeps in a basket.', created_at, updated_at FROM facts LIMIT 1",
        );
        await store.putVectors('fact', 'a@1', [{ itemId: 'late-fact', vector: Float32Array.of(1, 0, 0, 0) }]);
      }
      return setMeta(key, value);
    };
    await engine.setEmbedder('b');
    await engine.idle();
    expect(wrote).toBe(true);
    expect((await engine.embeddingStatus())!).toMatchObject({ activeModel: 'b', state: 'idle' });
    expect((await store.getVectors('fact', ['late-fact'], 'b@1')).length).toBe(1);
    expect((await store.getVectors('fact', ['late-fact'], 'a@1')).length).toBe(0);
    expect(await count(store, 'fact', 'a@1')).toBe(0);
    const facts = Number((await store.db.query<{ n: number }>('SELECT count(*) AS n FROM facts'))[0]!.n);
    expect(await count(store, 'fact', 'b@1')).toBe(facts);
    engine.stop();
  });
});

describe('themes at the end of a switch', () => {
  it('a theme founded with the old model after the centroids were rebuilt gets the new model\'s centroid', async () => {
    const { store, engine } = await setup(synonymEmbedder('b@1', ['dog|puppy', 'flight', 'rent']));
    // A later episode, its turn embedded with model a, still open when the switch starts.
    await engine.appendTurn({ id: 'late', conversationId: 'c', role: 'user', speaker: 'Ana', content: 'The rent went up again.', occurredAt: T0 + 200 * H });
    await engine.idle();
    const [cell] = await store.db.query<{ memcell_id: string }>(
      "SELECT c.id AS memcell_id FROM memcells c JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq WHERE m.id = 'late'");
    expect(cell?.memcell_id).toBeTruthy();
    const setMeta = store.setMeta.bind(store);
    let wrote = false;
    // The centroids were rebuilt for model b a moment ago; the episode closes now, while model a is
    // still active, and founds a theme with a's centroid (as Lifecycle's close does).
    store.setMeta = async (key: string, value: string) => {
      if (key === META_ACTIVE && value === 'b' && !wrote) {
        wrote = true;
        await store.episodes.assignScene(cell!.memcell_id, { id: 'late-theme', centroid: Float32Array.of(0, 0, 1, 0), centroidModel: 'a@1', memberCount: 1, lastActivityAt: T0 + 200 * H }, true, T0 + 200 * H);
      }
      return setMeta(key, value);
    };
    await engine.setEmbedder('b');
    await engine.idle();
    expect(wrote).toBe(true);
    expect((await engine.embeddingStatus())!).toMatchObject({ activeModel: 'b', state: 'idle' });
    const themes = await store.db.query<{ id: string; centroid_model: string | null }>('SELECT id, centroid_model FROM memscenes ORDER BY id');
    expect(themes.map((t) => t.id)).toContain('late-theme');
    expect(themes.filter((t) => t.centroid_model !== 'b@1')).toEqual([]);
    // Clustering with model b compares new episodes with it again.
    expect((await store.episodes.scenes('b@1')).map((t) => t.id)).toContain('late-theme');
    engine.stop();
  });
});

describe('embedder switch across a reopen', () => {
  it('resumes where it stopped, searches the old vectors until complete, and leaves nothing written meanwhile without a vector', async () => {
    const topics = ['dog|puppy', 'flight', 'rent'];
    const waitFor = async (what: string, ok: () => Promise<boolean>) => {
      for (let i = 0; i < 1000; i++) {
        if (await ok()) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`timed out waiting for ${what}`);
    };
    // Before the reopen, model b embeds two batches (the second only once the test has written a
    // turn during the switch), then hangs on the third as the tab closes.
    let letSecondBatchEnd!: () => void;
    const secondBatch = new Promise<void>((r) => { letSecondBatchEnd = r; });
    let closeTab!: () => void;
    const closed = new Promise<void>((r) => { closeTab = r; });
    let bCalls = 0;
    const gate = async (call: number) => {
      bCalls = call;
      if (call === 2) await secondBatch;
      if (call >= 3) {
        await closed;
        throw new Error('the tab closed');
      }
    };
    const { store, engine } = await setup(synonymEmbedder('b@1', topics, gate));
    await addRentNotes(engine);
    const cellsBefore = (await store.db.query('SELECT id FROM memcells')).length;
    const factsBefore = (await store.db.query('SELECT id FROM facts')).length;

    await engine.setEmbedder('b');
    await waitFor('the second batch of model b', async () => bCalls === 2);
    // A turn a day later: once it has the old model's vector it closes the rent episode, which gets
    // an old-model vector and a theme and is synthesised into facts with old-model vectors.
    await engine.appendTurn({ id: 'during', conversationId: 'c', role: 'user', speaker: 'Ana', content: 'My puppy chewed the rent receipt.', occurredAt: T0 + 80 * H });
    letSecondBatchEnd();
    await waitFor('the episode and facts written during the switch', async () =>
      (await store.db.query('SELECT id FROM memcells')).length > cellsBefore
      && (await store.db.query('SELECT id FROM facts')).length > factsBefore
      && (await store.db.query("SELECT status FROM memcells WHERE status IN ('queued', 'synthesising')")).length === 0);
    expect(await count(store, 'message', 'b@1')).toBe(43); // half done: two batches of the 44 turns
    expect((await store.getVectors('message', ['during'], 'a@1'))).toHaveLength(1);
    const embeddedBeforeClose = (await engine.embeddingStatus())!.embedded;

    // The tab closes mid-switch; the same database opens again.
    engine.stop();
    closeTab();
    await engine.idle();
    let letReopenedFinish!: () => void;
    const reopenedGate = new Promise<void>((r) => { letReopenedFinish = r; });
    const reopenedTexts: string[] = [];
    const b = synonymEmbedder('b@1', topics, () => reopenedGate);
    const models: Record<string, Embedder> = { a: synonymEmbedder('a@1', ['dog', 'flight', 'rent']), b: { ...b, embed: (texts, role) => { reopenedTexts.push(...texts); return b.embed(texts, role); } } };
    const llm = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 1 });
    const reopened = createEngine(store, { embedders: { defaultModelId: 'a', embedder: (id) => models[id]! }, llm, timer: immediateTimer, profileDebounceMs: 0 });
    await reopened.start();
    // Until the switch completes, search uses model a's vectors: "puppy" means nothing to a.
    expect(await reopened.searchMemory('puppy', { kinds: ['fact'] })).toEqual([]);
    expect(await store.getMeta(META_ACTIVE)).toBe('a');
    // The counts wait for the first search (the open's hold), then read back the progress.
    await waitFor('the progress counts', async () => (await reopened.embeddingStatus())!.total > 0);
    const resumed = (await reopened.embeddingStatus())!;
    expect(resumed).toMatchObject({ activeModel: 'a', targetModel: 'b' });
    expect(resumed.embedded).toBe(embeddedBeforeClose); // progress read back, not restarted
    expect(resumed.embedded).toBeLessThan(resumed.total);
    expect(await reopened.searchMemory('puppy', { kinds: ['fact'] })).toEqual([]);

    letReopenedFinish();
    await reopened.idle();
    await reopened.closeOpenCells();
    await reopened.idle();
    const done = (await reopened.embeddingStatus())!;
    expect(done).toMatchObject({ activeModel: 'b', targetModel: 'b', state: 'idle' });
    expect(done.embedded).toBe(done.total);
    // Resumed, not restarted: the 43 turns model b embedded before the close were not embedded again.
    const rentNotesAgain = reopenedTexts.filter((t) => /^Rent note \d+\.$/.test(t)).length;
    const rentFacts = (await store.db.query("SELECT id FROM facts WHERE content LIKE 'Rent note %'")).length;
    expect(rentNotesAgain).toBeLessThanOrEqual(rentFacts);
    // Nothing is left without a vector of the new model, and no old vector remains.
    const items = async (sql: string) => (await store.db.query<{ id: string }>(sql)).map((r) => r.id);
    for (const [kind, ids] of [
      ['message', await items('SELECT id FROM messages')],
      ['fact', await items('SELECT id FROM facts')],
      ['memcell', await items('SELECT id FROM memcells')],
    ] as const) {
      expect(ids.length).toBeGreaterThan(0);
      const have = new Set((await store.getVectors(kind, ids, 'b@1')).map((v) => v.itemId));
      expect(ids.filter((id) => !have.has(id)), `${kind} without a b@1 vector`).toEqual([]);
      expect(await count(store, kind, 'a@1')).toBe(0);
    }
    expect((await store.db.query('SELECT id FROM memcells')).length).toBeGreaterThan(cellsBefore);
    expect(await store.db.query('SELECT DISTINCT centroid_model FROM memscenes WHERE centroid IS NOT NULL')).toEqual([{ centroid_model: 'b@1' }]);
    // The fact about the puppy written during the switch is found by meaning with the new model.
    expect((await reopened.searchMemory('puppy', { kinds: ['fact'] })).map((h) => h.text).join(' ')).toMatch(/puppy/);
    reopened.stop();
  });
});

describe('switch progress by kind', () => {
  it('the Models panel shows the engine\'s per-kind counts, which match the database mid-switch', async () => {
    let letFinish!: () => void;
    const finish = new Promise<void>((r) => { letFinish = r; });
    let bCalls = 0;
    // Model b embeds the first batch of turns, then waits: the switch is half done.
    const gate = async (call: number) => {
      bCalls = call;
      if (call >= 2) await finish;
    };
    const { store, engine } = await setup(synonymEmbedder('b@1', ['dog|puppy', 'flight', 'rent'], gate));
    await addRentNotes(engine);
    await engine.setEmbedder('b');
    for (let i = 0; i < 1000 && !(bCalls === 2 && (await count(store, 'message', 'b@1')) > 0); i++) await new Promise((r) => setTimeout(r, 10));

    const status = (await engine.embeddingStatus())!;
    const n = async (sql: string) => Number((await store.db.query<{ n: number }>(sql))[0]!.n);
    const expected = {
      turns: { done: await count(store, 'message', 'b@1'), total: await n('SELECT count(*) AS n FROM messages') },
      facts: { done: await count(store, 'fact', 'b@1'), total: await count(store, 'fact', 'a@1') },
      episodes: { done: await count(store, 'memcell', 'b@1'), total: await count(store, 'memcell', 'a@1') },
      themes: { done: await n("SELECT count(*) AS n FROM memscenes WHERE centroid_model = 'b@1'"), total: await n('SELECT count(*) AS n FROM memscenes WHERE centroid IS NOT NULL') },
    };
    expect(expected.turns).toEqual({ done: 32, total: 43 }); // one batch of 32 of the 43 turns
    expect(expected.facts.total).toBeGreaterThan(0);
    expect(expected.themes.total).toBeGreaterThan(0);
    expect(status.kinds).toEqual(expected);

    // What the panel renders is those numbers, row by row.
    const html = renderToStaticMarkup(createElement(SwitchProgress, { kinds: status.kinds! }));
    for (const [key, k] of Object.entries(expected)) {
      const row = new RegExp(`data-testid="switch-${key}".*?data-testid="done">(\\d+)<.*?data-testid="total">(\\d+)<`).exec(html);
      expect(row?.slice(1).map(Number), key).toEqual([k.done, k.total]);
    }

    letFinish();
    await engine.idle();
    const done = (await engine.embeddingStatus())!;
    expect(done).toMatchObject({ activeModel: 'b', kinds: null });
    engine.stop();
  });
});

describe('an active model that stops loading', () => {
  /** A model in use whose files go bad later (a downloaded model): every call after that fails. */
  function breakable(id: string, topics: readonly string[], gate?: (call: number) => Promise<void>) {
    const base = synonymEmbedder(id, topics);
    const state = { broken: false, failedCalls: 0 };
    let calls = 0;
    const embedder: Embedder = {
      id: base.id,
      dim: base.dim,
      embed: async (texts, role) => {
        await gate?.(++calls);
        if (!state.broken) return base.embed(texts, role);
        state.failedCalls++;
        throw new RecollectError('MODEL_ERROR', `The downloaded files of "${id}" are damaged, so they were removed. Download it again.`);
      },
    };
    return { embedder, state };
  }
  const turnCount = async (store: Awaited<ReturnType<typeof openNodeStore>>) => Number((await store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages'))[0]!.n);

  it('switching back to the bundled model does not load the broken one first, and vectors and themes come back with it', async () => {
    const b = breakable('b@1', ['dog|puppy', 'flight', 'rent']);
    const { store, engine } = await setup(b.embedder);
    await engine.setEmbedder('b');
    await engine.idle();
    expect((await engine.embeddingStatus())!).toMatchObject({ activeModel: 'b', targetModel: 'b', state: 'idle' });

    // The files of b go bad: new turns get no vector, search by meaning and themes are off.
    b.state.broken = true;
    await engine.appendTurn({ id: 'broken1', conversationId: 'c', role: 'user', speaker: 'Ana', content: 'The rent for the flat is due on the first.', occurredAt: T0 + 120 * H });
    await engine.idle();
    expect(b.state.failedCalls).toBeGreaterThan(0);
    expect((await engine.embeddingStatus())!).toMatchObject({ activeModel: 'b', state: 'error', error: { code: 'MODEL_ERROR' } });

    // The person picks the bundled model again: the broken one is not asked for anything.
    const failedBefore = b.state.failedCalls;
    await engine.setEmbedder('a');
    expect(await engine.searchMemory('dog', { kinds: ['fact'] })).toBeDefined(); // a search during the switch
    await engine.idle();
    expect(b.state.failedCalls).toBe(failedBefore);
    const status = (await engine.embeddingStatus())!;
    expect(status).toMatchObject({ activeModel: 'a', targetModel: 'a', state: 'idle', error: null, kinds: null });
    expect(status.embedded).toBe(status.total);
    expect(await store.getMeta(META_ACTIVE)).toBe('a');
    expect(await count(store, 'message', 'a@1')).toBe(await turnCount(store)); // the turn written while broken too
    expect(await count(store, 'message', 'b@1')).toBe(0);

    // Vectors are on: a search by meaning answers from model a.
    expect((await engine.vectorSearch('dog')).map((h) => h.message.id)).toContain('t1');
    // Themes are on: a new dog episode gets model a's vector and joins the dog theme.
    const scenes = await engine.listScenes();
    await engine.appendTurn({ id: 'after', conversationId: 'c', role: 'user', speaker: 'Ana', content: 'The dog chased a ball in the park.', occurredAt: T0 + 240 * H });
    await engine.idle();
    await engine.closeOpenCells();
    await engine.idle();
    const [cell] = await store.db.query<{ id: string; scene_id: string | null }>(
      "SELECT c.id AS id, c.scene_id AS scene_id FROM memcells c JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq WHERE m.id = 'after'");
    expect(await store.getVectors('memcell', [cell!.id], 'a@1')).toHaveLength(1);
    expect(scenes.map((s) => s.id)).toContain(cell!.scene_id);
    expect(await store.db.query('SELECT DISTINCT centroid_model FROM memscenes WHERE centroid IS NOT NULL')).toEqual([{ centroid_model: 'a@1' }]);
    expect(b.state.failedCalls).toBe(failedBefore);
    engine.stop();
  });

  it('picking another model while the failing one is still being tried switches to it', async () => {
    // Loading a damaged download takes a while before it fails: the person picks the bundled model meanwhile.
    let failNow!: () => void;
    const slowFailure = new Promise<void>((r) => { failNow = r; });
    let trying!: () => void;
    const tried = new Promise<void>((r) => { trying = r; });
    const b = breakable('b@1', ['dog|puppy', 'flight', 'rent'], async () => {
      if (!b.state.broken) return;
      trying();
      await slowFailure;
    });
    const { store, engine } = await setup(b.embedder);
    await engine.setEmbedder('b');
    await engine.idle();
    b.state.broken = true;
    await engine.appendTurn({ id: 'broken1', conversationId: 'c', role: 'user', speaker: 'Ana', content: 'The rent for the flat is due on the first.', occurredAt: T0 + 120 * H });
    await tried;
    await engine.setEmbedder('a');
    failNow();
    await engine.idle();
    expect((await engine.embeddingStatus())!).toMatchObject({ activeModel: 'a', targetModel: 'a', state: 'idle', error: null });
    expect(await count(store, 'message', 'a@1')).toBe(await turnCount(store));
    engine.stop();
  });

  it('an active model that breaks during a switch does not stop the switch', async () => {
    // Model a is in use; the switch to b is under way when a's files go bad, and a turn is written.
    const a = breakable('a@1', ['dog', 'flight', 'rent']);
    let engineRef: Awaited<ReturnType<typeof setup>> | null = null;
    let broke!: () => void;
    const brokeNow = new Promise<void>((r) => { broke = r; });
    const gate = async (call: number) => {
      if (!engineRef || call !== 1) return;
      a.state.broken = true;
      broke();
      for (let i = 0; i < 500 && !(await engineRef.store.getMessage('during')); i++) await new Promise((r) => setTimeout(r, 10));
    };
    const s = await setup(synonymEmbedder('b@1', ['dog|puppy', 'flight', 'rent'], gate), a.embedder);
    await switchWithTurnDuring(s, () => { engineRef = s; }, brokeNow, 'My puppy sleeps a lot.');
    expect(a.state.failedCalls).toBeGreaterThan(0); // the catch-up asked a, which failed
    expect((await s.engine.embeddingStatus())!).toMatchObject({ activeModel: 'b', targetModel: 'b', state: 'idle', error: null });
    expect(await count(s.store, 'message', 'b@1')).toBe(await turnCount(s.store));
    expect((await s.engine.vectorSearch('dog')).map((h) => h.message.id)).toContain('during');
    s.engine.stop();
  });
});
