import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { MemorySettingsStore } from '../support/MemorySettingsStore';
import { LlmClient } from '../../src/llm/LlmClient';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { createEngine } from '../../src/host/createEngine';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ apiKey: 'k-123' });
});
afterAll(async () => mock.close());

async function engineWith(settings = new MemorySettingsStore()) {
  const store = await openNodeStore();
  const engine = createEngine(store, {
    only: ['episodes', 'synthesis'],
    settings,
    llmFactory: (s, sink) =>
      new LlmClient({ baseUrl: s.baseUrl, model: s.model, apiKey: s.apiKey ?? undefined }, { ...(sink ? { sink } : {}), maxAttempts: 1 }),
  });
  await engine.start();
  return { engine, store, settings };
}

describe('endpoint settings', () => {
  it('saves, keeps and clears the key without ever returning it', async () => {
    const { engine, settings, store } = await engineWith();
    expect(await engine.settings.llm()).toEqual({ baseUrl: '', model: '', hasKey: false, configured: false });
    const view = await engine.settings.saveLlm({ baseUrl: mock.url, model: 'm', apiKey: 'k-123' });
    expect(view).toEqual({ baseUrl: mock.url, model: 'm', hasKey: true, configured: true });
    expect(JSON.stringify(view)).not.toContain('k-123');
    // Leaving the key out keeps it; null clears it.
    await engine.settings.saveLlm({ baseUrl: mock.url, model: 'm2' });
    expect((await settings.loadLlm())?.apiKey).toBe('k-123');
    expect((await engine.synthesis.status()).endpointConfigured).toBe(true);
    expect((await engine.settings.testLlm({ baseUrl: mock.url, model: 'm2' })).status).toBe('ok');
    await engine.settings.saveLlm({ baseUrl: mock.url, model: 'm2', apiKey: null });
    expect((await engine.settings.llm()).hasKey).toBe(false);
    expect((await engine.settings.testLlm({ baseUrl: mock.url, model: 'm2' })).status).toBe('unauthorized');
    // The memory database never holds the key.
    const bytes = await store.exportDatabase();
    expect(Buffer.from(bytes).includes(Buffer.from('k-123'))).toBe(false);
    // Clearing the URL removes the endpoint.
    expect(await engine.settings.saveLlm({ baseUrl: '', model: '' })).toMatchObject({ configured: false });
    expect((await engine.synthesis.status()).endpointConfigured).toBe(false);
  });

  it('refuses an address that is not http(s) with a clear error', async () => {
    const { engine } = await engineWith();
    await expect(engine.settings.saveLlm({ baseUrl: 'localhost:11434', model: 'x' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('http'),
    });
    await expect(engine.settings.saveLlm({ baseUrl: 'file:///etc/passwd', model: 'x' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it("an answer asked before the saved endpoint is read waits for it (a restarted engine's Try again)", async () => {
    const settings = new MemorySettingsStore();
    await settings.saveLlm({ baseUrl: mock.url, model: 'm', apiKey: 'k-123' });
    // The app reads the endpoint from IndexedDB at start: hold that read until the answer is asked.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = Object.assign(Object.create(settings) as MemorySettingsStore, {
      loadLlm: async () => {
        await gate;
        return settings.loadLlm();
      },
    });
    const store = await openNodeStore();
    const engine = createEngine(store, {
      only: ['episodes', 'synthesis'],
      settings: slow,
      llmFactory: (s, sink) =>
        new LlmClient({ baseUrl: s.baseUrl, model: s.model, apiKey: s.apiKey ?? undefined }, { ...(sink ? { sink } : {}), maxAttempts: 1 }),
    });
    const started = engine.start();
    await engine.conversations.create({ id: 'c', title: 'Garden' });
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'What grows well with tomatoes?' });
    const answer = engine.answers.ask({ conversationId: 'c', userMessageId: 'u1', answerId: 'u1-a' }, () => undefined);
    release();
    // Before the fix this failed with LLM_NOT_CONFIGURED; now the endpoint answers and it is stored.
    const result = await answer;
    expect(result.messageId).toBe('u1-a');
    expect((await engine.conversations.messages('c')).map((m) => m.role)).toEqual(['user', 'assistant']);
    await started;
  });

  it('restores the saved endpoint on start', async () => {
    const settings = new MemorySettingsStore();
    await settings.saveLlm({ baseUrl: mock.url, model: 'm', apiKey: 'k-123' });
    const { engine } = await engineWith(settings);
    expect((await engine.synthesis.status()).endpointConfigured).toBe(true);
  });
});
