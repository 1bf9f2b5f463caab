import { describe, expect, it } from 'vitest';
import { modelWorkerLink, type RemoteEmbedding } from '../../src/models/embedderProviders';
import { isWorkerReplaced } from '../../src/core/base/swappableRemote';
import { BUNDLED_MODEL_ID } from '../../src/models/catalog';
import { MODEL_WORKER_STOPPED_MESSAGE } from '../../src/core/protocol';

const silent: RemoteEmbedding = { embedWith: () => new Promise(() => undefined) };
const answering: RemoteEmbedding = { embedWith: async (_m, texts) => texts.map(() => new Float32Array([1, 0])) };

describe("the engine's link to a model worker that died", () => {
  it('fails the embedding left waiting on the dead worker, saying why, and the next one reaches the new worker', async () => {
    const link = modelWorkerLink();
    link.connect(silent);
    const embedder = link.provider.embedder(BUNDLED_MODEL_ID);
    const waiting = embedder.embed(['a question'], 'query');
    link.connect(answering, 'stopped');
    const err = await waiting.catch((e: unknown) => e);
    expect((err as Error).message).toBe(MODEL_WORKER_STOPPED_MESSAGE);
    // A caller that can ask again (the indexer, a switch) does so on the new worker.
    expect(isWorkerReplaced(err)).toBe(true);
    await expect(embedder.embed(['again'], 'query')).resolves.toHaveLength(1);
  });
});
