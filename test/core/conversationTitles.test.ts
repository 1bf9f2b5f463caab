/**
 * Titles by the endpoint (issue 17): after the first exchange one small 'title' call names the
 * conversation; its tokens are counted like every call; a failure, a later answer or a title the
 * user chose leave the title alone. Mock LLM server: pipeline behaviour only.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';
import { cleanTitleReply } from '../../src/core/engine/conversationTitles';
import { titleFrom } from '../../src/core/base/titles';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => (req.messages[0]?.content.startsWith('You name conversations') ? '"Biscuit the beagle."' : 'A beagle mix, I believe.'),
  });
});
afterAll(async () => mock.close());

const FIRST = 'My dog Biscuit is a beagle mix. What should I feed him?';

async function setup() {
  const { store, engine } = await answeringEngine(mock.url);
  await engine.createConversation({ id: 'c', title: titleFrom(FIRST) }); // what the app sets on send
  let n = 0;
  const ask = async (content: string) => {
    const id = `u${++n}`;
    await engine.appendTurn({ id, conversationId: 'c', role: 'user', speaker: 'You', content });
    await engine.ask({ conversationId: 'c', userMessageId: id, answerId: `${id}-a` }, () => undefined);
  };
  const title = async () => (await engine.listConversations()).find((c) => c.id === 'c')!.title;
  const titleCalls = async () => (await store.llmCalls.byStage()).title?.calls ?? 0;
  return { engine, ask, title, titleCalls };
}

describe('titles by the endpoint', () => {
  it('names the conversation after the first exchange, once, with the call counted', async () => {
    const { ask, title, titleCalls } = await setup();
    await ask(FIRST);
    await vi.waitFor(async () => expect(await title()).toBe('Biscuit the beagle'));
    expect(await titleCalls()).toBe(1);
    await ask('And how often should he walk?');
    await new Promise((r) => setTimeout(r, 200));
    expect(await titleCalls()).toBe(1);
  });

  it('keeps the first message\'s title when the call fails or says nothing usable', async () => {
    const original = mock.behaviour().responder;
    const isTitle = (req: { messages: readonly { content: string }[] }) => req.messages[0]?.content.startsWith('You name conversations') === true;
    try {
      // The answer's request arms a 500 for the next request: the title call.
      let titleRequests = 0;
      mock.setBehaviour({ responder: (req) => {
        if (isTitle(req)) titleRequests++;
        else mock.setBehaviour({ serverErrorNext: 1 });
        return isTitle(req) ? 'Never used' : 'A beagle mix.';
      } });
      const failing = await setup();
      const before = mock.requests.length;
      await failing.ask(FIRST);
      await vi.waitFor(() => expect(mock.requests.length).toBeGreaterThanOrEqual(before + 2));
      await new Promise((r) => setTimeout(r, 200));
      expect(titleRequests).toBe(0); // the 500 came before any reply was written
      expect(await failing.title()).toBe(titleFrom(FIRST));

      mock.setBehaviour({ responder: (req) => (isTitle(req) ? '  ' : 'A beagle mix.') });
      const empty = await setup();
      await empty.ask(FIRST);
      await vi.waitFor(async () => expect(await empty.titleCalls()).toBe(1));
      expect(await empty.title()).toBe(titleFrom(FIRST));
    } finally {
      mock.setBehaviour({ responder: original, serverErrorNext: 0 });
    }
  });

  it('never replaces a title the user chose', async () => {
    const { engine, ask, title, titleCalls } = await setup();
    await engine.renameConversation('c', 'Dog food');
    await ask(FIRST);
    await new Promise((r) => setTimeout(r, 200));
    expect(await title()).toBe('Dog food');
    expect(await titleCalls()).toBe(0);
  });

  it('cleans the model\'s reply into a title', () => {
    expect(cleanTitleReply('Title: "Weekend in Lisbon."\nMore text')).toBe('Weekend in Lisbon');
    expect(cleanTitleReply('   \n  ')).toBeNull();
    expect(cleanTitleReply('x'.repeat(100))!.length).toBe(60);
  });
});
