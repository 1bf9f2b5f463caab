/**
 * A model per conversation: the endpoint is asked for the conversation's own model by name (the
 * request body's `model`), other conversations keep the default of Settings, the stored answer
 * names the model, a device choice with no device model fails with what to do, and pinning or
 * archiving changes neither memory nor answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';
import { DeviceLlm } from '../../src/llm/DeviceLlm';
import { BUILT_IN_MODEL_ID, PromptApiGenerator } from '../../src/llm/PromptApiGenerator';
import { stubLanguageModel } from '../support/stubLanguageModel';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'Your boiler pressure was 1.4 bar [1].' });
});
afterAll(async () => mock.close());

const QUESTION = `What was the boiler pressure I wrote down? ${'I need it for the landlord, who asked for the readings together with the meter table. '.repeat(12)}`;

async function ask(engine: Awaited<ReturnType<typeof answeringEngine>>['engine'], conversationId: string, id: string) {
  await engine.conversations.send({ id, conversationId, content: QUESTION });
  return engine.answers.ask({ conversationId, userMessageId: id, answerId: `${id}-a` }, () => undefined);
}

const modelsSince = (from: number) =>
  mock.requests
    .slice(from)
    .filter((r) => r.path.endsWith('/chat/completions') && r.body?.stream === true)
    .map((r) => r.body?.model);

describe('a model per conversation', () => {
  it('asks the endpoint for the conversation’s model; another conversation keeps the default', async () => {
    const { engine, store } = await answeringEngine(mock.url);
    const own = await engine.conversations.create({ title: 'Heating' });
    const other = await engine.conversations.create({ title: 'Default' });
    expect(await engine.conversations.setModel(own.id, { kind: 'endpoint', name: '  llama3.1:70b ' })).toMatchObject({
      model: { kind: 'endpoint', name: 'llama3.1:70b' },
    });
    let from = mock.requests.length;
    await ask(engine, own.id, 'u1');
    expect(modelsSince(from)).toEqual(['llama3.1:70b']);
    expect((await store.getMessage('u1-a'))?.metadata).toMatchObject({ model: 'llama3.1:70b' });

    from = mock.requests.length;
    await ask(engine, other.id, 'u2');
    expect(modelsSince(from)).toEqual(['mock']);

    // Back to the default.
    await engine.conversations.setModel(own.id, null);
    from = mock.requests.length;
    await ask(engine, own.id, 'u3');
    expect(modelsSince(from)).toEqual(['mock']);
  });

  it('the device model with none chosen fails with what to do, and the message stays stored', async () => {
    const { engine } = await answeringEngine(mock.url);
    const c = await engine.conversations.create({ title: 'On device' });
    await engine.conversations.setModel(c.id, { kind: 'device' });
    await expect(ask(engine, c.id, 'd1')).rejects.toMatchObject({
      code: 'LLM_NOT_CONFIGURED',
      message: expect.stringContaining('This device'),
    });
    expect((await engine.conversations.messages(c.id)).map((m) => m.id)).toEqual(['d1']);

    // A device model chosen: this conversation answers on it; one with an endpoint model still asks the endpoint.
    const stub = stubLanguageModel();
    stub.replies = ['On this device: 1.4 bar.'];
    engine.useDeviceLlm(
      (sink) =>
        new DeviceLlm(new PromptApiGenerator(stub), { model: BUILT_IN_MODEL_ID, label: 'Built-in model', ...(sink ? { sink } : {}) }),
    );
    let from = mock.requests.length;
    await engine.answers.ask({ conversationId: c.id, userMessageId: 'd1', answerId: 'd1-a' }, () => undefined);
    expect(modelsSince(from)).toEqual([]);
    expect((await engine.conversations.messages(c.id)).find((m) => m.id === 'd1-a')?.metadata).toMatchObject({
      onDevice: expect.stringContaining('Built-in model'),
    });
    const viaEndpoint = await engine.conversations.create({ title: 'Endpoint' });
    await engine.conversations.setModel(viaEndpoint.id, { kind: 'endpoint', name: 'mistral-small' });
    from = mock.requests.length;
    await ask(engine, viaEndpoint.id, 'e1');
    expect(modelsSince(from)).toEqual(['mistral-small']);
  });

  it('refuses a blank or malformed model, and a non-boolean pin', async () => {
    const { engine } = await answeringEngine(mock.url);
    const c = await engine.conversations.create({ title: 'Checks' });
    await expect(engine.conversations.setModel(c.id, { kind: 'endpoint', name: '   ' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.conversations.setModel(c.id, { kind: 'gpu' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.conversations.place(c.id, { pinned: 'yes' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await engine.conversations.place(c.id, { archived: true })).toMatchObject({ archived: true, pinned: false, model: null });
  });
});
