/**
 * A small model's broken output — U+FFFD from bytes that are not UTF-8 (or a multi-byte character
 * split between tokens), stray control bytes — is stored cleanly: the broken characters are
 * dropped and counted, the answer is kept, and the user's own message is stored as written.
 * Before this, an answer with more than 10% of them was refused as binary (limits.ts looksBinary)
 * and the whole answer was lost; the first test pins that the raw reply is still refused as a
 * *message*, so the cleaning is what saves it.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { DeviceLlm } from '../../src/llm/DeviceLlm';
import { BUILT_IN_MODEL_ID, PromptApiGenerator } from '../../src/llm/PromptApiGenerator';
import { cleanModelPiece, cleanModelText } from '../../src/core/base/modelText';
import { validateTurnContent } from '../../src/core/base/limits';
import { cleanTitleReply } from '../../src/core/engine/conversationTitles';
import { completeJson } from '../../src/llm/structured';
import { stubLanguageModel } from '../support/stubLanguageModel';

const F = '\uFFFD';
// What a byte-level model writes when it emits bytes that are not text: >10% replacement characters.
const BROKEN_REPLY = `Your ${F}${F}dog is ${F}${F}${F}called Bis${F}cuit ${F}${F}\u0000${F}${F}${F} and he is a ${F}${F}beagle.`;

describe('cleanModelText', () => {
  it('drops U+FFFD, control bytes and unpaired surrogates, keeps text, tabs, newlines and emoji', () => {
    expect(cleanModelText(`a${F}b\u0000c\u0007d\te\nf\r\ng 🐶 \uD83D x \uDC36 y\u007F`)).toEqual({
      text: 'abcd\te\nf\r\ng 🐶  x  y',
      dropped: 6,
    });
    expect(cleanModelText('Plain text, 日本語, café.')).toEqual({ text: 'Plain text, 日本語, café.', dropped: 0 });
  });

  it('a streamed piece keeps a half surrogate pair (the other half is in the next piece)', () => {
    expect(cleanModelPiece(`x${F}\uD83D`)).toBe('x\uD83D');
    expect(cleanModelText('x\uD83D' + '\uDC36').text).toBe('x🐶');
  });

  it('the raw reply would be refused as a message (what happened before)', () => {
    expect(() => validateTurnContent(BROKEN_REPLY)).toThrow(/binary/);
    expect(() => validateTurnContent(cleanModelText(BROKEN_REPLY).text)).not.toThrow();
  });
});

async function engineWith(reply: string) {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['episodes', 'synthesis', 'recall'], llm: null });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  const stub = stubLanguageModel();
  stub.replies = [reply];
  engine.useDeviceLlm(
    (sink) =>
      new DeviceLlm(new PromptApiGenerator(stub), {
        model: BUILT_IN_MODEL_ID,
        label: 'Built-in model (Chrome)',
        ...(sink ? { sink } : {}),
      }),
  );
  const conversation = await engine.conversations.create({ title: 'Dogs' });
  const question = `My dog is called Biscuit ${F} (the user's own ${F} stays).`;
  const turn = await engine.conversations.appendTurn({
    id: 'u1',
    conversationId: conversation.id,
    role: 'user',
    speaker: 'User',
    content: question,
  });
  return { store, engine, conversationId: conversation.id, userMessageId: turn.message.id, question };
}

describe('an answer with broken characters', () => {
  it('is stored without them, says how many were left out, and the user’s message is untouched', async () => {
    const { store, engine, conversationId, userMessageId, question } = await engineWith(BROKEN_REPLY);
    const deltas: string[] = [];
    const result = await engine.answers.ask({ conversationId, userMessageId, answerId: 'a1' }, (e) => {
      if (e.type === 'delta') deltas.push(e.text);
    });
    expect(result.messageId).toBe('a1');
    const messages = await engine.conversations.messages(conversationId);
    const answer = messages.find((m) => m.id === 'a1')!;
    expect(answer.content).toBe('Your dog is called Biscuit  and he is a beagle.');
    expect(answer.metadata).toMatchObject({ brokenChars: 14 });
    expect(deltas.join('')).not.toContain(F);
    expect(deltas.join('')).not.toContain('\u0000');
    expect(messages.find((m) => m.id === userMessageId)!.content).toBe(question);
    await store.db.close();
  });

  it('of broken characters only: a clear error, nothing stored for it, the user’s message kept', async () => {
    const { store, engine, conversationId, userMessageId } = await engineWith(`${F}${F}${F} ${F}${F}`);
    await expect(engine.answers.ask({ conversationId, userMessageId, answerId: 'a1' }, () => undefined)).rejects.toMatchObject({
      code: 'LLM_BAD_OUTPUT',
      message: expect.stringContaining('broken characters only'),
    });
    const messages = await engine.conversations.messages(conversationId);
    expect(messages.map((m) => m.id)).toEqual([userMessageId]);
    await store.db.close();
  });

  it('titles and structured outputs (synthesis) come out clean', async () => {
    expect(cleanTitleReply(`${F}Biscuit${F} the ${F}beagle`)).toBe('Biscuit the beagle');
    const llm = {
      complete: async () => ({
        text: `{"title": "Bis${F}cuit", "facts": ["likes ${F}\u0001walks"]}`,
        model: 'm',
        usage: { promptTokens: 1, completionTokens: 1, estimated: true },
        finishReason: 'stop',
      }),
    };
    const out = await completeJson(llm, {
      stage: 'memcell',
      messages: [{ role: 'user', content: 'x' }],
      schema: z.object({ title: z.string(), facts: z.array(z.string()) }),
    });
    expect(out.value).toEqual({ title: 'Biscuit', facts: ['likes walks'] });
  });
});
