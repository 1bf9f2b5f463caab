/**
 * The reranker a user picks in Settings → Models reaches recall (and so answers), wired as the app
 * wires it: the model worker's ModelService exposed over a message port (Comlink, resultified), the
 * engine's model provider on the other end (remoteEmbedderProvider), an engine from createEngine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Comlink from 'comlink';
import { ModelService } from '../../src/models/ModelService';
import { remoteEmbedderProvider } from '../../src/models/embedderProviders';
import { BUNDLED_MODEL_ID } from '../../src/models/catalog';
import { resultify, unwrapRemote, type ModelWorkerApi } from '../../src/core/protocol';
import { createEngine } from '../../src/host/createEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import type { ModelPlatform } from '../../src/models/transformersEnv';
import { setUpOfflineModels } from './helpers';

let platform: ModelPlatform;
const channels: MessageChannel[] = [];
beforeAll(() => {
  platform = setUpOfflineModels();
}, 60_000);
afterAll(() => {
  for (const c of channels) {
    c.port1.close();
    c.port2.close();
  }
});

describe('reranker chosen in Models', () => {
  it('is used by MemoryEngine.recall through the model worker port, and stops when set to None', async () => {
    const service = new ModelService({ platform });
    const channel = new MessageChannel();
    channels.push(channel);
    Comlink.expose(resultify(service), channel.port1 as unknown as Comlink.Endpoint);
    const provider = remoteEmbedderProvider(unwrapRemote<ModelWorkerApi>(Comlink.wrap(channel.port2 as unknown as Comlink.Endpoint)));

    const store = await openNodeStore();
    const engine = createEngine(store, { only: ['recall'], embedders: provider });
    await engine.start();
    await engine.conversations.create({ id: 'c', title: 't' });
    const lines = [
      'I adopted a grey cat called Miso last spring.',
      'The cat sleeps on the radiator all winter.',
      'We drove to the coast and the cat stayed home.',
      'My sister has a dog, not a cat.',
      'Weather was cold, the cat hid under the bed.',
    ];
    await engine.conversations.appendTurns(
      lines.map((content, i) => ({
        id: `t${i}`,
        conversationId: 'c',
        role: 'user' as const,
        speaker: 'User',
        content,
        occurredAt: Date.UTC(2024, 0, 1, 10, i),
      })),
    );
    await engine.idle();

    const before = await engine.answers.recall('What is my cat called?', { limit: 5 });
    expect(before.turns.length).toBeGreaterThan(1);
    expect(before.turns.every((t) => t.rerankScore === undefined && !t.reasons.includes('rerank'))).toBe(true);

    await service.loadReranker(BUNDLED_MODEL_ID); // what the Models panel's "Use" does
    // The engine's provider hands recall the chosen model with its catalog trust, scoring over the port.
    const chosen = await provider.activeReranker!();
    expect(chosen?.id).toBe(BUNDLED_MODEL_ID);
    expect(chosen?.trust).toBe(0);
    const scores = await chosen!.rerank('cat name', ['Miso the cat', 'the weather']);
    expect(scores).toHaveLength(2);
    expect(scores.every(Number.isFinite)).toBe(true);
    // Trust 0 (the stand-in cannot help): recall keeps the fused order and does not ask it.
    const after = await engine.answers.recall('What is my cat called?', { limit: 5 });
    expect(after.turns.map((t) => t.message.id)).toEqual(before.turns.map((t) => t.message.id));
    expect(after.turns.some((t) => t.rerankScore !== undefined)).toBe(false);
    // The same port with a trusted reranker (as a cross-encoder's catalog entry gives) reranks.
    const trusted = createEngine(store, {
      only: ['recall'],
      embedders: { ...provider, activeReranker: async () => ({ ...chosen!, trust: 1 }) },
    });
    await trusted.start();
    await trusted.idle(); // the reranker joins recall with the vectors, after the open's warm-up
    const reranked = await trusted.answers.recall('What is my cat called?', { limit: 5 });
    for (const t of reranked.turns) {
      expect(t.reasons).toContain('rerank');
      expect(typeof t.rerankScore).toBe('number');
    }
    trusted.stop();

    await service.loadReranker(null); // "None"
    const off = await engine.answers.recall('What is my cat called?', { limit: 5 });
    expect(off.turns.map((t) => t.message.id)).toEqual(before.turns.map((t) => t.message.id));
    expect(off.turns.some((t) => t.rerankScore !== undefined)).toBe(false);
    engine.stop();
    await store.db.close();
  }, 60_000);
});
