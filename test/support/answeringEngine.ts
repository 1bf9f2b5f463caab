/**
 * An engine that answers through the mock LLM server (test/llm/mockLlmServer.ts): a fresh SQLite
 * store, one attempt per call (failures show at once), episodes, synthesis and recall wired, and
 * the consolidation policy off so no background synthesis call competes with what a test sends.
 */
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { createEngine } from '../../src/host/createEngine';

/** `explorer`: the memory explorer too (profile list and deletes, as the app has them). */
export async function answeringEngine(mockUrl: string, options: { withLlm?: boolean; explorer?: boolean } = {}) {
  const store = await openNodeStore();
  const llm = new LlmClient({ baseUrl: mockUrl, model: 'mock' }, { sink: store.llmCalls, maxAttempts: 1 });
  const engine = createEngine(store, {
    only: ['episodes', 'synthesis', 'recall', ...(options.explorer ? ['explorer' as const] : [])],
    llm: options.withLlm === false ? null : llm,
  });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  return { store, engine };
}
