/**
 * An engine over a fresh in-memory store whose turns were synthesised eagerly through the mock LLM
 * server (facts, plans, episodes: pipeline behaviour only), with one memory added by hand — the
 * "memory that knows something" several engine tests start from.
 */
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { createEngine } from '../../src/host/createEngine';
import type { SettingsStore } from '../../src/core/base/settings';
import { immediateTimer, topicProvider } from './topicEmbedder';

export interface SynthesisedEngineOptions {
  readonly mockUrl: string;
  /** The topic embedder's words. */
  readonly topics: readonly string[];
  /** The user's turns in conversation 'c' (ids m0, m1, …), a day apart from `t0`, spoken by Ana. */
  readonly turns: readonly string[];
  readonly t0: number;
  readonly settings?: SettingsStore;
  readonly timeZone?: string;
  /** Saved by hand after synthesis. */
  readonly memory: string;
}

export async function synthesisedEngine(o: SynthesisedEngineOptions) {
  const store = await openNodeStore();
  const llm = new LlmClient(
    { baseUrl: o.mockUrl, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  );
  const engine = createEngine(store, {
    embedders: topicProvider(o.topics),
    llm,
    ...(o.settings ? { settings: o.settings } : {}),
    timer: immediateTimer,
    profileDebounceMs: 0,
  });
  await engine.start();
  if (o.timeZone) await engine.settings.setTimeZone(o.timeZone);
  await engine.synthesis.setPolicy('eager');
  await store.createConversation({ id: 'c', title: 'Chat' });
  for (const [i, content] of o.turns.entries())
    await engine.conversations.appendTurn({
      id: `m${i}`,
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content,
      occurredAt: o.t0 + i * 86_400_000,
    });
  await engine.closeOpenCells();
  await engine.idle();
  await engine.profile.addMemory(o.memory);
  return { engine, store };
}
