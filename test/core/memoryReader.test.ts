/**
 * The memory reader: one query embedding per answer (turns, facts and episodes share it), and
 * "Remember this conversation" off as a retrieval scope, so an answer's turn budget is filled with
 * remembered turns however many forgotten ones match better.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbedRole, EmbedderProvider } from '../../src/core/base/ports';
import { createEngine } from '../../src/host/createEngine';
import { LlmClient } from '../../src/llm/LlmClient';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { topicEmbedder } from '../support/topicEmbedder';
import { MemoryReader } from '../../src/core/recall/MemoryReader';
import { SqlRetrievalSource } from '../../src/storage/retrievalSource';
import { boundSource as bound } from '../support/boundSource';
import type { RetrievalSource } from '../../src/core/recall/Retriever';
import type { SemanticIndex } from '../../src/core/capture/SemanticIndex';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'An answer.' });
});
afterAll(async () => mock.close());

/** The topic embedder, recording every text embedded with its role. */
function countingProvider(): EmbedderProvider & { calls: { role: EmbedRole | undefined; texts: readonly string[] }[] } {
  const inner = topicEmbedder(['biscuit', 'garden']);
  const calls: { role: EmbedRole | undefined; texts: readonly string[] }[] = [];
  const embedder = {
    id: inner.id,
    dim: inner.dim,
    embed: (texts: readonly string[], role?: EmbedRole) => {
      calls.push({ role, texts });
      return inner.embed(texts, role);
    },
  };
  return { defaultModelId: 'topic', embedder: () => embedder, calls };
}

async function setup() {
  const store = await openNodeStore();
  const embedders = countingProvider();
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { sink: store.llmCalls, maxAttempts: 1 });
  const engine = createEngine(store, { embedders, llm });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  return { store, engine, embedders };
}

describe('MemoryReader', () => {
  it('embeds the question once per answer, for turns, facts and episodes together', async () => {
    const { engine, embedders } = await setup();
    await engine.conversations.create({ id: 'c', title: 'pets' });
    await engine.conversations.appendTurn({
      id: 'u1',
      conversationId: 'c',
      role: 'user',
      speaker: 'You',
      content: 'My dog Biscuit is a beagle mix.',
    });
    await engine.conversations.appendTurn({
      id: 'u2',
      conversationId: 'c',
      role: 'user',
      speaker: 'You',
      content: 'What breed is my dog Biscuit?',
    });
    await engine.idle();
    embedders.calls.length = 0;
    await engine.answers.ask({ conversationId: 'c', userMessageId: 'u2', answerId: 'a1' }, () => undefined);
    const queries = embedders.calls.filter((c) => c.role === 'query');
    expect(queries).toEqual([{ role: 'query', texts: ['What breed is my dog Biscuit?'] }]);
  });

  it('leaves conversations that are not remembered out of the candidates, so the budget is filled with remembered turns', async () => {
    const { store, engine } = await setup();
    await engine.conversations.create({ id: 'secret', title: 'secret', remember: false });
    await engine.conversations.create({ id: 'pets', title: 'pets' });
    // Short, dense turns that out-rank the remembered ones by far: filtering after recall would
    // leave no remembered turn in the top of the list.
    await engine.conversations.appendTurns(
      Array.from({ length: 150 }, (_, i) => ({
        id: `s${i}`,
        conversationId: 'secret',
        role: 'user' as const,
        speaker: 'You',
        content: `Biscuit biscuit secret ${i}`,
      })),
    );
    await engine.conversations.appendTurns(
      Array.from({ length: 30 }, (_, i) => ({
        id: `p${i}`,
        conversationId: 'pets',
        role: 'user' as const,
        speaker: 'You',
        content: `Note ${i} about the long walk in the park, the weather, the neighbours and what Biscuit found there.`,
      })),
    );
    await engine.conversations.appendTurn({
      id: 'q',
      conversationId: 'pets',
      role: 'user',
      speaker: 'You',
      content: 'Tell me about Biscuit',
    });
    await engine.idle();
    await engine.answers.ask({ conversationId: 'pets', userMessageId: 'q', answerId: 'a' }, () => undefined);
    const sent = JSON.stringify((await store.getMessage('a'))!.metadata.requests);
    expect(sent).not.toContain('secret');
    const remembered = new Set(sent.match(/Note \d+ about/g) ?? []);
    expect(remembered.size).toBeGreaterThanOrEqual(10);
  });

  it('asks for the embedding, the reranker and the speakers together, and runs the keyword query before the embedding arrives', async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: 'c' });
    await store.appendTurns([
      { id: 't', conversationId: 'c', role: 'user', speaker: 'Ann', content: 'Biscuit dug up the garden', occurredAt: 1 },
    ]);
    const asked: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The embedding is slow (a model worker busy elsewhere): the other reads must not wait behind it.
    const embedder = {
      id: 'e',
      dim: 2,
      embed: async () => {
        asked.push('embed');
        await gate;
        return [new Float32Array([1, 0])];
      },
    };
    // The keyword query does not wait for the embedding either: it runs while the model works.
    const sql = new SqlRetrievalSource(store.db);
    const source: RetrievalSource = {
      ...bound(sql),
      lexical: (...a) => {
        asked.push('keyword query');
        return sql.lexical(...a);
      },
    };
    const reader = new MemoryReader({
      source,
      knowledge: null,
      indexes: { fact: {} as SemanticIndex, episode: {} as SemanticIndex },
      embedder: () => embedder,
      reranker: async () => {
        asked.push('reranker');
        return null;
      },
      speakers: async () => {
        asked.push('speakers');
        return ['Ann'];
      },
      notRemembered: async () => [],
      clock: { now: () => 2 },
    });
    const recalled = reader.recall('what did Biscuit dig up?');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([...asked].sort()).toEqual(['embed', 'keyword query', 'reranker', 'speakers']);
    release();
    expect((await recalled).turns.map((t) => t.message.id)).toEqual(['t']);
  });
});
