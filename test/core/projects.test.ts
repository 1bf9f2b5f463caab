/**
 * Projects and their memory walls, end to end through the engine and the mock endpoint: what each
 * answer request carries is read back from the stored "What was sent" (the exact messages).
 * - A project-only project's turns, episodes, facts, plans and the profile items derived from it
 *   never reach a request outside it; inside it, only its own memory does (plus the profile when
 *   the project allows it).
 * - A shared project reads and feeds all memory, like a chat in no project.
 * - A moved chat follows its new scope at the next answer; instructions go with every answer in
 *   the project, in the system prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';
import { answerScopeOf, inMemoryScope } from '../../src/core/recall/memoryScope';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'An answer.' });
});
afterAll(async () => mock.close());

const T0 = Date.UTC(2026, 0, 3);
const FUTURE = Date.now() + 400 * 86_400_000;

/** A real-length turn (≈1,100 characters) with a table and a code block around the words asked for. */
function turn(topic: string, detail: string): string {
  return `About ${topic}: ${detail}. I wrote the notes up properly this time so I can find them later.
${'The plan has three parts and each of them depends on the weather, the budget and who is free that week, so I keep a running list and update it every evening. '.repeat(4)}
| item | owner | due |
|---|---|---|
| ${topic} draft | me | Friday |

\`\`\`text
status: ${topic} in progress
\`\`\``;
}

async function setUp() {
  const { store, engine } = await answeringEngine(mock.url, { explorer: true });
  const thesis = await engine.projects.create({
    name: 'Thesis',
    memory: 'project-only',
    useProfile: false,
    instructions: 'Always answer in British English and cite the lab notebook.',
  });
  const house = await engine.projects.create({ name: 'House move', memory: 'shared' });
  await engine.conversations.create({ id: 'lab', title: 'Lab notes', projectId: thesis.id });
  await engine.conversations.appendTurn({
    id: 'lab1',
    conversationId: 'lab',
    role: 'user',
    content: turn('the quokka experiment', 'the quokka colony on plot seven needs the humidity logger fixed'),
    occurredAt: T0,
  });
  await engine.conversations.create({ id: 'pets', title: 'Pets' });
  await engine.conversations.appendTurn({
    id: 'pets1',
    conversationId: 'pets',
    role: 'user',
    content: turn('my dog Biscuit', 'Biscuit is a beagle mix and eats salmon kibble'),
    occurredAt: T0,
  });
  await engine.conversations.create({ id: 'boxes', title: 'Boxes', projectId: house.id });
  await engine.conversations.appendTurn({
    id: 'box1',
    conversationId: 'boxes',
    role: 'user',
    content: turn('the removal van', 'the removal van for the piano comes on the ninth'),
    occurredAt: T0,
  });
  await engine.profile.addMemory('I am vegetarian and cook lentils every Sunday.');
  // What synthesis would have derived from the thesis chat: an episode, a fact, a plan, a profile item.
  const db = store.db;
  await db.exec(`INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, status, created_at, updated_at)
    VALUES ('cell-lab', 'lab', 0, 0, ${T0}, ${T0}, 'Quokka colony logger', 'The user is repairing the humidity logger of the quokka colony.', 'synthesised', ${T0}, ${T0})`);
  await db.exec(
    `INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('fact-lab', 'cell-lab', 'You', 'The quokka colony lives on plot seven.', ${T0}, ${T0})`,
  );
  await db.exec(
    `INSERT INTO foresights (id, memcell_id, content, start_at, end_at, created_at, updated_at) VALUES ('plan-lab', 'cell-lab', 'Present the quokka humidity results to the committee.', ${T0}, ${FUTURE}, ${T0}, ${T0})`,
  );
  await db.exec(
    `INSERT INTO profile_items (id, kind, key, value, confidence, evidence, created_at, updated_at) VALUES ('prof-lab', 'explicit', 'research', 'studies quokka colonies', 0.9, '["cell-lab"]', ${T0}, ${T0})`,
  );
  await engine.idle();
  let n = 0;
  /** The answer request for `question` asked in `conversationId`, as stored in "What was sent". */
  const sent = async (conversationId: string, question: string) => {
    const id = `q${++n}`;
    await engine.conversations.appendTurn({ id, conversationId, role: 'user', content: question, occurredAt: T0 + 86_400_000 });
    await engine.answers.ask({ conversationId, userMessageId: id, answerId: `${id}-a` }, () => undefined);
    const metadata = (await store.getMessage(`${id}-a`))!.metadata;
    return { text: JSON.stringify(metadata.requests), metadata };
  };
  return { store, engine, thesis, house, sent };
}

const QUESTION = 'What is going on with the quokka colony logger, my dog Biscuit, the removal van, and what do I cook on Sunday?';

describe('projects: memory walls in answers', () => {
  it("a project-only project's memory never reaches a request outside it; inside, only its own memory does", async () => {
    const { engine, thesis, sent } = await setUp();
    await engine.conversations.create({ id: 'outside', title: 'Outside' });
    const outside = await sent('outside', QUESTION);
    expect(outside.text).toContain('beagle mix');
    expect(outside.text).toContain('removal van for the piano');
    expect(outside.text).toContain('vegetarian');
    expect(outside.text).not.toMatch(/quokka colony on plot|humidity logger|plot seven|committee|quokka colonies/);
    expect(outside.text).not.toContain('British English');
    expect(outside.metadata.project).toBeUndefined();

    await engine.conversations.create({ id: 'lab2', title: 'More lab', projectId: thesis.id });
    const inside = await sent('lab2', QUESTION);
    expect(inside.text).toContain('quokka colony on plot seven'); // the turn
    expect(inside.text).toContain('repairing the humidity logger'); // the episode
    expect(inside.text).toContain('lives on plot seven'); // the fact
    expect(inside.text).toContain('committee'); // the plan
    expect(inside.text).not.toMatch(/beagle mix|removal van for the piano|vegetarian|quokka colonies/);
    expect(inside.metadata.project).toEqual({ id: thesis.id, name: 'Thesis', memory: 'project-only' });
    const system = (inside.metadata.requests as { messages: { role: string; content: string }[] }[]).at(-1)!.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain('Instructions for the project "Thesis"');
    expect(system.content).toContain('Always answer in British English and cite the lab notebook.');

    // The person allows the profile: the saved memory and the project's own profile item come in.
    await engine.projects.edit(thesis.id, { useProfile: true });
    const withProfile = await sent('lab2', QUESTION);
    expect(withProfile.text).toContain('vegetarian');
    expect(withProfile.text).toContain('studies quokka colonies');
    expect(withProfile.text).not.toMatch(/beagle mix|removal van for the piano/);
  });

  it('a shared project reads and feeds all memory, and its instructions go with its answers only', async () => {
    const { engine, house, sent } = await setUp();
    await engine.projects.edit(house.id, { instructions: 'Answer with a packing checklist.' });
    await engine.conversations.create({ id: 'boxes2', title: 'More boxes', projectId: house.id });
    const inShared = await sent('boxes2', QUESTION);
    expect(inShared.text).toContain('beagle mix');
    expect(inShared.text).toContain('removal van for the piano');
    expect(inShared.text).toContain('Answer with a packing checklist.');
    expect(inShared.text).not.toMatch(/plot seven|humidity logger/);
    expect(inShared.metadata.project).toMatchObject({ name: 'House move', memory: 'shared' });
    const outside = await sent('pets', QUESTION);
    expect(outside.text).toContain('removal van for the piano'); // the shared project's chat feeds memory
    expect(outside.text).not.toContain('packing checklist');
  });

  it('"What was sent" records where every recalled item came from, decided when the request was built', async () => {
    const { engine, thesis, house, sent } = await setUp();
    type Recalled = { kind: string; ref: string; from?: string }[];
    const fromOf = (metadata: Record<string, unknown>) =>
      new Map((metadata.recalled as Recalled).map((c) => [`${c.kind}:${c.ref}`, c.from]));

    await engine.projects.edit(thesis.id, { useProfile: true });
    await engine.conversations.create({ id: 'lab2', title: 'More lab', projectId: thesis.id });
    const inside = fromOf((await sent('lab2', QUESTION)).metadata);
    expect(inside.get('turn:lab1')).toBe('project');
    expect(inside.get('episode:cell-lab')).toBe('project');
    expect(inside.get('fact:fact-lab')).toBe('project');
    expect(inside.get('foresight:plan-lab')).toBe('project');
    expect(inside.get('profile:prof-lab')).toBe('profile');
    expect([...inside.values()].every((f) => f === 'project' || f === 'profile')).toBe(true);

    await engine.conversations.create({ id: 'boxes2', title: 'More boxes', projectId: house.id });
    const shared = await sent('boxes2', QUESTION);
    const inShared = fromOf(shared.metadata);
    expect(inShared.get('turn:box1')).toBe('project');
    expect(inShared.get('turn:pets1')).toBe('shared');
    expect([...inShared.entries()].filter(([k]) => k.startsWith('profile:')).every(([, f]) => f === 'profile')).toBe(true);

    // Kept as recorded: moving the chat afterwards does not rewrite an earlier answer's record.
    await engine.projects.move('boxes', null);
    expect(fromOf((await engine.conversations.messages('boxes2')).find((m) => m.id === 'q2-a')!.metadata).get('turn:box1')).toBe('project');
  });

  it('the explorer, Saved memories and search list one project, or chats in no project, in the engine query', async () => {
    const { store, engine, thesis, house } = await setUp();
    const cells = async (project: string | null) => (await engine.memory.listMemCells({ limit: 50, project })).items.map((c) => c.id);
    expect(await cells(thesis.id)).toEqual(['cell-lab']);
    expect(await cells(null)).not.toContain('cell-lab');
    expect((await engine.memory.listMemCells({ limit: 50 })).items.map((c) => c.id)).toContain('cell-lab');
    const facts = await engine.memory.listFacts({ limit: 50, project: thesis.id });
    expect(facts).toMatchObject({ total: 1, items: [{ id: 'fact-lab' }] });
    expect(await engine.memory.listFacts({ limit: 50, project: null })).toMatchObject({ total: 0, items: [] });
    const hits = async (q: string, project: string | null) =>
      (await engine.memory.search(q, { project })).map((h) => `${h.kind}:${h.conversationId ?? ''}`);
    const inThesis = await hits('quokka colony plot seven', thesis.id);
    expect(inThesis.length).toBeGreaterThan(0);
    expect(inThesis.every((h) => h.endsWith(':lab'))).toBe(true);
    expect(await hits('quokka colony plot seven', null)).toEqual([]);
    expect(await hits('removal van piano', house.id)).toContain('turn:boxes');
    expect(await hits('removal van piano', null)).toEqual([]);
    expect(await hits('Biscuit beagle', null)).toContain('turn:pets');

    // Plans: made from a project's episode, or read from a turn of a chat in no project.
    await store.db.exec(
      `INSERT INTO foresights (id, source_message_id, source, content, start_at, end_at, created_at, updated_at) VALUES ('plan-pets', 'pets1', 'date-parser', 'Take Biscuit to the vet on Friday.', ${T0}, ${FUTURE}, ${T0}, ${T0})`,
    );
    const plans = async (project?: string | null) =>
      (await engine.plans.page({ limit: 50, activeAt: T0, ...(project === undefined ? {} : { project }) })).items.map((f) => f.id).sort();
    expect(await plans(thesis.id)).toEqual(['plan-lab']);
    expect(await plans(null)).toEqual(['plan-pets']);
    expect(await plans(house.id)).toEqual([]);
    expect(await plans()).toEqual(['plan-lab', 'plan-pets']);
  });

  it("Forget proposes only one project's messages, episodes, facts, plans and titles when asked, and no profile or theme", async () => {
    const { engine, thesis } = await setUp();
    const found = async (q: string, filter?: { project: string | null }) =>
      (await engine.memory.forgetPreview(q, filter)).map((c) => `${c.kind}:${c.id}`).sort();
    expect(await found('quokka', { project: thesis.id })).toEqual(['episode:cell-lab', 'fact:fact-lab', 'foresight:plan-lab', 'turn:lab1']);
    expect(await found('quokka', { project: null })).toEqual([]);
    // Unfiltered, the profile item drawn from the thesis is proposed too.
    expect(await found('quokka')).toEqual(['episode:cell-lab', 'fact:fact-lab', 'foresight:plan-lab', 'profile:prof-lab', 'turn:lab1']);
    expect(await found('Biscuit', { project: null })).toContain('turn:pets1');
    expect(await found('Biscuit', { project: thesis.id })).toEqual([]);
    expect(await found('Lab', { project: thesis.id })).toContain('title:lab');
    expect(await found('Lab', { project: null })).not.toContain('title:lab');
  });

  it('a moved conversation follows its new scope at the next answer', async () => {
    const { engine, thesis, sent } = await setUp();
    await engine.conversations.create({ id: 'outside', title: 'Outside' });
    expect((await sent('outside', QUESTION)).text).not.toContain('plot seven');
    await engine.projects.move('lab', null); // out of the wall: its memory becomes shared
    const after = await sent('outside', QUESTION);
    expect(after.text).toContain('quokka colony on plot seven');
    expect(after.text).toContain('lives on plot seven');
    expect(after.text).toContain('studies quokka colonies');

    await engine.projects.move('pets', thesis.id); // into the wall: gone from outside, seen inside
    expect((await sent('outside', QUESTION)).text).not.toContain('beagle mix');
    expect((await sent('pets', QUESTION)).text).toContain('beagle mix');
    await engine.projects.move('outside', thesis.id);
    const moved = await sent('outside', QUESTION);
    expect(moved.text).toContain('beagle mix');
    expect(moved.text).not.toContain('removal van for the piano');
  });

  it('deleting a project says what happens to its chats: kept in no project, or deleted', async () => {
    const { engine, store, thesis, house } = await setUp();
    expect(await engine.projects.delete(house.id, 'keep')).toEqual({ deletedConversations: 0 });
    expect((await store.getConversation('boxes'))?.projectId).toBeNull();
    expect(await engine.projects.delete(thesis.id, 'delete')).toEqual({ deletedConversations: 1 });
    expect(await store.getConversation('lab')).toBeNull();
    expect(await store.db.query("SELECT id FROM facts WHERE id = 'fact-lab'")).toEqual([]);
    expect(await engine.projects.list()).toEqual([]);
    await expect(engine.projects.delete('gone', 'keep')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const { engine, thesis } = await setUp();
    await expect(engine.projects.create({ name: '   ', memory: 'shared' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.projects.create({ name: 'X', memory: 'private' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.projects.create({ name: 'X', memory: 'shared', instructions: 'x'.repeat(9_000) })).rejects.toMatchObject({
      message: expect.stringContaining('8,000'),
    });
    await expect(engine.projects.edit(thesis.id, { memory: 'shared' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.projects.delete(thesis.id, 'maybe' as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.conversations.create({ title: 'Lost', projectId: 'no-such-project' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await engine.projects.list()).map((p) => p.name)).toEqual(['House move', 'Thesis']);
    expect((await engine.conversations.list()).map((c) => c.title)).not.toContain('Lost');
    const archived = await engine.projects.edit(thesis.id, { archived: true, name: '  Thesis   2026 ' });
    expect(archived).toMatchObject({ archived: true, name: 'Thesis 2026', memory: 'project-only' });
  });
});

describe('memory scope of an answer', () => {
  const walled = [
    { projectId: 'a', useProfile: true, conversationIds: ['a1', 'a2'] },
    { projectId: 'b', useProfile: false, conversationIds: ['b1'] },
  ];
  const project = (id: string, memory: 'shared' | 'project-only', useProfile = true) => ({
    id,
    name: id,
    instructions: '',
    memory,
    useProfile,
    archived: false,
    createdAt: 0,
    updatedAt: 0,
    conversationCount: 0,
  });

  it('is absent when no project-only project exists (every read as before projects)', () => {
    expect(answerScopeOf(null, [])).toEqual({});
    expect(answerScopeOf(project('s', 'shared'), []).scope).toBeUndefined();
  });

  it('walls off every project-only chat outside, and everything but its own chats inside', () => {
    const outside = answerScopeOf(null, walled).scope;
    expect(outside).toEqual({ without: ['a1', 'a2', 'b1'], profile: true });
    expect(inMemoryScope(outside, 'x')).toBe(true);
    expect(inMemoryScope(outside, 'b1')).toBe(false);
    const inA = answerScopeOf(project('a', 'project-only'), walled).scope;
    expect(inA).toEqual({ only: ['a1', 'a2'], without: ['b1'], profile: true });
    expect(inMemoryScope(inA, 'a2')).toBe(true);
    expect(inMemoryScope(inA, 'x')).toBe(false);
    expect(answerScopeOf(project('b', 'project-only', false), walled).scope).toEqual({
      only: ['b1'],
      without: ['a1', 'a2'],
      profile: false,
    });
  });
});
