import { describe, expect, it } from 'vitest';
import { ForegroundReads } from '../../src/core/base/foregroundReads';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { longTurnExport } from '../support/longTurnExport';
import type { Embedder, EmbedderProvider } from '../../src/core/base/ports';
import { TrailingIndex } from '../../src/core/engine/trailingIndex';

/** Lets the event loop run `n` times (the import yields a macrotask after each transaction). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

describe('foreground reads go before background writes', () => {
  it('whenIdle resolves at once when no read is in flight, else after the last one ends', async () => {
    const reads = new ForegroundReads();
    const order: string[] = [];
    await reads.whenIdle().then(() => order.push('idle at once'));
    let endA!: () => void;
    let endB!: () => void;
    const a = reads.run(() => new Promise<void>((r) => (endA = r))).then(() => order.push('read a'));
    const b = reads.run(() => new Promise<void>((r) => (endB = r))).then(() => order.push('read b'));
    expect(reads.busy).toBe(true);
    const writer = reads.whenIdle().then(() => order.push('write'));
    await turns(3);
    endA();
    await a;
    await turns(3);
    expect(order).toEqual(['idle at once', 'read a']); // one read still in flight: the write waits
    order.push('b ends');
    endB();
    await Promise.all([b, writer]);
    expect(order.slice(0, 3)).toEqual(['idle at once', 'read a', 'b ends']);
    expect(order.slice(3).sort()).toEqual(['read b', 'write']);
    expect(reads.busy).toBe(false);
  });

  it('a read that follows another within the linger (the page searches, then recalls) keeps the writer waiting for both', async () => {
    const reads = new ForegroundReads({ lingerMs: 200 });
    const order: string[] = [];
    await reads.run(async () => {
      order.push('search');
    });
    // The search has answered; the page's recall is on its way: a writer asking now must not slip in between.
    expect(reads.busy).toBe(true);
    const writer = reads.whenIdle().then(() => order.push('write'));
    await turns(1);
    let answer!: () => void;
    const recall = reads.run(() => new Promise<void>((r) => (answer = r)));
    await turns(20);
    expect(order).toEqual(['search']);
    order.push('recall answers');
    answer();
    await recall;
    await writer;
    expect(order).toEqual(['search', 'recall answers', 'write']);
    expect(reads.busy).toBe(false);
  });

  it('a read that fails still lets the writers go', async () => {
    const reads = new ForegroundReads();
    let fail!: (e: Error) => void;
    const read = reads.run(() => new Promise<void>((_, reject) => (fail = reject)));
    const writer = reads.whenIdle();
    fail(new Error('model worker gone'));
    await expect(read).rejects.toThrow('model worker gone');
    await writer;
    expect(reads.busy).toBe(false);
  });

  it('never starves background work: a writer goes after maxWaitMs even while a read is still in flight', async () => {
    const reads = new ForegroundReads();
    let end!: () => void;
    const read = reads.run(() => new Promise<void>((r) => (end = r)));
    const order: string[] = [];
    await reads.whenIdle(5).then(() => order.push('write'));
    expect(reads.busy).toBe(true);
    end();
    await read;
    expect(order).toEqual(['write']);
  });

  it("a history import does not store a batch while a recall's question is being embedded; it goes on once the recall answered", async () => {
    const store = await openNodeStore();
    let releaseQuery: (() => void) | null = null;
    let queryAsked!: () => void;
    const asked = new Promise<void>((r) => (queryAsked = r));
    const embedder: Embedder = {
      id: 'a@1',
      dim: 2,
      async embed(texts, role) {
        // The question's embedding (a model-worker round trip in the app) is held until the test lets it go.
        if (role === 'query' && texts[0] === 'garden question') {
          queryAsked();
          await new Promise<void>((r) => (releaseQuery = r));
        }
        return texts.map(() => new Float32Array([1, 0]));
      },
    };
    const embedders: EmbedderProvider = { defaultModelId: 'a', embedder: () => embedder };
    const engine = createEngine(store, { only: ['episodes', 'recall'], embedders });
    await engine.start();
    await engine.idle();
    const order: string[] = [];
    const stored = async () => Number((await store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages'))[0]?.n ?? 0);

    const importing = engine.data.importHistory(longTurnExport(6), { format: 'chatgpt', importId: 'i', policy: 'off' }).then((r) => {
      order.push('import done');
      return r;
    });
    // Let the import store its first batches, then ask a question while it runs.
    while ((await stored()) === 0) await turns(1);
    const recalling = engine.answers.recall('garden question').then(() => order.push('recall answered'));
    await asked;
    const before = await stored();
    // Many turns of the event loop: before, the import queued its next transactions meanwhile.
    await turns(50);
    expect(await stored()).toBe(before);
    expect(order).toEqual([]);
    releaseQuery!();
    await recalling;
    const report = await importing;
    expect(order).toEqual(['recall answered', 'import done']);
    expect(report.turns).toBe(60);
    expect(await stored()).toBe(60);
    await engine.idle();
    await store.db.close();
  });

  it('the turn index that trails an import takes no step while a recall is in flight', async () => {
    const reads = new ForegroundReads();
    let backlog = 1_200;
    const steps: string[] = [];
    const trailing = new TrailingIndex({
      backlog: async () => backlog,
      indexSome: async (max) => {
        steps.push('step');
        backlog = Math.max(0, backlog - max);
        return backlog;
      },
      countTurns: async () => 1_200,
      embedding: () => null,
      pauseEmbedding: () => () => undefined,
      kickEmbedding: () => undefined,
      episodesBusy: () => false,
      onStatus: () => undefined,
      readsFirst: () => reads.whenIdle(),
    });
    let answer!: () => void;
    const recall = reads.run(() => new Promise<void>((r) => (answer = r)));
    trailing.kick();
    await turns(30);
    expect(steps).toEqual([]);
    steps.push('recall answered');
    answer();
    await recall;
    await trailing.idle();
    expect(steps).toEqual(['recall answered', 'step', 'step', 'step']);
    expect(backlog).toBe(0);
  });
});
