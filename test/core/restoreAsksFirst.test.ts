/**
 * Restoring a memory whose episodes are not synthesised yet starts no paid synthesis: the import
 * holds synthesis (policy off) and reports the estimate per policy; the user's choice starts it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { createEngine } from '../../src/host/createEngine';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

const DAY = 86_400_000;

async function engineOn(store: Awaited<ReturnType<typeof openNodeStore>>) {
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { sink: store.llmCalls, maxAttempts: 1 });
  const engine = createEngine(store, { only: ['episodes', 'synthesis', 'recall'], llm });
  await engine.start();
  return engine;
}

describe('restoring a memory with unsynthesised episodes', () => {
  it('asks first: no synthesis call until a policy is chosen, with an estimate per policy', async () => {
    // A file like `npm run import` writes: turns over several days, saved with the eager policy.
    const source = await openNodeStore();
    const maker = await engineOn(source);
    await maker.synthesis.setPolicy('off');
    await source.createConversation({ id: 'c', title: 'history' });
    for (let d = 0; d < 4; d++) {
      for (let i = 0; i < 3; i++) {
        await maker.conversations.appendTurn({
          id: `t${d}-${i}`,
          conversationId: 'c',
          role: 'user',
          content: `Day ${d}: I practised the cello for an hour and worked on the Bach suite, part ${i}.`,
          occurredAt: Date.UTC(2023, 4, 1) + d * DAY + i * 60_000,
        });
      }
    }
    await maker.idle();
    await source.setMeta('consolidation.policy', 'eager');
    const file = await source.exportDatabase();

    const target = await openNodeStore();
    const engine = await engineOn(target);
    const before = mock.requests.length;
    const summary = await engine.data.importDatabase(file);
    await engine.idle();
    expect(summary.pendingSynthesis).toMatchObject({ turns: 12, policyInFile: 'eager' });
    expect(summary.pendingSynthesis!.episodes).toBeGreaterThanOrEqual(3);
    expect(summary.pendingSynthesis!.estimates.map((e) => e.policy)).toEqual(['eager', 'recurrence', 'off']);
    // Eager synthesises every episode: at least one call each.
    expect(summary.pendingSynthesis!.estimates[0]!.calls.low).toBeGreaterThanOrEqual(summary.pendingSynthesis!.episodes);
    expect((await engine.synthesis.status()).policy).toBe('off');
    expect(mock.requests.length).toBe(before); // nothing was spent

    await engine.synthesis.setPolicy('eager');
    await engine.closeOpenCells();
    await engine.idle();
    expect(mock.requests.length).toBeGreaterThan(before);
  });

  it("does not ask when everything is synthesised or the file's policy is off", async () => {
    const source = await openNodeStore();
    await source.createConversation({ id: 'c', title: 'empty' });
    const target = await openNodeStore();
    const engine = await engineOn(target);
    expect((await engine.data.importDatabase(await source.exportDatabase())).pendingSynthesis).toBeUndefined();
  });
});
