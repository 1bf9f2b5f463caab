import { beforeAll, describe, expect, it } from 'vitest';
import { fetchCalls, setUpOfflineModels } from './helpers';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { localEmbedderProvider } from '../../src/models/localEmbedderProvider';
import type { ModelPlatform } from '../../src/models/transformersEnv';
import { createEngine } from '../../src/host/createEngine';

let platform: ModelPlatform;
beforeAll(() => {
  platform = setUpOfflineModels();
});

describe('engine + bundled offline embedder (Node, onnxruntime-node)', () => {
  it('embeds stored turns and finds them by meaning, without the network', async () => {
    const store = await openNodeStore();
    const engine = createEngine(store, { only: [], embedders: localEmbedderProvider(platform) });
    await engine.start();
    await store.createConversation({ id: 'c', title: 'life' });
    const turns = [
      'I adopted a puppy from the shelter last weekend.',
      'The quarterly earnings report shows revenue fell sharply.',
      'We are repainting the kitchen a pale green colour.',
      'My flight to Tokyo leaves on Tuesday morning.',
    ];
    for (const [i, content] of turns.entries())
      await engine.conversations.appendTurn({ id: `t${i}`, conversationId: 'c', role: 'user', content });
    await engine.idle();
    expect(await engine.indexing.embeddingStatus()).toMatchObject({
      activeModel: 'recollect/glove-100d-sif',
      embedded: 4,
      total: 4,
      state: 'idle',
    });

    const dog = await engine.answers.vectorSearch('my new dog');
    expect(dog[0]!.message.id).toBe('t0');
    const travel = await engine.answers.vectorSearch('airplane trip to Japan');
    expect(travel[0]!.message.id).toBe('t3');
    // No known word: no NaN, no crash, no results.
    expect(await engine.answers.vectorSearch('qwxzzy blorf')).toEqual([]);
    expect(fetchCalls).toEqual([]);
  });
});
