/**
 * "Remember that I'm vegetarian" is saved the moment the message is sent, through the engine and
 * the mock endpoint: the answer to that very message carries it (read back from the stored "What
 * was sent"), with the consolidation policy off — no episode closed, no synthesis ran. Undo is the
 * profile delete path; deleting or editing the message takes the memory with it; a conversation
 * that is not remembered saves nothing; a project-only project keeps it behind its wall.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'Noted.' });
});
afterAll(async () => mock.close());

const ASK = "Remember that I'm vegetarian and allergic to peanuts. Could you suggest a quick dinner for tonight?";
const SAVED = "I'm vegetarian and allergic to peanuts";
const PROFILE_LINE = `] ${SAVED}\\n`;

async function setUp(options: { withLlm?: boolean } = {}) {
  const { store, engine } = await answeringEngine(mock.url, { ...options, explorer: true });
  const events: string[] = [];
  engine.on((e) => events.push(e.type));
  let n = 0;
  /** Sends `content` in `conversationId`, answers it, and returns the stored request text. */
  const exchange = async (conversationId: string, content: string) => {
    const id = `m${++n}`;
    await engine.conversations.send({ id, conversationId, content });
    await engine.answers.ask({ conversationId, userMessageId: id, answerId: `${id}-a` }, () => undefined);
    return { id, sent: JSON.stringify((await store.getMessage(`${id}-a`))!.metadata.requests) };
  };
  return { store, engine, events, exchange };
}

describe('a memory saved the moment you ask', () => {
  it('is saved on send, tied to the message, and the answer to that message already has it', async () => {
    const { engine, events, exchange } = await setUp();
    await engine.conversations.create({ id: 'c1', title: 'Dinner' });
    const { id, sent } = await exchange('c1', ASK);
    const profile = await engine.profile.list();
    expect(profile).toHaveLength(1);
    expect(profile[0]).toMatchObject({ value: SAVED, editedByUser: true, kind: 'explicit', evidence: [`message:${id}`] });
    expect(await engine.profile.fromMessages()).toEqual([{ messageId: id, profileItemId: profile[0]!.id, value: SAVED }]);
    expect(events).toContain('memory-changed');
    // In the context's profile section (not only as the question's own words).
    expect(sent).toContain('Profile (what is known about the user)');
    expect(sent).toContain(PROFILE_LINE);
    // Nothing else in the turn made a memory; a message that asks nothing saves nothing.
    await exchange('c1', 'Thanks. What goes well with lentils?');
    expect(await engine.profile.list()).toHaveLength(1);
  });

  it('Undo deletes it through the profile delete path: gone from the next request, redacted from the stored one', async () => {
    const { store, engine, exchange } = await setUp();
    await engine.conversations.create({ id: 'c1', title: 'Dinner' });
    const first = await exchange('c1', ASK);
    const [item] = await engine.profile.fromMessages();
    await engine.profile.delete(item!.profileItemId);
    expect(await engine.profile.list()).toEqual([]);
    expect(await engine.profile.fromMessages()).toEqual([]);
    await engine.conversations.create({ id: 'c2', title: 'Lunch' });
    const next = await exchange('c2', 'What should I have for lunch?');
    expect(next.sent).not.toContain(PROFILE_LINE);
    const stored = JSON.stringify((await store.getMessage(`${first.id}-a`))!.metadata.requests);
    expect(stored).not.toContain(PROFILE_LINE);
    // The message itself stays; asking again saves it again (the undo's tombstone blocks synthesis, not the person).
    expect((await engine.conversations.messages('c1')).map((m) => m.id)).toContain(first.id);
    await exchange('c1', ASK);
    expect((await engine.profile.list()).map((p) => p.value)).toEqual([SAVED]);
  });

  it('deleting the message deletes the memory; editing it replaces the memory with the edited one', async () => {
    const { engine, exchange } = await setUp();
    await engine.conversations.create({ id: 'c1', title: 'Dinner' });
    const { id } = await exchange('c1', ASK);
    expect(await engine.conversations.deleteMessage(id)).toBe(true);
    expect(await engine.profile.list()).toEqual([]);

    const again = await exchange('c1', 'Please remember: my sister is Ana.');
    expect((await engine.profile.list()).map((p) => p.value)).toEqual(['My sister is Ana']);
    // Edit the last message: the old one (and its answer) go, and with them the old memory.
    await engine.conversations.deleteMessage(`${again.id}-a`);
    await engine.conversations.send({
      id: 'edit',
      conversationId: 'c1',
      content: 'Please remember: my sister is Ana Lucía.',
      replaces: again.id,
    });
    expect(await engine.profile.fromMessages()).toEqual([expect.objectContaining({ messageId: 'edit', value: 'My sister is Ana Lucía' })]);
    expect(await engine.profile.list()).toHaveLength(1);
  });

  it('a memory written by hand that a message repeats keeps its value when the message goes', async () => {
    const { engine, exchange } = await setUp();
    await engine.conversations.create({ id: 'c1', title: 'Dinner' });
    await engine.profile.addMemory('I cook lentils every Sunday.');
    const { id } = await exchange('c1', ASK);
    expect(await engine.profile.list()).toHaveLength(2);
    await engine.conversations.deleteMessage(id);
    expect((await engine.profile.list()).map((p) => p.value)).toEqual(['I cook lentils every Sunday.']);
  });

  it('a send retried under the same id saves one memory', async () => {
    const { engine } = await setUp();
    await engine.conversations.create({ id: 'c1', title: 'Dinner' });
    await engine.conversations.send({ id: 'same', conversationId: 'c1', content: ASK });
    await engine.conversations.send({ id: 'same', conversationId: 'c1', content: ASK });
    expect(await engine.profile.list()).toHaveLength(1);
  });

  it('is saved with no endpoint (memory only)', async () => {
    const { engine } = await setUp({ withLlm: false });
    await engine.conversations.create({ id: 'c1', title: 'Notes' });
    await engine.conversations.send({ id: 'n1', conversationId: 'c1', content: '記住：我對花生過敏。' });
    expect((await engine.profile.list()).map((p) => p.value)).toEqual(['我對花生過敏']);
  });

  it('a conversation that is not remembered saves nothing', async () => {
    const { engine } = await setUp();
    await engine.conversations.create({ id: 'c1', title: 'Off the record', remember: false });
    await engine.conversations.send({ id: 'o1', conversationId: 'c1', content: ASK });
    expect(await engine.profile.list()).toEqual([]);
  });

  it('one asked for in a project-only project stays behind its wall', async () => {
    const { engine, exchange } = await setUp();
    const thesis = await engine.projects.create({ name: 'Thesis', memory: 'project-only', useProfile: true });
    await engine.conversations.create({ id: 'lab', title: 'Lab', projectId: thesis.id });
    const inside = await exchange('lab', 'Remember that the quokka logger runs on plot seven.');
    expect(inside.sent).toContain('] The quokka logger runs on plot seven\\n');
    await engine.conversations.create({ id: 'out', title: 'Outside' });
    const outside = await exchange('out', 'Where does the quokka logger run?');
    expect(outside.sent).not.toContain('quokka logger runs on plot seven');
  });
});
