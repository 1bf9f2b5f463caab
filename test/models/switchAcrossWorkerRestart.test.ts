/**
 * An embedder switch survives a model-worker restart: when another model breaks the worker's ONNX
 * runtime, the page replaces the worker and the engine's link fails the calls left on the old one.
 * The target model's call cut off that way says nothing about the target, so the switch goes on
 * in the new worker instead of being abandoned (and the target must not be marked as failed).
 */
import { describe, expect, it } from 'vitest';
import { modelWorkerLink, type RemoteEmbedding } from '../../src/models/embedderProviders';
import { BUNDLED_MODEL_ID, findModel } from '../../src/models/catalog';
import { createEngine } from '../../src/host/createEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';

const TARGET = 'Xenova/all-MiniLM-L6-v2';

/** A model worker that answers every model with a vector of the catalog's dimension; `stall` keeps a model's calls waiting. */
function fakeWorker(stall?: { readonly modelId: string; readonly onCall: () => void }): RemoteEmbedding {
  return {
    async embedWith(modelId, texts) {
      if (stall && modelId === stall.modelId) {
        stall.onCall();
        return new Promise<Float32Array[]>(() => undefined); // a terminated worker never answers
      }
      const dim = findModel(modelId, 'embedder')!.dim!;
      return texts.map((t) => {
        const v = new Float32Array(dim);
        v[t.length % dim] = 1;
        return v;
      });
    },
  };
}

async function countVectors(store: Awaited<ReturnType<typeof openNodeStore>>, modelId: string): Promise<number> {
  return store.countVectors('message', findModel(modelId, 'embedder')!.vectorId);
}

describe('embedder switch across a model-worker restart', () => {
  it("goes on in the new worker when the target model's call in flight is cut off by the restart", async () => {
    const link = modelWorkerLink();
    let inFlight!: () => void;
    const targetCalled = new Promise<void>((resolve) => (inFlight = resolve));
    link.connect(fakeWorker({ modelId: TARGET, onCall: () => inFlight() }));
    const store = await openNodeStore();
    const engine = createEngine(store, { only: [], embedders: link.provider });
    await engine.start();
    await store.createConversation({ id: 'c', title: 't' });
    for (let i = 0; i < 5; i++)
      await engine.conversations.appendTurn({
        id: `m${i}`,
        conversationId: 'c',
        role: 'user',
        content: `turn number ${i} ${'x'.repeat(i)}`,
      });
    await engine.idle();
    expect(await countVectors(store, BUNDLED_MODEL_ID)).toBe(5);

    await engine.indexing.setEmbedder(TARGET);
    await targetCalled; // the target's first batch is in the old worker
    link.connect(fakeWorker()); // another model broke the old worker: the page replaced it
    await engine.idle();

    const status = await engine.indexing.embeddingStatus();
    expect(status).toMatchObject({ activeModel: TARGET, targetModel: TARGET, state: 'idle', error: null });
    expect(await countVectors(store, TARGET)).toBe(5);
    expect(await countVectors(store, BUNDLED_MODEL_ID)).toBe(0); // the old model's vectors went once the switch completed
    expect(await store.getMeta('embedder.active')).toBe(TARGET);
  });

  it('still ends the switch when the worker is replaced under it again and again', async () => {
    const link = modelWorkerLink();
    let calls = 0;
    let cut = () => undefined as void;
    const stalling = (): RemoteEmbedding =>
      fakeWorker({
        modelId: TARGET,
        onCall: () => {
          calls++;
          queueMicrotask(() => cut());
        },
      });
    link.connect(stalling());
    const store = await openNodeStore();
    const engine = createEngine(store, { only: [], embedders: link.provider });
    await engine.start();
    await store.createConversation({ id: 'c', title: 't' });
    await engine.conversations.appendTurn({ id: 'm0', conversationId: 'c', role: 'user', content: 'one turn' });
    await engine.idle();

    // Every worker the target's call reaches is replaced while the call waits: no pass can finish.
    cut = () => link.connect(stalling());
    await engine.indexing.setEmbedder(TARGET);
    await engine.idle();

    const status = await engine.indexing.embeddingStatus();
    expect(calls).toBe(4); // the first pass and three more, then the failure counts
    expect(status).toMatchObject({ activeModel: BUNDLED_MODEL_ID, targetModel: BUNDLED_MODEL_ID });
    expect(status!.error!.message).toMatch(/Switching to "Xenova\/all-MiniLM-L6-v2" failed/);
  });
});
