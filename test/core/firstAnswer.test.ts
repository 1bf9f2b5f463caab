/**
 * The first question after opening never waits for the warm-up: while the embedding model and the
 * vector index are still loading, recall answers from keywords; once they are ready it adds
 * vectors. The model here is held back by a gate that the test opens only after the answer came,
 * so an answer that waited for the model would never arrive (and the test would time out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { LlmClient } from '../../src/llm/LlmClient';
import type { Embedder, EmbedderProvider } from '../../src/core/base/ports';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { topicEmbedder } from '../support/topicEmbedder';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'Biscuit is a beagle mix [1].' });
});
afterAll(async () => mock.close());

const TOPICS = ['dog', 'flight', 'rent'];

/** The topic embedder behind a gate: every embed waits until `open()` (a model still loading). */
function gatedProvider() {
  const inner = topicEmbedder(TOPICS);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const calls: { readonly texts: readonly string[]; readonly role: string | undefined }[] = [];
  const embedder: Embedder = {
    id: inner.id,
    dim: inner.dim,
    embed: async (texts, role) => {
      calls.push({ texts: [...texts], role });
      await gate;
      return inner.embed(texts, role);
    },
  };
  const provider: EmbedderProvider = { defaultModelId: 'topic', embedder: () => embedder };
  return { provider, open, calls: () => calls };
}

describe('the first answer after opening', () => {
  it('comes from keyword recall while the model warms up, and uses vectors once it is ready', async () => {
    const store = await openNodeStore();
    // Yesterday's session: turns stored and embedded.
    const before = createEngine(store, {
      only: ['recall'],
      llm: null,
      embedders: { defaultModelId: 'topic', embedder: () => topicEmbedder(TOPICS) },
    });
    await before.start();
    await before.conversations.create({ id: 'y', title: 'Pets' });
    await before.conversations.create({ id: 'c', title: 'Today' });
    // Another conversation: turns of the asking one's recent history are sent as history, not recalled.
    await before.conversations.appendTurns([
      { id: 'u1', conversationId: 'y', role: 'user', content: 'My dog Biscuit is a beagle mix.', occurredAt: Date.UTC(2026, 0, 3) },
      { id: 'u2', conversationId: 'y', role: 'user', content: 'The flight to Lisbon leaves at noon.', occurredAt: Date.UTC(2026, 0, 3, 1) },
    ]);
    await before.idle();
    before.stop();

    // Opening today: the model is still loading when the question comes.
    const gated = gatedProvider();
    const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { sink: store.llmCalls, maxAttempts: 1 });
    const engine = createEngine(store, { only: ['recall'], llm, embedders: gated.provider });
    await engine.start();
    await engine.conversations.appendTurn({ id: 'q1', conversationId: 'c', role: 'user', content: 'What breed is my dog Biscuit?' });
    const result = await engine.answers.ask({ conversationId: 'c', userMessageId: 'q1', answerId: 'a1' }, () => undefined);
    expect(result.answer.citations[0]).toMatchObject({ kind: 'turn', ref: 'u1' });
    const stored = async (id: string) =>
      (await store.listMessages('c')).find((m) => m.id === id)?.metadata as { recall?: string } | undefined;
    expect((await stored('a1'))?.recall).toBe('keywords'); // the answer says how memory was read
    const early = await engine.answers.recall('my pet');
    expect(early.turns.flatMap((t) => t.reasons)).not.toContain('vector');
    // The only query the model was given is the warm-up, still held: neither question waited for it
    // (the new turns themselves may be queued for their vectors meanwhile).
    expect(
      gated
        .calls()
        .filter((c) => c.role === 'query')
        .map((c) => c.texts),
    ).toEqual([['warm up']]);

    gated.open();
    await engine.idle();
    const later = await engine.answers.recall('my dog');
    expect(later.turns.find((t) => t.message.id === 'u1')?.reasons).toContain('vector');
    await engine.conversations.appendTurn({ id: 'q2', conversationId: 'c', role: 'user', content: 'And where does my flight go?' });
    await engine.answers.ask({ conversationId: 'c', userMessageId: 'q2', answerId: 'a2' }, () => undefined);
    expect(await stored('a2')).toBeDefined();
    expect((await stored('a2'))?.recall).toBeUndefined();
    engine.stop();
  });
});
