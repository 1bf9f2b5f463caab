/**
 * The engine answering through a model on this device (MemoryEngine.useDeviceLlm): a streamed
 * answer, Stop keeping what arrived (stored, marked stopped, "What was sent" metadata saying where
 * it ran), the ledger counting under the model id — with the Prompt API provider over a stub.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { DeviceLlm } from '../../src/llm/DeviceLlm';
import { BUILT_IN_MODEL_ID, PromptApiGenerator } from '../../src/llm/PromptApiGenerator';
import { stubLanguageModel } from '../support/stubLanguageModel';

describe('engine with a model on this device', () => {
  it('streams, stops on request keeping what arrived, and records where it ran', async () => {
    const store = await openNodeStore();
    const engine = createEngine(store, { only: ['episodes', 'synthesis', 'recall'], llm: null });
    await engine.start();
    await engine.synthesis.setPolicy('off');
    const stub = stubLanguageModel();
    stub.replies = [Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ')];
    engine.useDeviceLlm(
      (sink) =>
        new DeviceLlm(new PromptApiGenerator(stub), {
          model: BUILT_IN_MODEL_ID,
          label: 'Built-in model (Chrome)',
          ...(sink ? { sink } : {}),
        }),
    );
    const conversation = await engine.conversations.create({ title: 'Dogs' });
    const turn = await engine.conversations.appendTurn({
      id: 'u1',
      conversationId: conversation.id,
      role: 'user',
      speaker: 'User',
      content: 'My dog is called Biscuit.',
    });
    let deltas = 0;
    const result = await engine.answers.ask({ conversationId: conversation.id, userMessageId: turn.message.id, answerId: 'a1' }, (e) => {
      if (e.type === 'delta' && ++deltas === 3) void engine.answers.stop('a1');
    });
    expect(result.answer.stopped).toBe(true);
    expect(result.messageId).toBe('a1');
    const stored = (await engine.conversations.messages(conversation.id)).find((m) => m.id === 'a1')!;
    expect(stored.metadata).toMatchObject({ stopped: true, onDevice: expect.stringContaining('Built-in model (Chrome)') });
    const usage = await engine.settings.llmUsage(0);
    expect(usage.answer?.calls).toBe(1);
    await store.db.close();
  });
});
