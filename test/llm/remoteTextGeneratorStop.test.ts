import { describe, expect, it } from 'vitest';
import * as Comlink from 'comlink';
import { remoteTextGenerator } from '../../src/llm/remoteTextGenerator';
import { LlmError } from '../../src/llm/llmErrors';

describe('a device-LLM generator whose worker died', () => {
  it('stop() fails the generation in flight, and later ones, with the given error (no hang)', async () => {
    const channel = new MessageChannel();
    // The worker's side never answers, as a dead worker does not.
    Comlink.expose({ generate: () => new Promise(() => undefined), cancel: () => undefined }, channel.port1);
    const generator = remoteTextGenerator(channel.port2);
    const pending = generator.generate({ requestId: 'r1', messages: [{ role: 'user', content: 'hi' }], maxNewTokens: 8 });
    generator.stop(new LlmError('LLM_UNAVAILABLE', 'The model on this device stopped.'));
    await expect(pending).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE', message: 'The model on this device stopped.' });
    await expect(generator.generate({ requestId: 'r2', messages: [], maxNewTokens: 8 })).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE' });
    channel.port1.close();
    channel.port2.close();
  });
});
