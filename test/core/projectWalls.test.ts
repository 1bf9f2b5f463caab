/**
 * Project walls on the write path. Themes (MemScenes) and the profile update must not mix a
 * project-only project's episodes with shared ones:
 * - an episode of a project-only chat joins only themes of its own project, a shared one only
 *   themes with no walled member, however similar they are;
 * - the profile update sends each side's themes with that side's profile items only, in a request
 *   of its own (checked on the requests the mock endpoint received), and what it proposes from a
 *   project's theme is evidenced by the project's episodes only, so recall keeps it inside.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { createEngine } from '../../src/host/createEngine';
import { SqlKnowledgeStore } from '../../src/storage/knowledgeRepo';
import { updateProfile } from '../../src/core/synthesis/profileUpdate';
import { synthesisResponder } from '../support/synthesisResponder';
import { topicProvider } from '../support/topicEmbedder';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 1, 2, 10);

/** A real-length turn (≈1,100 characters) with a table and a code block around `topic`. */
function turn(topic: string): string {
  return `Today about ${topic}. ${'I kept notes on what changed since last week, what still needs doing and who I asked for help, so the list stays honest. '.repeat(7)}
| what | state |
|---|---|
| ${topic} | open |

\`\`\`text
${topic}: follow up
\`\`\``;
}

const chatPrompts = () =>
  mock.requests
    .filter((r) => r.path.endsWith('/chat/completions'))
    .map((r) => JSON.stringify((r.body as { messages?: unknown } | undefined)?.messages ?? ''));

describe('project walls: themes', () => {
  it('a walled episode and a shared one on the same topic land in different themes', async () => {
    const store = await openNodeStore();
    const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { sink: store.llmCalls, maxAttempts: 1 });
    const engine = createEngine(store, { embedders: topicProvider(['quokka', 'biscuit']), llm });
    await engine.start();
    await engine.synthesis.setPolicy('off');
    const thesis = await engine.projects.create({ name: 'Thesis', memory: 'project-only' });
    await engine.conversations.create({ id: 'lab', title: 'Lab', projectId: thesis.id });
    await engine.conversations.create({ id: 'notes', title: 'Notes' });
    await engine.conversations.create({ id: 'dog', title: 'Dog' });
    // Day 1 opens an episode in each chat; a turn on day 3 closes it (a calendar-day change).
    let n = 0;
    const say = (conversationId: string, topic: string, at: number) =>
      engine.conversations.appendTurn({ id: `t${++n}`, conversationId, role: 'user', content: turn(topic), occurredAt: at });
    for (const day of [0, 2, 4]) {
      await say('dog', 'my dog biscuit', T0 + day * DAY);
      await say('lab', 'the quokka colony', T0 + day * DAY + 1000);
      await say('notes', 'the quokka documentary', T0 + day * DAY + 2000);
    }
    await engine.idle();
    const rows = await store.db.query<{ conversation_id: string; scene_id: string | null }>(
      "SELECT conversation_id, scene_id FROM memcells WHERE conversation_id IN ('lab', 'notes') AND scene_id IS NOT NULL",
    );
    const lab = new Set(rows.filter((r) => r.conversation_id === 'lab').map((r) => r.scene_id));
    const notes = new Set(rows.filter((r) => r.conversation_id === 'notes').map((r) => r.scene_id));
    expect(lab.size).toBeGreaterThan(0);
    expect(notes.size).toBeGreaterThan(0);
    expect([...lab].filter((s) => notes.has(s))).toEqual([]);
    // The same topic still groups within each side: the lab episodes share one theme.
    expect(rows.filter((r) => r.conversation_id === 'lab').length).toBeGreaterThan(1);
    expect(lab.size).toBe(1);
  });
});

describe('project walls: the profile update', () => {
  async function seeded() {
    const store = await openNodeStore();
    const db = store.db;
    await db.exec(`INSERT INTO projects (id, name, memory, created_at, updated_at) VALUES ('p', 'Thesis', 'project-only', ${T0}, ${T0})`);
    await store.createConversation({ id: 'lab', title: 'Lab', projectId: 'p' });
    await store.createConversation({ id: 'pets', title: 'Pets' });
    for (const [cell, conv, scene, title, summary] of [
      ['cell-lab', 'lab', 's-lab', 'Quokka colony', 'The user is repairing the humidity logger of the quokka colony on plot seven.'],
      ['cell-pets', 'pets', 's-pets', 'Biscuit', 'The user feeds Biscuit, a beagle mix, salmon kibble.'],
    ] as const) {
      await db.exec('INSERT INTO memscenes (id, title, summary, created_at, updated_at, last_activity_at) VALUES (?, ?, ?, ?, ?, ?)', [
        scene,
        title,
        summary,
        T0,
        T0,
        T0,
      ]);
      await db.exec(
        `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, status, scene_id, created_at, updated_at)
         VALUES (?, ?, 0, 0, ?, ?, ?, ?, 'synthesised', ?, ?, ?)`,
        [cell, conv, T0, T0, title, summary, scene, T0, T0],
      );
    }
    await db.exec(
      `INSERT INTO profile_items (id, kind, key, value, confidence, evidence, created_at, updated_at) VALUES
        ('prof-lab', 'explicit', 'research', 'studies quokka colonies', 0.9, '["cell-lab"]', ${T0}, ${T0}),
        ('prof-pets', 'explicit', 'dog', 'has a beagle mix called Biscuit', 0.9, '["cell-pets"]', ${T0}, ${T0})`,
    );
    const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { maxAttempts: 1 });
    let id = 0;
    return { db, deps: { llm, store: new SqlKnowledgeStore(db), clock: { now: () => T0 + DAY }, newId: () => `new${++id}` } };
  }

  it("sends a project's themes and profile items in their own request, never beside shared memory", async () => {
    const { db, deps } = await seeded();
    // The model adds one item from every theme it is shown (evidence S1: that request's first theme).
    mock.setBehaviour({
      responder: (req) =>
        JSON.stringify({
          operations: [
            {
              op: 'add',
              id: null,
              kind: 'implicit',
              key: JSON.stringify(req.messages).includes('quokka') ? 'fieldwork' : 'pets',
              value: JSON.stringify(req.messages).includes('quokka') ? 'works outdoors' : 'likes dogs',
              confidence: 0.7,
              evidence: ['S1'],
              reason: 'from the theme',
            },
          ],
        }),
    });
    mock.requests.length = 0;
    const result = await updateProfile(deps);
    expect(result.calls).toBe(2);
    const prompts = chatPrompts();
    expect(prompts).toHaveLength(2);
    const walled = prompts.filter((p) => p.includes('quokka'));
    const shared = prompts.filter((p) => p.includes('Biscuit'));
    expect(walled).toHaveLength(1);
    expect(shared).toHaveLength(1);
    expect(walled[0]).not.toMatch(/Biscuit|beagle/);
    expect(shared[0]).not.toMatch(/quokka|plot seven/);
    // What came from the project's theme is evidenced by the project's episode only.
    const added = await db.query<{ key: string; evidence: string }>(
      "SELECT key, evidence FROM profile_items WHERE id LIKE 'new%' ORDER BY key",
    );
    expect(added).toEqual([
      { key: 'fieldwork', evidence: '["cell-lab"]' },
      { key: 'pets', evidence: '["cell-pets"]' },
    ]);
  });

  it('a theme mixing both sides (made before the wall) is left out of the profile update', async () => {
    const { db, deps } = await seeded();
    await db.exec("UPDATE memcells SET scene_id = 's-pets' WHERE id = 'cell-lab'");
    mock.setBehaviour({ responder: () => JSON.stringify({ operations: [] }) });
    mock.requests.length = 0;
    await updateProfile(deps);
    expect(chatPrompts().some((p) => p.includes('beagle') && p.includes('quokka'))).toBe(false);
    expect(chatPrompts().some((p) => p.includes('Biscuit'))).toBe(false);
  });
});

describe('project walls: a chat moved across a wall', () => {
  const MIXED = 'The user compares the quokka colony on plot seven with a quokka documentary they watched.';

  /** Two chats in no project whose episodes share one theme (as clustering made it before any wall). */
  async function sharedTheme() {
    const store = await openNodeStore();
    const db = store.db;
    await store.createConversation({ id: 'lab', title: 'Lab' });
    await store.createConversation({ id: 'notes', title: 'Notes' });
    await db.exec(
      'INSERT INTO memscenes (id, title, summary, summary_stale, member_count, created_at, updated_at, last_activity_at) VALUES (?, ?, ?, 0, 3, ?, ?, ?)',
      ['s-mix', 'Quokkas', MIXED, T0, T0, T0],
    );
    for (const [cell, conv, at] of [
      ['cell-lab-1', 'lab', T0],
      ['cell-lab-2', 'lab', T0 + DAY],
      ['cell-notes', 'notes', T0 + 2 * DAY],
    ] as const) {
      await db.exec(
        `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, status, scene_id, created_at, updated_at)
         VALUES (?, ?, 0, 0, ?, ?, 'Quokkas', ?, 'synthesised', 's-mix', ?, ?)`,
        [cell, conv, at, at, MIXED, at, at],
      );
    }
    const engine = createEngine(store, { embedders: topicProvider(['quokka', 'biscuit']) });
    await engine.start();
    await engine.synthesis.setPolicy('off');
    return { store, db, engine };
  }

  /** Each theme's episodes by conversation, and every theme's summary. */
  async function themes(db: Awaited<ReturnType<typeof openNodeStore>>['db']) {
    const rows = await db.query<{ scene_id: string; conversation_id: string }>(
      'SELECT scene_id, conversation_id FROM memcells WHERE scene_id IS NOT NULL ORDER BY scene_id, conversation_id',
    );
    const members = new Map<string, Set<string>>();
    for (const r of rows) members.set(r.scene_id, (members.get(r.scene_id) ?? new Set()).add(r.conversation_id));
    const summaries = (await db.query<{ summary: string | null }>('SELECT summary FROM memscenes')).map((r) => r.summary);
    return { members: [...members.values()].map((s) => [...s].sort()), summaries };
  }

  it('moving a chat into a project-only project splits the theme it shared, and drops the summary written from both sides', async () => {
    const { db, engine } = await sharedTheme();
    expect((await themes(db)).members).toEqual([['lab', 'notes']]);
    const thesis = await engine.projects.create({ name: 'Thesis', memory: 'project-only' });
    await engine.projects.move('lab', thesis.id);
    const after = await themes(db);
    expect(after.members.sort()).toEqual([['lab'], ['notes']]);
    expect(after.summaries).not.toContain(MIXED);
    // The side with more episodes (the lab's two) keeps the theme; the notes get a new one.
    const [kept] = await db.query<{ scene_id: string }>("SELECT scene_id FROM memcells WHERE id = 'cell-lab-2'");
    expect(kept?.scene_id).toBe('s-mix');
    const [counts] = await db.query<{ n: number }>("SELECT member_count AS n FROM memscenes WHERE id = 's-mix'");
    expect(counts?.n).toBe(2);
    // Both themes are summarised again, each from its own side.
    const queued = await db.query<{ payload: string }>("SELECT payload FROM jobs WHERE kind = 'summarise-scene'");
    expect(queued.length).toBe(2);
    // Moving it out again splits nothing more (no theme holds both sides), and nothing is doubled.
    await engine.projects.move('lab', null);
    expect((await themes(db)).members.sort()).toEqual([['lab'], ['notes']]);
    engine.stop();
  });

  it("moving one of a project-only project's chats out splits the project's theme", async () => {
    const { db, engine } = await sharedTheme();
    const thesis = await engine.projects.create({ name: 'Thesis', memory: 'project-only' });
    await engine.projects.move('lab', thesis.id);
    await engine.projects.move('notes', thesis.id);
    await db.exec("UPDATE memcells SET scene_id = 's-mix'"); // one theme of the project's two chats
    await engine.projects.move('notes', null);
    expect((await themes(db)).members.sort()).toEqual([['lab'], ['notes']]);
    engine.stop();
  });

  it('a theme left mixed while the engine was closed (an older memory) is split when it opens', async () => {
    const { store, db, engine } = await sharedTheme();
    const thesis = await engine.projects.create({ name: 'Thesis', memory: 'project-only' });
    engine.stop();
    await store.projects.moveConversation('lab', thesis.id); // past the engine: nothing splits yet
    expect((await themes(db)).members).toEqual([['lab', 'notes']]);
    const reopened = createEngine(store, { embedders: topicProvider(['quokka', 'biscuit']) });
    await reopened.start();
    await reopened.idle();
    const after = await themes(db);
    expect(after.members.sort()).toEqual([['lab'], ['notes']]);
    expect(after.summaries).not.toContain(MIXED);
    reopened.stop();
  });
});
