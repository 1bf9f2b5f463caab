/**
 * A title made from deleted words goes with them: a conversation's automatic title (its first
 * message's, or the endpoint's, made from the first message and the first answer) is remade from
 * what remains when a turn it was made from is deleted, in the same transaction, so the words leave
 * the sidebar and the exported bytes. A title the person typed stays. Memory-only first (no
 * endpoint: the title is the first message's), then with the mock endpoint naming the conversation
 * with the very words deleted afterwards. Mock LLM server: pipeline behaviour only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';
import { titleFrom, UNTITLED } from '../../src/core/base/titles';
import type { Llm } from '../../src/core/base/ports';
import { titleByEndpoint } from '../../src/core/engine/conversationTitles';
import { openNodeStore } from '../../src/storage/openNodeDatabase';

const MARKER = 'Vexwhistle';
const FIRST = `Plans for the ${MARKER} surprise party at the lake house`;
const SECOND = 'What should I cook for twelve people?';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) =>
      req.messages[0]?.content.startsWith('You name conversations') ? `${MARKER} lakeside party planning` : 'Something easy to share.',
  });
});
afterAll(async () => mock.close());

const bytesContain = (bytes: Uint8Array, text: string): boolean => Buffer.from(bytes).includes(Buffer.from(text, 'utf8'));

async function chat(withLlm: boolean) {
  const { store, engine } = await answeringEngine(mock.url, { withLlm });
  await engine.conversations.create({ id: 'c', title: UNTITLED }); // what "New chat" creates
  const conversation = async () => (await engine.conversations.list()).find((c) => c.id === 'c')!;
  const ask = async (id: string, content: string) => {
    await engine.conversations.send({ id, conversationId: 'c', content });
    await engine.answers.ask({ conversationId: 'c', userMessageId: id, answerId: `${id}-a` }, () => undefined);
    await engine.idle();
  };
  return { store, engine, conversation, ask };
}

describe('a title made from a deleted message', () => {
  it('is remade from the first remaining message, memory-only, and leaves the exported bytes', async () => {
    const { engine, conversation } = await chat(false);
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: FIRST });
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: SECOND });
    await engine.idle();
    expect((await conversation()).title).toContain(MARKER);
    expect(bytesContain(await engine.data.exportDatabase(), MARKER)).toBe(true);

    expect(await engine.conversations.deleteMessage('u1')).toBe(true);

    const after = await conversation();
    expect(after.title).not.toContain(MARKER);
    expect(after.title).toBe(titleFrom(SECOND));
    expect(after.titledBy).toBe('message');
    expect(bytesContain(await engine.data.exportDatabase(), MARKER)).toBe(false);
  });

  it('becomes the placeholder when no message of the person remains, and the next message titles it again', async () => {
    const { engine, conversation } = await chat(false);
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: FIRST });
    await engine.conversations.deleteMessage('u1');
    expect((await conversation()).title).toBe(UNTITLED);
    expect((await conversation()).titledBy).toBe('none');
    expect(bytesContain(await engine.data.exportDatabase(), MARKER)).toBe(false);
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: SECOND });
    expect((await conversation()).title).toBe(titleFrom(SECOND));
  });

  it('follows an edit of the first message (the edited message becomes a hidden version)', async () => {
    const { engine, conversation } = await chat(false);
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: FIRST });
    await engine.conversations.send({ id: 'u1b', conversationId: 'c', content: SECOND, replaces: 'u1' });
    expect((await conversation()).title).toBe(titleFrom(SECOND));
    // The edited text is kept as version 1 (TurnVersions.ts), out of the title; deleting the conversation takes it.
    expect(bytesContain(await engine.data.exportDatabase(), MARKER)).toBe(true);
    await engine.conversations.delete('c');
    expect(bytesContain(await engine.data.exportDatabase(), MARKER)).toBe(false);
  });

  it('stays when a later message is deleted', async () => {
    const { engine, conversation } = await chat(false);
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: FIRST });
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: SECOND });
    await engine.conversations.deleteMessage('u2');
    expect((await conversation()).title).toBe(titleFrom(FIRST));
  });

  it('stays when the person typed it, even with the deleted words in it', async () => {
    const { engine, conversation } = await chat(false);
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: FIRST });
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: SECOND });
    await engine.conversations.rename('c', `${MARKER} party`);
    await engine.conversations.deleteMessage('u1');
    expect((await conversation()).title).toBe(`${MARKER} party`);
    expect((await conversation()).titledBy).toBe('user');
  });

  it("remakes the endpoint's title when the first message or the first answer it was made from is deleted", async () => {
    for (const deleted of ['u1', 'u1-a']) {
      const { engine, conversation, ask } = await chat(true);
      await ask('u1', FIRST);
      expect((await conversation()).title).toBe(`${MARKER} lakeside party planning`);
      expect((await conversation()).titledBy).toBe('endpoint');
      await ask('u2', SECOND);
      await engine.conversations.deleteMessage(deleted);
      const after = await conversation();
      // When only the answer went, the first message (marker included) is still there to title it.
      expect(after.title, deleted).toBe(titleFrom(deleted === 'u1' ? SECOND : FIRST));
      expect(after.titledBy, deleted).toBe('message');
      const exported = await engine.data.exportDatabase();
      expect(bytesContain(exported, 'lakeside party planning'), deleted).toBe(false);
      if (deleted === 'u1') expect(bytesContain(exported, MARKER)).toBe(false);
    }
  });

  it("keeps the endpoint's title when a later turn is deleted", async () => {
    const { engine, conversation, ask } = await chat(true);
    await ask('u1', FIRST);
    await ask('u2', SECOND);
    await engine.conversations.deleteMessage('u2');
    await engine.conversations.deleteMessage('u2-a');
    expect((await conversation()).title).toBe(`${MARKER} lakeside party planning`);
  });
});

describe('titles and deletions that race or predate title sources', () => {
  it("drops the endpoint's title when its first message is deleted while the call runs", async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c', title: UNTITLED });
    await store.sendTurn({ id: 'u1', conversationId: 'c', role: 'user', content: FIRST }, { title: titleFrom(FIRST) });
    await store.appendTurn({ id: 'a1', conversationId: 'c', role: 'assistant', content: 'Something easy to share.' });
    const llm = {
      complete: async () => {
        await store.deleteMessage('u1'); // the person deletes it while the title is being asked for
        return { text: `${MARKER} lakeside party planning` };
      },
    } as unknown as Llm;
    const title = await titleByEndpoint(
      { llm, getConversation: (id) => store.getConversation(id), messageWindow: (id, r) => store.listMessageWindow(id, r) },
      'c',
    );
    expect(title).toBeNull();
    expect((await store.getConversation('c'))!.title).toBe(UNTITLED);
  });

  it("remakes a title stored before sources were recorded only when it is the deleted message's own", async () => {
    const store = await openNodeStore();
    // Imported or older conversations carry no title source: read as the user's.
    await store.createConversation({ id: 'old', title: titleFrom(FIRST) });
    await store.createConversation({ id: 'named', title: `The ${MARKER} file` });
    for (const c of ['old', 'named']) {
      await store.appendTurns([
        { id: `${c}1`, conversationId: c, role: 'user', content: FIRST },
        { id: `${c}2`, conversationId: c, role: 'user', content: SECOND },
      ]);
      await store.deleteMessage(`${c}1`);
    }
    expect((await store.getConversation('old'))!.title).toBe(titleFrom(SECOND));
    expect((await store.getConversation('named'))!.title).toBe(`The ${MARKER} file`);
  });
});
