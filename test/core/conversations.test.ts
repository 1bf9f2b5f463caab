/**
 * The Conversations service, the one writer of turns: "Send" stores the user's message with what it
 * implies in one transaction — an edit hides the edited message and everything after it as an earlier version, and a
 * new conversation takes its title — so a failure changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/host/createEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { UNTITLED } from '../../src/core/base/titles';
import { MAX_TURN_CHARS } from '../../src/core/base/limits';

async function setup() {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['recall'], llm: null });
  await engine.start();
  await engine.conversations.create({ id: 'c', title: UNTITLED });
  return { store, engine };
}

const contents = async (engine: Awaited<ReturnType<typeof setup>>['engine']) =>
  (await engine.conversations.messages('c')).map((m) => `${m.role}:${m.content}`);

describe('Conversations.send', () => {
  it('stores the message and titles a new conversation from it, in one call', async () => {
    const { engine } = await setup();
    const stored = await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'Plan a weekend in Lisbon\nwith the kids' });
    expect(stored).toMatchObject({ id: 'u1', role: 'user', speaker: 'You', content: 'Plan a weekend in Lisbon\nwith the kids' });
    expect((await engine.conversations.list())[0]).toMatchObject({ title: 'Plan a weekend in Lisbon', titledBy: 'message' });
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: 'Something else entirely' });
    expect((await engine.conversations.list())[0]!.title).toBe('Plan a weekend in Lisbon'); // only the first message titles
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: 'Something else entirely' }); // a retry stores nothing twice
    expect(await contents(engine)).toEqual(['user:Plan a weekend in Lisbon\nwith the kids', 'user:Something else entirely']);
  });

  it('an edit hides the last message and its answer (kept as version 1) in the same transaction', async () => {
    const { engine } = await setup();
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'First question' });
    await engine.conversations.appendTurn({
      id: 'a1',
      conversationId: 'c',
      role: 'assistant',
      speaker: 'Assistant',
      content: 'First answer',
    });
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: 'Second question, with a typo' });
    await engine.conversations.appendTurn({
      id: 'a2',
      conversationId: 'c',
      role: 'assistant',
      speaker: 'Assistant',
      content: 'Second answer',
    });
    await engine.conversations.send({ id: 'u3', conversationId: 'c', content: 'Second question, fixed', replaces: 'u2' });
    expect(await contents(engine)).toEqual(['user:First question', 'assistant:First answer', 'user:Second question, fixed']);
    expect(await engine.conversations.search('typo')).toEqual([]);
  });

  it('a re-send under a stored id (its reply was lost) stores nothing and returns the stored turn, an edit included', async () => {
    const { engine } = await setup();
    const content = `Here is the script I run every night:\n\n\`\`\`sh\nrsync -a ~/notes /mnt/backup\n\`\`\`\n\n${'It copies the notes folder and keeps the older copies. '.repeat(20)}`;
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'First question' });
    await engine.conversations.appendTurn({
      id: 'a1',
      conversationId: 'c',
      role: 'assistant',
      speaker: 'Assistant',
      content: 'First answer',
    });
    const first = await engine.conversations.send({ id: 'u2', conversationId: 'c', content });
    const again = await engine.conversations.send({ id: 'u2', conversationId: 'c', content });
    expect(again).toEqual(first);
    // An edit whose reply was lost: the first send replaced u2; the second must not fail on the gone turn nor replace anything.
    const edited = await engine.conversations.send({ id: 'u3', conversationId: 'c', content: `${content} (edited)`, replaces: 'u2' });
    const editedAgain = await engine.conversations.send({ id: 'u3', conversationId: 'c', content: `${content} (edited)`, replaces: 'u2' });
    expect(editedAgain).toEqual(edited);
    expect(await contents(engine)).toEqual(['user:First question', 'assistant:First answer', `user:${content} (edited)`]);
    // The id of an answer, or of a turn in another conversation, is not a user message to return.
    await expect(engine.conversations.send({ id: 'a1', conversationId: 'c', content: 'First answer' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await engine.conversations.create({ id: 'd', title: UNTITLED });
    await expect(engine.conversations.send({ id: 'u3', conversationId: 'd', content: 'Elsewhere' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await engine.conversations.messages('d')).toEqual([]);
  });

  it('a replacement that cannot be stored leaves the edited message and its answer in place', async () => {
    const { engine } = await setup();
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'A question' });
    await engine.conversations.appendTurn({ id: 'a1', conversationId: 'c', role: 'assistant', speaker: 'Assistant', content: 'An answer' });
    await expect(
      engine.conversations.send({ id: 'u2', conversationId: 'c', content: 'x'.repeat(MAX_TURN_CHARS + 1), replaces: 'u1' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      engine.conversations.send({ id: 'u3', conversationId: 'c', content: 'Edit of a gone message', replaces: 'gone' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(engine.conversations.send({ id: 'u4', conversationId: 'c', content: '   ' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await contents(engine)).toEqual(['user:A question', 'assistant:An answer']);
  });
});
