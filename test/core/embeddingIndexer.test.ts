import { describe, expect, it, vi } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { RecollectError } from '../../src/core/base/errors';
import type { Embedder, EmbedderProvider, EmbedRole } from '../../src/core/base/ports';
import { META_ACTIVE, META_TARGET } from '../../src/core/capture/embeddingStatus';
import { createEngine } from '../../src/host/createEngine';

/** A deterministic bag-of-letters embedder: texts sharing letters are close. */
function letterEmbedder(id: string, dim: number, calls: string[][], gate?: () => Promise<void>): Embedder {
  return {
    id,
    dim,
    async embed(texts: readonly string[], _role?: EmbedRole) {
      calls.push([...texts]);
      if (gate) await gate();
      return texts.map((t) => {
        const v = new Float32Array(dim);
        for (const ch of t.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[(ch.charCodeAt(0) - 97) % dim]! += 1;
        const n = Math.hypot(...v);
        return n > 0 ? v.map((x) => x / n) : v;
      });
    },
  };
}

function provider(models: Record<string, Embedder>): EmbedderProvider {
  return {
    defaultModelId: 'a',
    embedder(id) {
      const e = models[id];
      if (!e) throw new RecollectError('MODEL_UNAVAILABLE', `no model ${id}`);
      return e;
    },
  };
}

async function setup(models: Record<string, Embedder>) {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: [], embedders: provider(models) });
  await store.createConversation({ id: 'c', title: 't' });
  return { store, engine };
}

async function addTurns(engine: MemoryEngine, texts: string[]) {
  for (const [i, content] of texts.entries()) await engine.appendTurn({ id: `m${i}`, conversationId: 'c', role: 'user', content });
}

describe('EmbeddingIndexer via MemoryEngine', () => {
  it('embeds every appended turn in the background and searches by vector', async () => {
    const calls: string[][] = [];
    const { store, engine } = await setup({ a: letterEmbedder('a@1', 26, calls) });
    await engine.start();
    await addTurns(engine, ['zzz zebra', 'apple banana', 'quick quiz']);
    await engine.idle();
    expect(await store.countVectors('message', 'a@1')).toBe(3);
    expect(await engine.embeddingStatus()).toMatchObject({ activeModel: 'a', targetModel: 'a', embedded: 3, total: 3, state: 'idle' });
    const hits = await engine.vectorSearch('zebra zoo');
    expect(hits[0]!.message.content).toBe('zzz zebra');
    expect(hits[0]!.score).toBeGreaterThan(hits[1]?.score ?? 0);
    // Deleted turns leave the index at once.
    await engine.deleteMessage('m0');
    expect((await engine.vectorSearch('zebra zoo')).map((h) => h.message.id)).not.toContain('m0');
    expect(await store.countVectors('message', 'a@1')).toBe(2);
  });

  it('switches models in the background without losing any item, searching the old vectors until done', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { store, engine } = await setup({ a: letterEmbedder('a@1', 26, []), b: letterEmbedder('b@1', 13, [], () => gate) });
    await engine.start();
    await addTurns(engine, Array.from({ length: 70 }, (_, i) => `turn ${i} ${'xyz'.repeat(i % 3)}`));
    await engine.idle();

    const status = await engine.setEmbedder('b');
    expect(status).toMatchObject({ activeModel: 'a', targetModel: 'b', embedded: 0, total: 70 });
    expect(await store.getMeta(META_TARGET)).toBe('b');
    // While b is blocked, retrieval still answers from a's vectors.
    expect(await engine.vectorSearch('turn xyz')).toHaveLength(20); // a full default page of the 70 turns
    expect(await store.getMeta(META_ACTIVE)).toBe('a');

    release();
    await engine.idle();
    expect(await engine.embeddingStatus()).toMatchObject({ activeModel: 'b', targetModel: 'b', embedded: 70, total: 70, state: 'idle' });
    expect(await store.getMeta(META_ACTIVE)).toBe('b');
    expect(await store.countVectors('message', 'b@1')).toBe(70);
    expect(await store.countVectors('message', 'a@1')).toBe(0);
    const ids = new Set((await store.loadVectors('message', 'b@1')).map((v) => v.itemId));
    for (let i = 0; i < 70; i++) expect(ids.has(`m${i}`)).toBe(true);
    expect(await engine.vectorSearch('turn xyz')).toHaveLength(20); // a full default page of the 70 turns
  });

  it('resumes unfinished embedding when the engine is reopened', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls: string[][] = [];
    const { store, engine } = await setup({ a: letterEmbedder('a@1', 26, calls, () => gate) });
    await engine.start();
    await addTurns(engine, ['one', 'two', 'three']);
    engine.stop(); // the tab closes while the first batch is in flight
    release();
    await engine.idle();
    expect(await store.countVectors('message', 'a@1')).toBe(0);

    const reopened = createEngine(store, { only: [], embedders: provider({ a: letterEmbedder('a@1', 26, calls) }) });
    await reopened.start();
    await reopened.idle();
    expect(await store.countVectors('message', 'a@1')).toBe(3);
  });

  it('reports an unavailable model in the status instead of failing writes, and recovers', async () => {
    const models: Record<string, Embedder> = { a: letterEmbedder('a@1', 26, []) };
    const { store, engine } = await setup(models);
    await engine.start();
    await addTurns(engine, ['hello there']);
    await engine.idle();
    await expect(engine.setEmbedder('missing')).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    expect(await store.getMeta(META_TARGET)).toBe('a');

    // A known model whose files are not on this device fails while embedding: the switch is
    // abandoned (the target goes back to the working model, also in the database, so the next open
    // does not try again), the status says why, and the active model keeps embedding new turns.
    let failedCalls = 0;
    models.missing = {
      id: 'missing@1', dim: 8,
      embed: async () => { failedCalls++; throw new RecollectError('MODEL_UNAVAILABLE', 'not downloaded'); },
    };
    await engine.setEmbedder('missing');
    await engine.idle();
    const failed = await engine.embeddingStatus();
    expect(failed).toMatchObject({ activeModel: 'a', targetModel: 'a', state: 'idle', error: { code: 'MODEL_UNAVAILABLE' } });
    expect(failed!.error!.message).toMatch(/Switching to "missing" failed, so search keeps using "a"/);
    expect(await store.getMeta(META_TARGET)).toBe('a');
    const callsAfterFailure = failedCalls;
    await engine.appendTurn({ id: 'during', conversationId: 'c', role: 'user', content: 'written while broken' });
    await engine.idle();
    expect(failedCalls).toBe(callsAfterFailure); // not retried
    expect(await store.countVectors('message', 'a@1')).toBe(2); // the new turn has a vector
    expect(await store.countVectors('message', 'missing@1')).toBe(0);
    expect((await engine.vectorSearch('hello')).map((h) => h.message.id)).toContain('m0');

    // A reopened database does not retry the failed model either.
    const reopened = createEngine(store, { only: [], embedders: provider(models) });
    await reopened.start();
    await reopened.idle();
    expect(failedCalls).toBe(callsAfterFailure);
    expect(await reopened.embeddingStatus()).toMatchObject({ activeModel: 'a', targetModel: 'a', state: 'idle', error: null });
    reopened.stop();

    // Once the model is there, switching again completes.
    models.missing = letterEmbedder('missing@1', 8, []);
    await engine.setEmbedder('missing');
    await engine.appendTurn({ id: 'late', conversationId: 'c', role: 'user', content: 'late turn' });
    await engine.idle();
    expect(await store.countVectors('message', 'missing@1')).toBe(3);
    expect(await engine.embeddingStatus()).toMatchObject({ activeModel: 'missing', state: 'idle', error: null });
  });

  it('loads the model and the vector index at start, before any search asks for them', async () => {
    const store = await openNodeStore();
    const roles: (string | undefined)[] = [];
    const base = letterEmbedder('a@1', 26, []);
    const model: Embedder = { ...base, embed: (texts, role) => (roles.push(role), base.embed(texts, role)) };
    await store.createConversation({ id: 'c', title: 't' });
    await store.appendTurns([{ id: 'm0', conversationId: 'c', role: 'user', content: 'already stored' }]);
    await store.putVectors('message', 'a@1', [{ itemId: 'm0', vector: await base.embed(['already stored']).then((v) => v[0]!) }]);
    const loads: string[] = [];
    const watched = new Proxy(store, {
      get: (target, key, receiver) => (key === 'loadVectors' ? (kind: string, m: string) => (loads.push(`${kind}:${m}`), target.loadVectors(kind as 'message', m)) : Reflect.get(target, key, receiver)),
    });
    const engine = createEngine(watched, { only: [], embedders: provider({ a: model }) });
    await engine.start();
    await engine.idle();
    expect(roles).toContain('query');
    expect(loads).toEqual(['message:a@1']);
  });

  it('keeps the model busy: the next batch is embedding while the previous one is written', async () => {
    const store = await openNodeStore();
    const storedAtCall: Promise<number>[] = [];
    const base = letterEmbedder('a@1', 26, []);
    const model: Embedder = {
      ...base,
      embed(texts, role) {
        // Queued on the connection now, so it sees what was written before this call. (The
        // start-up warm-up embeds a query; only document batches count here.)
        if (role === 'document') storedAtCall.push(store.countVectors('message', 'a@1'));
        return base.embed(texts, role);
      },
    };
    const engine = createEngine(store, { only: [], embedders: provider({ a: model }) });
    await store.createConversation({ id: 'c', title: 't' });
    await engine.appendTurns(Array.from({ length: 70 }, (_, i) => ({ id: `m${i}`, conversationId: 'c', role: 'user' as const, content: `turn number ${i}` })));
    await engine.start();
    await engine.idle();
    expect(await store.countVectors('message', 'a@1')).toBe(70);
    // Three batches of 32: the second and third were asked for before the batch ahead was stored.
    expect(await Promise.all(storedAtCall)).toEqual([0, 0, 32]);
  });

  it('reads pending items from a cursor, and deletes other models\' vectors once per open or switch, not every pass', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 't' });
    for (const id of ['x1', 'x2', 'x3']) await store.appendTurn({ id, conversationId: 'c', role: 'user', content: `text ${id}` });
    const all = await store.pendingEmbeddings('message', 'a@1', 10);
    expect(all.map((p) => p.itemId)).toEqual(['x1', 'x2', 'x3']);
    expect((await store.pendingEmbeddings('message', 'a@1', 10, all[0]!.key)).map((p) => p.itemId)).toEqual(['x2', 'x3']);
    expect(await store.pendingEmbeddings('message', 'a@1', 10, all[2]!.key)).toEqual([]);

    // A vector of a model no longer in use (say from an imported file): dropped when the engine opens…
    await store.putVectors('message', 'gone@1', [{ itemId: 'x1', vector: new Float32Array([1, 0]) }]);
    const engine = createEngine(store, { only: [], embedders: provider({ a: letterEmbedder('a@1', 26, []) }) });
    await engine.start();
    await engine.idle();
    expect(await store.countVectors('message', 'gone@1')).toBe(0);
    // …but not on every pass: one written after the open survives the passes that follow.
    await store.putVectors('message', 'gone@1', [{ itemId: 'x2', vector: new Float32Array([1, 0]) }]);
    for (let i = 0; i < 3; i++) {
      await engine.appendTurn({ id: `later${i}`, conversationId: 'c', role: 'user', content: 'another pass' });
      await engine.idle();
    }
    expect(await store.countVectors('message', 'a@1')).toBe(6);
    expect(await store.countVectors('message', 'gone@1')).toBe(1);
  });

  it('after the first full sweep, new turns, a gap behind its back and a count mismatch are all embedded, with exact counts', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 't' });
    await store.appendTurns(Array.from({ length: 40 }, (_, i) => ({ id: `old${i}`, conversationId: 'c', role: 'user' as const, content: `old turn ${i}` })));
    const all = await store.pendingEmbeddings('message', 'a@1', 100);
    expect(await store.newestPendingKey('message', 'a@1', 3)).toBe(all[37]!.key);
    expect(await store.newestPendingKey('message', 'a@1', 100)).toBe(all[0]!.key);

    const engine = createEngine(store, { only: [], embedders: provider({ a: letterEmbedder('a@1', 26, []) }) });
    await engine.start();
    await engine.idle();
    expect(await store.newestPendingKey('message', 'a@1', 5)).toBe(Number.MAX_SAFE_INTEGER);
    await engine.appendTurn({ id: 'new1', conversationId: 'c', role: 'user', content: 'a new turn' });
    await engine.idle();
    expect(await store.countVectors('message', 'a@1')).toBe(41);
    expect(await engine.embeddingStatus()).toMatchObject({ embedded: 41, total: 41, state: 'idle' });

    // A vector lost behind the indexer's back (an old turn) counts as missing: the next pass finds it.
    await store.db.exec("DELETE FROM vectors WHERE item_id = 'old5'");
    await engine.appendTurn({ id: 'new2', conversationId: 'c', role: 'user', content: 'another new turn' });
    await engine.idle();
    expect(await store.countVectors('message', 'a@1')).toBe(42);
    expect((await store.pendingEmbeddings('message', 'a@1', 10)).map((p) => p.itemId)).toEqual([]);
    expect(await engine.embeddingStatus()).toMatchObject({ embedded: 42, total: 42, state: 'idle' });

    // If the counts still disagree after the tail (say a turn arrived meanwhile), everything is swept once more.
    await store.db.exec("DELETE FROM vectors WHERE item_id IN ('old1', 'old2')");
    const countItems = store.countItems.bind(store);
    vi.spyOn(store, 'countItems').mockImplementationOnce(countItems).mockImplementationOnce(async (kind) => (await countItems(kind)) + 1);
    await engine.appendTurn({ id: 'new3', conversationId: 'c', role: 'user', content: 'third new turn' });
    await engine.idle();
    expect(await store.countVectors('message', 'a@1')).toBe(43);
    expect(await engine.embeddingStatus()).toMatchObject({ embedded: 43, total: 43, state: 'idle' });
  });

  it('stores no vector for a turn deleted while it was being embedded, and drops such vectors from imported files', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 't' });
    const engine = createEngine(store, { only: [], embedders: provider({ a: letterEmbedder('a@1', 26, [], () => gate) }) });
    await engine.start();
    await engine.appendTurns([{ id: 'keep', conversationId: 'c', role: 'user', content: 'keep me' }, { id: 'gone', conversationId: 'c', role: 'user', content: 'delete me' }]);
    await engine.deleteMessage('gone'); // while its batch is in the model
    release();
    await engine.idle();
    expect(await store.db.query("SELECT item_id FROM vectors WHERE item_kind = 'message'")).toEqual([{ item_id: 'keep' }]);

    // An orphan vector in an imported file goes in the first pass after open.
    await store.db.exec("INSERT INTO vectors VALUES ('message', 'ghost', 'a@1', 2, 'f32', x'0000803f00000000', 1)");
    const reopened = createEngine(store, { only: [], embedders: provider({ a: letterEmbedder('a@1', 26, []) }) });
    await reopened.start();
    await reopened.idle();
    expect(await store.db.query("SELECT item_id FROM vectors WHERE item_kind = 'message'")).toEqual([{ item_id: 'keep' }]);
  });
});
