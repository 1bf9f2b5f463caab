/**
 * Titles: sending the first message titles a new conversation in the same transaction; after the
 * first exchange one small 'title' call names it; its tokens are counted like every call; a
 * failure, a later answer or a title the user chose leave the title alone. Negative checks wait
 * for engine.idle(), which settles the work that follows a stored answer (the title call would be
 * part of it), instead of sleeping. Mock LLM server: pipeline behaviour only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';
import { cleanTitleReply } from '../../src/core/engine/conversationTitles';
import { titleFrom, UNTITLED } from '../../src/core/base/titles';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) =>
      req.messages[0]?.content.startsWith('You name conversations') ? '"Biscuit the beagle."' : 'A beagle mix, I believe.',
  });
});
afterAll(async () => mock.close());

const FIRST = 'My dog Biscuit is a beagle mix. What should I feed him?';

async function setup() {
  const { store, engine } = await answeringEngine(mock.url);
  await engine.conversations.create({ id: 'c', title: UNTITLED }); // what "New chat" creates
  let n = 0;
  // What the app's Send does: two engine calls.
  const ask = async (content: string) => {
    const id = `u${++n}`;
    await engine.conversations.send({ id, conversationId: 'c', content });
    await engine.answers.ask({ conversationId: 'c', userMessageId: id, answerId: `${id}-a` }, () => undefined);
    await engine.idle();
  };
  const title = async () => (await engine.conversations.list()).find((c) => c.id === 'c')!.title;
  const titleCalls = async () => (await store.llmCalls.byStage()).title?.calls ?? 0;
  return { engine, ask, title, titleCalls };
}

describe('titles by the endpoint', () => {
  it('names the conversation after the first exchange, once, with the call counted', async () => {
    const { engine, ask, title, titleCalls } = await setup();
    await engine.conversations.send({ id: 'first', conversationId: 'c', content: FIRST });
    expect(await title()).toBe(titleFrom(FIRST)); // the first message's, stored with it
    await engine.answers.ask({ conversationId: 'c', userMessageId: 'first', answerId: 'first-a' }, () => undefined);
    await engine.idle();
    expect(await title()).toBe('Biscuit the beagle');
    expect(await titleCalls()).toBe(1);
    await ask('And how often should he walk?');
    expect(await titleCalls()).toBe(1);
  });

  it("keeps the first message's title when the call fails or says nothing usable", async () => {
    const original = mock.behaviour().responder;
    const isTitle = (req: { messages: readonly { content: string }[] }) =>
      req.messages[0]?.content.startsWith('You name conversations') === true;
    try {
      // The answer's request arms a 500 for the next request: the title call.
      let titleRequests = 0;
      mock.setBehaviour({
        responder: (req) => {
          if (isTitle(req)) titleRequests++;
          else mock.setBehaviour({ serverErrorNext: 1 });
          return isTitle(req) ? 'Never used' : 'A beagle mix.';
        },
      });
      const failing = await setup();
      const before = mock.requests.length;
      await failing.ask(FIRST);
      expect(mock.requests.length).toBe(before + 2); // the answer and the failed title call
      expect(titleRequests).toBe(0); // the 500 came before any reply was written
      expect(await failing.title()).toBe(titleFrom(FIRST));

      mock.setBehaviour({ responder: (req) => (isTitle(req) ? '  ' : 'A beagle mix.') });
      const empty = await setup();
      await empty.ask(FIRST);
      expect(await empty.titleCalls()).toBe(1);
      expect(await empty.title()).toBe(titleFrom(FIRST));
    } finally {
      mock.setBehaviour({ responder: original, serverErrorNext: 0 });
    }
  });

  it('never replaces a title the user chose', async () => {
    const { engine, ask, title, titleCalls } = await setup();
    await engine.conversations.rename('c', 'Dog food');
    await ask(FIRST);
    expect(await title()).toBe('Dog food');
    expect(await titleCalls()).toBe(0);
    // Renamed by the user to the very words the first message would give: still the user's.
    const again = await setup();
    await again.engine.conversations.rename('c', titleFrom(FIRST));
    await again.ask(FIRST);
    expect(await again.titleCalls()).toBe(0);
  });

  it("cleans the model's reply into a title", () => {
    expect(cleanTitleReply('Title: "Weekend in Lisbon."\nMore text')).toBe('Weekend in Lisbon');
    expect(cleanTitleReply('   \n  ')).toBeNull();
    expect(cleanTitleReply('x'.repeat(100))!.length).toBe(60);
  });
});
