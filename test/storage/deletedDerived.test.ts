/**
 * Deleting a derived item — a fact, a profile item, a plan, an episode's title and narrative —
 * removes its text from every stored answer request ("what was sent") and citation that carried
 * it, keeping the request's shape, and so from the exported bytes. The items are written with SQL
 * (each with its own unique word, in no turn), an answer is asked through the engine with the mock
 * endpoint, so its stored requests carry them as the real context composer printed them; then each
 * is deleted by the path the app uses. Mock LLM server: pipeline behaviour only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { createEngine } from '../../src/host/createEngine';
import { REDACTED } from '../../src/core/base/redaction';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'You enjoy pottery [1] [2] [3] [4] [5] [6].' });
});
afterAll(async () => mock.close());

const DAY = 86_400_000;
const FACT = 'The user takes pottery classes with Grelbinar on Sunday mornings.';
const PLAN = 'The user plans to show her pottery bowls at the Vostrapel fair.';
const EPISODE_TITLE = 'Pottery weekend at Mirthwold';
const NARRATIVE = 'The user spent a pottery weekend at the Mirthwold studio, threw six bowls and glazed two of them blue.';
const PROFILE_KEY = 'pottery teacher';
const PROFILE_VALUE = 'her pottery teacher is called Kestrafune';
const UNIQUE = { fact: 'Grelbinar', plan: 'Vostrapel', episode: 'Mirthwold', profile: 'Kestrafune' } as const;
const CITED = {
  fact: { kind: 'fact', ref: 'f1' },
  plan: { kind: 'foresight', ref: 'p1' },
  episode: { kind: 'episode', ref: 'm1' },
  profile: { kind: 'profile', ref: 'r1' },
} as const;

const bytesContain = (bytes: Uint8Array, text: string): boolean => Buffer.from(bytes).includes(Buffer.from(text, 'utf8'));

async function answeredWithEverything() {
  // answeringEngine's stages and the explorer, whose paths delete the items.
  const store = await openNodeStore();
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { sink: store.llmCalls, maxAttempts: 1 });
  const engine = createEngine(store, { only: ['episodes', 'synthesis', 'recall', 'explorer'], llm });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  const now = Date.now();
  await store.createConversation({ id: 'old', title: 'Weekend' });
  await store.appendTurns([
    {
      id: 'o1',
      conversationId: 'old',
      role: 'user',
      speaker: 'You',
      content: 'Back from the studio, my hands are covered in clay.',
      occurredAt: now - 10 * DAY,
    },
  ]);
  await store.db.exec(
    `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, title, narrative, status, created_at, updated_at)
    VALUES ('m1', 'old', 0, 0, ?, ?, ?, ?, 'synthesised', ?, ?)`,
    [now - 10 * DAY, now - 10 * DAY, EPISODE_TITLE, NARRATIVE, now - 10 * DAY, now - 10 * DAY],
  );
  await store.db.exec(
    `INSERT INTO facts (id, memcell_id, speaker, content, occurred_at, created_at, updated_at) VALUES ('f1', 'm1', 'You', ?, ?, ?, ?)`,
    [FACT, now - 10 * DAY, now - 10 * DAY, now - 10 * DAY],
  );
  await store.db.exec(
    `INSERT INTO foresights (id, memcell_id, content, start_at, end_at, evidence, source, created_at, updated_at) VALUES ('p1', 'm1', ?, ?, ?, '["o1"]', 'llm', ?, ?)`,
    [PLAN, now - DAY, now + 30 * DAY, now - 10 * DAY, now - 10 * DAY],
  );
  await store.db.exec(
    `INSERT INTO profile_items (id, kind, key, value, confidence, evidence, status, created_at, updated_at) VALUES ('r1', 'explicit', ?, ?, 0.8, '["m1"]', 'active', ?, ?)`,
    [PROFILE_KEY, PROFILE_VALUE, now - 10 * DAY, now - 10 * DAY],
  );
  await store.db.exec(
    `INSERT INTO profile_item_history (profile_item_id, op, value, confidence, reason, changed_at) VALUES ('r1', 'add', ?, 0.8, 'from scene summary', ?)`,
    [PROFILE_VALUE, now - 10 * DAY],
  );

  await store.createConversation({ id: 'c', title: 'Hobbies' });
  await engine.conversations.appendTurn({
    id: 'q1',
    conversationId: 'c',
    role: 'user',
    speaker: 'You',
    content: 'What do you remember about my pottery?',
    occurredAt: now,
  });
  await engine.idle();
  await engine.answers.ask({ conversationId: 'c', userMessageId: 'q1', answerId: 'a1' }, () => undefined);
  const stored = async () => JSON.stringify((await store.getMessage('a1'))!.metadata);
  const sent = await stored();
  for (const word of Object.values(UNIQUE)) expect(sent, word).toContain(word); // the request really carried each item
  for (const word of Object.values(UNIQUE)) expect(bytesContain(await engine.data.exportDatabase(), word), word).toBe(true);
  return { store, engine, stored };
}

describe('deleting a derived item', () => {
  const paths = [
    { kind: 'fact', remove: (e: Awaited<ReturnType<typeof answeredWithEverything>>['engine']) => e.memory.deleteFact('f1') },
    {
      kind: 'plan',
      remove: (e: Awaited<ReturnType<typeof answeredWithEverything>>['engine']) => e.memory.forget([{ kind: 'foresight', id: 'p1' }]),
    },
    { kind: 'profile', remove: (e: Awaited<ReturnType<typeof answeredWithEverything>>['engine']) => e.profile.delete('r1') },
    // Forget of an episode whose fact and plan stay: only its title and narrative go.
    {
      kind: 'episode',
      remove: (e: Awaited<ReturnType<typeof answeredWithEverything>>['engine']) => e.memory.forget([{ kind: 'episode', id: 'm1' }]),
    },
  ] as const;

  for (const path of paths) {
    it(`removes a deleted ${path.kind}'s text from stored requests, citations and the export`, async () => {
      const { store, engine, stored } = await answeredWithEverything();
      await path.remove(engine);
      const after = await stored();
      const word = UNIQUE[path.kind];
      expect(after).not.toContain(word);
      expect(after).toContain(REDACTED);
      // The request keeps its shape and everything else it held.
      expect(after).toContain('What do you remember about my pottery?');
      for (const [other, w] of Object.entries(UNIQUE)) if (other !== path.kind) expect(after, w).toContain(w);
      expect(bytesContain(await engine.data.exportDatabase(), word)).toBe(false);
      // Its citation is kept (the answer's [n] still points somewhere) with its label blanked.
      const cited = CITED[path.kind];
      const citations = ((await store.getMessage('a1'))!.metadata as { citations: { kind: string; ref: string; label: string }[] })
        .citations;
      const mine = citations.filter((c) => c.kind === cited.kind && c.ref === cited.ref);
      expect(mine.length, JSON.stringify(citations)).toBeGreaterThan(0);
      for (const c of mine) expect(c.label).toBe(REDACTED);
      expect(citations.filter((c) => !(c.kind === cited.kind && c.ref === cited.ref)).every((c) => c.label !== REDACTED)).toBe(true);
    });
  }

  /** Narrows episode m1 to turn o1, so deleting o1 is deleting a turn the episode was made from. */
  async function episodeOfO1(store: Awaited<ReturnType<typeof answeredWithEverything>>['store']) {
    const [cell] = await store.db.query<{ seq: number }>("SELECT seq FROM messages WHERE id = 'o1'");
    await store.db.exec("UPDATE memcells SET first_seq = ?, last_seq = ? WHERE id = 'm1'", [cell!.seq, cell!.seq]);
  }

  it('removes what the episode derived from a turn when the turn is deleted, the profile item drawn from it and its history included', async () => {
    const { store, engine, stored } = await answeredWithEverything();
    await episodeOfO1(store);
    await store.db.exec(
      "INSERT INTO profile_item_history (profile_item_id, op, value, confidence, reason, changed_at) VALUES ('r1', 'update', 'her first pottery teacher was Kestrafune senior', 0.7, 'older', 1)",
    );
    await engine.conversations.deleteMessage('o1');
    const after = await stored();
    for (const kind of ['fact', 'plan', 'episode', 'profile'] as const) expect(after, kind).not.toContain(UNIQUE[kind]);
    expect(after).toContain('What do you remember about my pottery?');
    expect(await store.db.query("SELECT id FROM profile_items WHERE id = 'r1'")).toEqual([]);
    expect(await store.db.query("SELECT id FROM profile_item_history WHERE profile_item_id = 'r1'")).toEqual([]);
    // Not forgotten for good: the profile update may add the key again from what remains.
    expect(await store.db.query("SELECT id FROM tombstones WHERE kind = 'profile'")).toEqual([]);
    const exported = await engine.data.exportDatabase();
    for (const kind of ['fact', 'plan', 'episode', 'profile'] as const) expect(bytesContain(exported, UNIQUE[kind]), kind).toBe(false);
  });

  it('removes the profile item drawn from a deleted conversation', async () => {
    const { store, engine, stored } = await answeredWithEverything();
    await engine.conversations.delete('old');
    expect(await stored()).not.toContain(UNIQUE.profile);
    expect(await store.db.query("SELECT id FROM profile_items WHERE id = 'r1'")).toEqual([]);
    expect(bytesContain(await engine.data.exportDatabase(), UNIQUE.profile)).toBe(false);
  });

  it("keeps a profile item the user edited, without the episode's evidence or the pipeline's earlier values", async () => {
    const { store, engine } = await answeredWithEverything();
    await episodeOfO1(store);
    await engine.profile.edit('r1', 'I learn pottery from a teacher at the studio');
    await engine.conversations.deleteMessage('o1');
    const [item] = await store.db.query<{ value: string; evidence: string }>("SELECT value, evidence FROM profile_items WHERE id = 'r1'");
    expect(item).toEqual({ value: 'I learn pottery from a teacher at the studio', evidence: '[]' });
    const history = await store.db.query<{ value: string | null }>("SELECT value FROM profile_item_history WHERE profile_item_id = 'r1'");
    expect(history.map((h) => h.value)).not.toContain(PROFILE_VALUE);
    expect(bytesContain(await engine.data.exportDatabase(), UNIQUE.profile)).toBe(false);
  });

  it('removes the episode, its fact and its plan when the episode is deleted whole', async () => {
    const { engine, stored } = await answeredWithEverything();
    await engine.memory.deleteMemCell('m1');
    const after = await stored();
    for (const kind of ['fact', 'plan', 'episode'] as const) expect(after, kind).not.toContain(UNIQUE[kind]);
    expect(after).toContain(UNIQUE.profile);
    const exported = await engine.data.exportDatabase();
    for (const kind of ['fact', 'plan', 'episode'] as const) expect(bytesContain(exported, UNIQUE[kind]), kind).toBe(false);
  });
});
