import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sql } from '../../src/core/base/sql';
import type { Clock } from '../../src/core/base/ports';
import { LlmClient } from '../../src/llm/LlmClient';
import { openMemoryDatabase } from '../../src/storage/openNodeDatabase';
import { SqlKnowledgeStore } from '../../src/storage/knowledgeRepo';
import {
  activeForesight,
  attributeFact,
  expireForesight,
  summariseScene,
  synthesiseMemCell,
  type SynthesisDeps,
} from '../../src/core/synthesis/synthesis';
import { startMockLlmServer, type MockChatRequest, type MockLlmServer, type MockResponder } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { updateProfile } from '../../src/core/synthesis/profileUpdate';

const DAY = 86_400_000;
const T0 = Date.UTC(2023, 4, 8, 14, 0); // Monday 8 May 2023, 14:00 UTC
const clock: Clock = { now: () => T0 + DAY };

let mock: MockLlmServer;
let db: Sql;
let store: SqlKnowledgeStore;
let deps: SynthesisDeps;

beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => {
  await mock.close();
});

let idCounter = 0;
beforeEach(async () => {
  mock.setBehaviour({ responder: synthesisResponder, malformedNext: 0, truncateNext: 0, rateLimitNext: 0, serverErrorNext: 0 });
  mock.requests.length = 0;
  db = await openMemoryDatabase();
  store = new SqlKnowledgeStore(db);
  const llm = new LlmClient(
    { baseUrl: mock.url, model: 'mock-model' },
    { timeoutMs: 5_000, maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  );
  deps = { llm, store, clock, newId: () => `p${++idCounter}` };
  await db.exec("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Chat', 0, 0)");
});

interface Turn {
  role: 'user' | 'assistant';
  speaker: string;
  content: string;
  at: number;
}

async function addTurns(turns: readonly Turn[]): Promise<{ first: number; last: number; ids: string[] }> {
  const [row] = await db.query<{ n: number }>("SELECT coalesce(max(seq), 0) AS n FROM messages WHERE conversation_id = 'c1'");
  const start = Number(row!.n) + 1;
  const ids: string[] = [];
  for (const [i, t] of turns.entries()) {
    const id = `m${start + i}`;
    ids.push(id);
    await db.exec(
      'INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [id, 'c1', start + i, t.role, t.speaker, t.content, t.at, t.at, 10],
    );
  }
  return { first: start, last: start + turns.length - 1, ids };
}

async function addScene(id: string, summary: string | null = null, title: string | null = null): Promise<void> {
  await db.exec('INSERT INTO memscenes (id, title, summary, created_at, updated_at) VALUES (?, ?, ?, 0, 0)', [id, title, summary]);
}

/** A raw cell over new turns. */
async function addCell(id: string, turns: readonly Turn[], sceneId: string | null = null): Promise<string[]> {
  const { first, last, ids } = await addTurns(turns);
  await db.exec(
    'INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, scene_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)',
    [id, 'c1', first, last, turns[0]!.at, turns[turns.length - 1]!.at, sceneId],
  );
  return ids;
}

async function addFact(id: string, memcellId: string, speaker: string, content: string): Promise<void> {
  await db.exec('INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)', [
    id,
    memcellId,
    speaker,
    content,
  ]);
}

const rows = <T extends Record<string, unknown>>(sql: string, params: (string | number | null)[] = []) =>
  db.query(sql, params) as Promise<T[]>;

const chatRequests = () => mock.requests.filter((r) => r.path.endsWith('/chat/completions'));
const promptOf = (req: MockChatRequest | { body?: Record<string, unknown> }): string =>
  ((('body' in req ? req.body?.messages : (req as MockChatRequest).messages) ?? []) as { role: string; content: string }[]).find(
    (m) => m.role === 'user',
  )?.content ?? '';

/** Answers the memcell stage with a fixed object; other stages fall through to the mechanical responder. */
function memcellAnswer(value: unknown): MockResponder {
  return (req) => (promptOf(req).includes('\nTURNS:\n') ? JSON.stringify(value) : synthesisResponder(req));
}

const aliceTurns: Turn[] = [
  { role: 'user', speaker: 'Alice', content: 'I moved to Lisbon last week, the flat is near the river.', at: T0 },
  { role: 'assistant', speaker: 'Recollect', content: 'Congratulations! Lisbon is lovely in spring.', at: T0 + 60_000 },
  { role: 'user', speaker: 'Alice', content: 'I will start the new job next week at a design studio.', at: T0 + 120_000 },
];

describe('synthesiseMemCell', () => {
  it('persists narrative, attributed facts and foresight from a valid response in one go', async () => {
    await addCell('cell1', aliceTurns);
    const result = await synthesiseMemCell(deps, 'cell1');
    expect(result).not.toBeNull();
    const [cell] = await rows<{ status: string; title: string; narrative: string }>(
      "SELECT status, title, narrative FROM memcells WHERE id = 'cell1'",
    );
    expect(cell!.status).toBe('synthesised');
    expect(cell!.title).toContain('Lisbon');
    expect(cell!.narrative).toContain('Alice');
    const facts = await rows<{ id: string; speaker: string; content: string; occurred_at: number }>(
      "SELECT id, speaker, content, occurred_at FROM facts WHERE memcell_id = 'cell1' ORDER BY id",
    );
    expect(facts.map((f) => f.speaker)).toEqual(['Alice', 'Alice']);
    expect(facts.map((f) => f.id)).toEqual(result!.factIds);
    expect(Number(facts[1]!.occurred_at)).toBe(T0 + 120_000);
    // Facts are searchable at once (FTS kept by triggers).
    const hits = await rows("SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'studio'");
    expect(hits).toHaveLength(1);
    const foresight = await rows<{ content: string; start_at: number; end_at: number; evidence: string; source: string }>(
      "SELECT content, start_at, end_at, evidence, source FROM foresights WHERE memcell_id = 'cell1'",
    );
    expect(foresight).toHaveLength(1);
    expect(foresight[0]!.source).toBe('llm');
    expect(JSON.parse(foresight[0]!.evidence)).toEqual(['m3']);
    expect(Number(foresight[0]!.start_at)).toBe(Date.UTC(2023, 4, 8));
    expect(Number(foresight[0]!.end_at)).toBe(Date.UTC(2023, 4, 15) + DAY - 1);
    // The prompt carries absolute timestamps and roles, never relative dates of our own.
    const prompt = promptOf(chatRequests()[0]!);
    expect(prompt).toContain('[1] Monday 8 May 2023, 14:00 | Alice (user): I moved to Lisbon');
    expect(prompt).toContain('[2] Monday 8 May 2023, 14:01 | Recollect (assistant)');
  });

  it('returns null for a cell that no longer exists, without calling the model', async () => {
    expect(await synthesiseMemCell(deps, 'missing')).toBeNull();
    expect(chatRequests()).toHaveLength(0);
  });

  it('retries once after malformed JSON and persists the second answer', async () => {
    await addCell('cell1', aliceTurns);
    mock.setBehaviour({ malformedNext: 1 });
    await synthesiseMemCell(deps, 'cell1');
    expect(chatRequests()).toHaveLength(2);
    expect(await rows("SELECT id FROM facts WHERE memcell_id = 'cell1'")).toHaveLength(2);
  });

  it('propagates LLM_BAD_OUTPUT when the reply stays malformed, writing nothing', async () => {
    await addCell('cell1', aliceTurns);
    mock.setBehaviour({ malformedNext: 2 });
    await expect(synthesiseMemCell(deps, 'cell1')).rejects.toMatchObject({ code: 'LLM_BAD_OUTPUT' });
    const [cell] = await rows<{ status: string; narrative: string | null }>("SELECT status, narrative FROM memcells WHERE id = 'cell1'");
    expect(cell).toEqual({ status: 'raw', narrative: null });
    expect(await rows('SELECT id FROM facts')).toHaveLength(0);
    expect(await rows('SELECT id FROM foresights')).toHaveLength(0);
    expect(await rows("SELECT id FROM messages WHERE conversation_id = 'c1'")).toHaveLength(3);
  });

  it('repairs or retries a truncated reply and persists a valid result', async () => {
    await addCell('cell1', aliceTurns);
    mock.setBehaviour({ truncateNext: 1 });
    await synthesiseMemCell(deps, 'cell1');
    const [cell] = await rows<{ status: string; narrative: string }>("SELECT status, narrative FROM memcells WHERE id = 'cell1'");
    expect(cell!.status).toBe('synthesised');
    // The narrative the responder writes (its day, then what Alice said), not an empty placeholder.
    expect(cell!.narrative).toMatch(/^On \d{4}-\d{2}-\d{2}, Alice said: /);
    const facts = await rows<{ content: string }>("SELECT content FROM facts WHERE memcell_id = 'cell1'");
    expect(new Set(facts.map((f) => f.content)).size).toBe(facts.length);
  });

  it('fails cleanly when every reply is truncated before the required narrative', async () => {
    await addCell('cell1', aliceTurns);
    const facts = Array.from({ length: 12 }, (_, i) => ({
      text: `Alice fact number ${i} about her flat near the river`,
      speaker: 'Alice',
      kind: 'new',
      turns: [1],
    }));
    mock.setBehaviour({
      truncateNext: 2,
      responder: memcellAnswer({ facts, foresight: [], title: 'Move', narrative: 'On 8 May 2023 Alice talked about her move.' }),
    });
    await expect(synthesiseMemCell(deps, 'cell1')).rejects.toMatchObject({ code: 'LLM_BAD_OUTPUT' });
    expect(chatRequests()).toHaveLength(2);
    expect(await rows('SELECT id FROM facts')).toHaveLength(0);
    expect((await rows<{ status: string }>("SELECT status FROM memcells WHERE id = 'cell1'"))[0]!.status).toBe('raw');
  });

  it('waits out a 429 and then succeeds', async () => {
    await addCell('cell1', aliceTurns);
    mock.setBehaviour({ rateLimitNext: 1 });
    const result = await synthesiseMemCell(deps, 'cell1');
    expect(chatRequests()).toHaveLength(2);
    expect(result!.factIds).toHaveLength(2);
  });

  it('a job retried after a crash does not duplicate facts or foresight', async () => {
    await addCell('cell1', aliceTurns);
    // Crash inside the write transaction: everything rolls back.
    let crash = true;
    const crashing: Sql = {
      exec: (sql, params) => db.exec(sql, params),
      query: (sql, params) => db.query(sql, params),
      changes: () => db.changes(),
      transaction: (fn) =>
        db.transaction((tx) =>
          fn({
            ...tx,
            exec: async (sql, params) => {
              if (crash && sql.includes('INSERT INTO foresights')) throw new Error('simulated crash');
              return tx.exec(sql, params);
            },
            query: (sql, params) => tx.query(sql, params),
            changes: () => tx.changes(),
            transaction: (inner) => tx.transaction(inner),
          }),
        ),
    };
    await expect(synthesiseMemCell({ ...deps, store: new SqlKnowledgeStore(crashing) }, 'cell1')).rejects.toThrow('simulated crash');
    expect(await rows('SELECT id FROM facts')).toHaveLength(0);
    expect((await rows<{ status: string }>("SELECT status FROM memcells WHERE id = 'cell1'"))[0]!.status).toBe('raw');
    crash = false;

    // Crash after commit but before the job was marked done: the job runs again.
    const first = await synthesiseMemCell(deps, 'cell1');
    const second = await synthesiseMemCell(deps, 'cell1');
    expect(second!.factIds).toEqual(first!.factIds);
    expect(await rows('SELECT id FROM facts')).toHaveLength(2);
    expect(await rows('SELECT id FROM foresights')).toHaveLength(1);
    expect(await rows("SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'studio'")).toHaveLength(1);
  });

  it('keeps user-edited facts across re-synthesis and shows them as known', async () => {
    await addCell('cell1', aliceTurns);
    await synthesiseMemCell(deps, 'cell1');
    await db.exec("UPDATE facts SET content = 'Alice moved to Lisbon on 1 May 2023.', edited_by_user = 1 WHERE id = 'cell1:f0'");
    mock.requests.length = 0;
    await synthesiseMemCell(deps, 'cell1');
    expect(promptOf(chatRequests()[0]!)).toContain('K1 | Alice | Alice moved to Lisbon on 1 May 2023.');
    const facts = await rows<{ id: string; edited_by_user: number }>(
      "SELECT id, edited_by_user FROM facts WHERE memcell_id = 'cell1' ORDER BY id",
    );
    expect(facts.map((f) => [f.id, Number(f.edited_by_user)])).toEqual([
      ['cell1:f0', 1],
      ['cell1:f1', 0],
      ['cell1:f2', 0],
    ]);
  });

  describe('predict-calibrate', () => {
    it('sends the known facts of the scene and lexical matches, and an update supersedes the old fact', async () => {
      await addScene('s1');
      await addCell('old', [{ role: 'user', speaker: 'Alice', content: 'I live in Porto.', at: T0 - 30 * DAY }], 's1');
      await addFact('fOld', 'old', 'Alice', 'Alice lives in Porto.');
      await addCell('other', [{ role: 'user', speaker: 'Bob', content: 'I like sailing.', at: T0 - 20 * DAY }]);
      await addFact('fLex', 'other', 'Bob', 'Bob likes sailing on the river.');
      await addFact('fUnrelated', 'other', 'Bob', 'Bob owns a bicycle.');
      await addCell('cell1', aliceTurns, 's1');
      mock.setBehaviour({
        responder: memcellAnswer({
          title: 'Alice moves to Lisbon',
          narrative: 'On 8 May 2023 Alice told the assistant she had moved to Lisbon in early May 2023.',
          facts: [
            {
              text: 'Alice moved from Porto to Lisbon in early May 2023.',
              speaker: 'Alice',
              kind: 'update',
              replaces: 'K1',
              turns: [1],
              validFrom: '2023-05-01',
              validTo: null,
            },
          ],
          foresight: [],
        }),
      });
      const result = await synthesiseMemCell(deps, 'cell1');
      const prompt = promptOf(chatRequests()[0]!);
      expect(prompt).toContain('KNOWN FACTS:\nK1 | Alice | Alice lives in Porto.');
      expect(prompt).toContain('Bob likes sailing on the river.'); // lexical match on "river"
      expect(prompt).not.toContain('bicycle');
      expect(result!.knownFacts).toBe(2);
      expect(result!.supersededIds).toEqual(['fOld']);
      const [old] = await rows<{ superseded_by: string; valid_to: number; confidence: number }>(
        "SELECT superseded_by, valid_to, confidence FROM facts WHERE id = 'fOld'",
      );
      expect(old!.superseded_by).toBe(result!.factIds[0]);
      expect(Number(old!.valid_to)).toBe(Date.UTC(2023, 4, 1));
      expect(Number(old!.confidence)).toBe(1);
      const [created] = await rows<{ valid_from: number }>('SELECT valid_from FROM facts WHERE id = ?', [result!.factIds[0]!]);
      expect(Number(created!.valid_from)).toBe(Date.UTC(2023, 4, 1));
    });

    it('a repeated topic costs only what is new', async () => {
      await addScene('s1');
      await addCell('cell1', aliceTurns, 's1');
      await synthesiseMemCell(deps, 'cell1');
      await addCell(
        'cell2',
        [aliceTurns[0]!, { ...aliceTurns[2]!, content: 'I will start the new job next week at a design studio.' }].map((t, i) => ({
          ...t,
          at: T0 + DAY + i,
        })),
        's1',
      );
      const again = await synthesiseMemCell(deps, 'cell2');
      expect(again!.knownFacts).toBe(2);
      expect(again!.factIds).toEqual([]);
      expect(await rows("SELECT id FROM facts WHERE memcell_id = 'cell2'")).toHaveLength(0);
    });

    it('a contradiction supersedes the old fact and lowers its confidence, leaving its validity open', async () => {
      await addScene('s1');
      await addCell('old', [{ role: 'user', speaker: 'Alice', content: 'I am vegetarian.', at: T0 - 30 * DAY }], 's1');
      await addFact('fOld', 'old', 'Alice', 'Alice is vegetarian.');
      await addCell('cell1', [{ role: 'user', speaker: 'Alice', content: 'I had a steak, I have always eaten meat.', at: T0 }], 's1');
      mock.setBehaviour({
        responder: memcellAnswer({
          title: 'Steak',
          narrative: 'On 8 May 2023 Alice said she has always eaten meat.',
          facts: [{ text: 'Alice has always eaten meat.', speaker: 'Alice', kind: 'contradiction', replaces: 'K1', turns: [1] }],
          foresight: [],
        }),
      });
      const result = await synthesiseMemCell(deps, 'cell1');
      const [old] = await rows<{ superseded_by: string; valid_to: number | null; confidence: number }>(
        "SELECT superseded_by, valid_to, confidence FROM facts WHERE id = 'fOld'",
      );
      expect(old).toEqual({ superseded_by: result!.factIds[0], valid_to: null, confidence: 0.5 });
      const [created] = await rows<{ content: string; memcell_id: string }>('SELECT content, memcell_id FROM facts WHERE id = ?', [
        result!.factIds[0]!,
      ]);
      expect(created).toEqual({ content: 'Alice has always eaten meat.', memcell_id: 'cell1' });
    });

    it('an update naming an unknown fact is stored as new and supersedes nothing', async () => {
      await addCell('cell1', aliceTurns);
      await addFact('fX', 'cell1', 'Alice', 'unrelated');
      mock.setBehaviour({
        responder: memcellAnswer({
          title: 't',
          narrative: 'n',
          facts: [{ text: 'Alice lives in Lisbon.', speaker: 'Alice', kind: 'update', replaces: 'K7', turns: [1] }],
          foresight: [],
        }),
      });
      const result = await synthesiseMemCell(deps, 'cell1');
      expect(result!.supersededIds).toEqual([]);
    });
  });

  describe('attribution', () => {
    it("never stores the assistant's words as the user's facts", async () => {
      await addCell('cell1', [
        { role: 'user', speaker: 'Alice', content: 'What should I cook tonight?', at: T0 },
        { role: 'assistant', speaker: 'Recollect', content: 'You love Thai food, so try a green curry with tofu.', at: T0 + 1 },
        { role: 'user', speaker: 'Alice', content: 'Good idea, I have tofu in the fridge.', at: T0 + 2 },
      ]);
      mock.setBehaviour({
        responder: memcellAnswer({
          title: 'Dinner',
          narrative: 'On 8 May 2023 Alice asked what to cook.',
          facts: [
            { text: 'Alice loves Thai food.', speaker: 'Alice', kind: 'new', turns: [2] }, // only the assistant said it: dropped
            { text: 'Alice loves green curry with tofu.', speaker: 'Alice', kind: 'new', turns: [] }, // best-matching turn is the assistant's: dropped
            { text: 'The assistant suggested a green curry with tofu.', speaker: 'Recollect', kind: 'new', turns: [2] },
            { text: 'The assistant recommends Thai food.', speaker: 'assistant', kind: 'new', turns: [2] },
            { text: 'Alice has tofu in the fridge on 8 May 2023.', speaker: 'user', kind: 'new', turns: [3] },
            { text: 'Alice wanted to cook dinner on 8 May 2023.', speaker: null, kind: 'new', turns: [1] },
          ],
          foresight: [],
        }),
      });
      const result = await synthesiseMemCell(deps, 'cell1');
      const facts = await rows<{ speaker: string; content: string }>(
        "SELECT speaker, content FROM facts WHERE memcell_id = 'cell1' ORDER BY id",
      );
      expect(facts).toEqual([
        { speaker: 'Assistant', content: 'The assistant suggested a green curry with tofu.' },
        { speaker: 'Assistant', content: 'The assistant recommends Thai food.' },
        { speaker: 'Alice', content: 'Alice has tofu in the fridge on 8 May 2023.' },
        { speaker: 'Alice', content: 'Alice wanted to cook dinner on 8 May 2023.' },
      ]);
      expect(result!.droppedFacts).toBe(2);
      expect(promptOf(chatRequests()[0]!)).toContain('People: Alice (user), Recollect (assistant)');
    });

    it('keeps facts about third parties and a user fact that the user also said', () => {
      const turns = [
        { messageId: 'a', seq: 1, role: 'user' as const, speaker: 'Alice', content: 'My sister Eva lives in Berlin.', occurredAt: T0 },
        { messageId: 'b', seq: 2, role: 'assistant' as const, speaker: 'Bot', content: 'Berlin is great.', occurredAt: T0 + 1 },
      ];
      expect(attributeFact({ text: 'Eva lives in Berlin.', speaker: 'Eva', turns: [1] }, turns)?.speaker).toBe('Eva');
      expect(attributeFact({ text: 'Alice likes Berlin.', speaker: 'Alice', turns: [1, 2] }, turns)?.speaker).toBe('Alice');
      expect(attributeFact({ text: 'Alice likes Berlin.', speaker: 'Alice', turns: [2] }, turns)).toBeNull();
      expect(attributeFact({ text: 'Berlin is great.', speaker: 'Bot', turns: [2] }, turns)?.speaker).toBe('Assistant');
    });
  });
});

describe('summariseScene', () => {
  it('folds new members into the summary and clears summary_stale', async () => {
    await addScene('s1', 'Alice lives in Porto since 2020.', 'Home');
    await addCell('cell1', aliceTurns, 's1');
    await synthesiseMemCell(deps, 'cell1');
    mock.requests.length = 0;
    const result = await summariseScene(deps, 's1');
    expect(result!.title).toBe('Home');
    const prompt = promptOf(chatRequests()[0]!);
    expect(prompt).toContain('CURRENT SUMMARY:\nAlice lives in Porto since 2020.');
    expect(prompt).toMatch(/NEW EPISODES:\nE1 \| 8 May 2023 \| /);
    const [scene] = await rows<{ summary: string; summary_stale: number }>("SELECT summary, summary_stale FROM memscenes WHERE id = 's1'");
    expect(scene!.summary).toContain('Alice lives in Porto since 2020.');
    expect(scene!.summary).toContain('Alice said: I moved to Lisbon');
    expect(Number(scene!.summary_stale)).toBe(0);
  });

  it('does not call the model for a scene without synthesised members; keeps a user title; writes nothing for a forgotten summary', async () => {
    await addScene('s1');
    await addCell('cell1', aliceTurns, 's1');
    expect(await summariseScene(deps, 's1')).toBeNull();
    await db.exec("UPDATE memscenes SET title = 'My title', edited_by_user = 1 WHERE id = 's1'");
    await synthesiseMemCell(deps, 'cell1');
    mock.requests.length = 0;
    const result = await summariseScene(deps, 's1');
    expect(chatRequests()).toHaveLength(1);
    expect(result).toMatchObject({ title: 'My title' });
    const [row] = await rows<{ title: string; summary: string }>("SELECT title, summary FROM memscenes WHERE id = 's1'");
    expect(row).toMatchObject({ title: 'My title' });
    // The summary is drawn from the synthesised member's narrative.
    expect(row!.summary).toContain('Alice said:');

    await db.exec("UPDATE memscenes SET title = NULL, summary = NULL, summary_forgotten = 1 WHERE id = 's1'");
    mock.requests.length = 0;
    expect(await summariseScene(deps, 's1')).toBeNull();
    expect(chatRequests()).toHaveLength(0);
    expect((await rows<{ summary: string | null }>("SELECT summary FROM memscenes WHERE id = 's1'"))[0]!.summary).toBeNull();
  });
});

describe('updateProfile', () => {
  async function sceneWithCell(sceneId: string, cellId: string, at: number, summary: string, title: string): Promise<void> {
    await addScene(sceneId, summary, title);
    await addCell(cellId, [{ role: 'user', speaker: 'Alice', content: summary, at }], sceneId);
  }

  function profileAnswer(operations: unknown[]): MockResponder {
    return (req) => (promptOf(req).includes('CURRENT PROFILE:\n') ? JSON.stringify({ operations }) : synthesisResponder(req));
  }

  async function item(key: string) {
    return (await store.profileItems()).find((i) => i.key === key);
  }

  it('applies add, update and delete with history rows and evidence', async () => {
    await sceneWithCell('s1', 'c-old', T0 - 10 * DAY, 'Alice lives in Porto.', 'Home');
    mock.setBehaviour({
      responder: profileAnswer([
        { op: 'add', id: null, kind: 'explicit', key: 'home city', value: 'Porto', confidence: 0.8, evidence: ['E1'], reason: 'said so' },
        { op: 'add', kind: 'implicit', key: 'tone', value: 'prefers short answers', confidence: '0.6', evidence: ['S1'], reason: 'style' },
        { op: 'add', kind: 'explicit', key: null, value: 'no key' },
      ]),
    });
    const added = await updateProfile(deps);
    expect(added.skipped).toBe(1);
    const prompt = promptOf(chatRequests()[0]!);
    expect(prompt).toContain('USER: Alice');
    expect(prompt).toContain('CURRENT PROFILE:\nnone');
    expect(prompt).toContain('S1 (episodes E1) | Home: Alice lives in Porto.');
    const home = await item('home city');
    expect(home).toMatchObject({ value: 'Porto', confidence: 0.8, evidence: ['c-old'], status: 'active', kind: 'explicit' });
    expect((await item('tone'))?.evidence).toEqual(['c-old']);

    await sceneWithCell('s2', 'c-new', T0, 'Alice moved to Lisbon.', 'Move');
    mock.requests.length = 0;
    mock.setBehaviour({
      responder: profileAnswer([
        {
          op: 'update',
          id: 'P1',
          kind: 'explicit',
          key: 'home city',
          value: 'Lisbon (since May 2023)',
          confidence: 0.9,
          evidence: ['E2'],
          reason: 'moved',
        },
        { op: 'delete', id: 'P2', kind: 'implicit', key: 'tone', value: null, confidence: 0.5, evidence: ['E2'], reason: 'no longer' },
      ]),
    });
    await updateProfile(deps);
    expect(promptOf(chatRequests()[0]!)).toContain('P1 | explicit | home city = Porto | confidence 0.80');
    expect(await item('home city')).toMatchObject({ value: 'Lisbon (since May 2023)', status: 'active', evidence: ['c-new', 'c-old'] });
    expect(await item('tone')).toBeUndefined();
    const history = await store.profileHistory(home!.id);
    expect(history.map((h) => [h.op, h.value])).toEqual([
      ['add', 'Porto'],
      ['update', 'Lisbon (since May 2023)'],
    ]);
    const [deleted] = await rows<{ id: string; status: string }>("SELECT id, status FROM profile_items WHERE key = 'tone'");
    expect(deleted!.status).toBe('deleted');
    expect((await store.profileHistory(deleted!.id)).map((h) => h.op)).toEqual(['add', 'delete']);
  });

  it('records a conflict instead of overwriting a user-edited item', async () => {
    await sceneWithCell('s1', 'c1x', T0, 'Alice is 34.', 'Age');
    const now = T0;
    await db.exec(
      "INSERT INTO profile_items (id, kind, key, value, confidence, evidence, status, edited_by_user, created_at, updated_at) VALUES ('u1', 'explicit', 'age', '35', 1, '[]', 'active', 1, ?, ?)",
      [now, now],
    );
    mock.setBehaviour({
      responder: profileAnswer([
        { op: 'update', id: 'P1', kind: 'explicit', key: 'age', value: '34', confidence: 0.7, evidence: ['E1'], reason: 'scene says 34' },
      ]),
    });
    await updateProfile(deps);
    const age = await item('age');
    expect(age).toMatchObject({ value: '35', status: 'conflict' });
    const history = await store.profileHistory('u1');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ op: 'conflict', value: '34', evidence: ['c1x'] });
    expect(history[0]!.reason).toContain('user set');
    // The dispute is visible to the next profile pass too.
    mock.requests.length = 0;
    mock.setBehaviour({ responder: profileAnswer([]) });
    await updateProfile(deps);
    expect(promptOf(chatRequests()[0]!)).toContain('P1 | explicit | age = 35 | confidence 1.00 | disputed');
  });

  it('records a conflict when an explicit item is contradicted by evidence that is not newer', async () => {
    await sceneWithCell('s1', 'c-old', T0 - 10 * DAY, 'Alice works at a bank.', 'Work');
    await sceneWithCell('s2', 'c-new', T0, 'Alice works at a studio.', 'Work 2');
    await db.exec(`INSERT INTO profile_items (id, kind, key, value, confidence, evidence, status, created_at, updated_at)
      VALUES ('w1', 'explicit', 'employer', 'a studio', 0.8, '["c-new"]', 'active', 0, 0)`);
    mock.setBehaviour({
      responder: profileAnswer([
        {
          op: 'update',
          id: 'P1',
          kind: 'explicit',
          key: 'employer',
          value: 'a bank',
          confidence: 0.8,
          evidence: ['c-old'],
          reason: 'bank',
        },
      ]),
    });
    const result = await updateProfile(deps);
    expect(result.changes.map((c) => c.history.op)).toEqual(['conflict']);
    expect(await item('employer')).toMatchObject({ value: 'a studio', status: 'conflict' });
    // Newer evidence later settles it as an ordinary update.
    await sceneWithCell('s3', 'c-newest', T0 + DAY, 'Alice now works at a bank again.', 'Work 3');
    mock.setBehaviour({
      responder: profileAnswer([
        {
          op: 'update',
          id: 'P1',
          kind: 'explicit',
          key: 'employer',
          value: 'a bank (since 9 May 2023)',
          confidence: 0.9,
          evidence: ['c-newest'],
          reason: 'changed job',
        },
      ]),
    });
    await updateProfile(deps);
    expect(await item('employer')).toMatchObject({ value: 'a bank (since 9 May 2023)', status: 'active' });
    expect((await store.profileHistory('w1')).map((h) => h.op)).toEqual(['conflict', 'update']);
  });

  it('treats an add of an existing key as an update', async () => {
    await sceneWithCell('s1', 'c1x', T0, 'Alice has a cat named Miso.', 'Pets');
    mock.setBehaviour({
      responder: profileAnswer([{ op: 'add', kind: 'explicit', key: 'Pet', value: 'cat Miso', confidence: 0.8, evidence: ['E1'] }]),
    });
    await updateProfile(deps);
    await updateProfile(deps); // same value again: evidence merged, nothing new
    const items = await store.profileItems();
    expect(items).toHaveLength(1);
    expect((await store.profileHistory(items[0]!.id)).map((h) => h.op)).toEqual(['add']);
  });

  it('caps the profile, compacting the lowest-confidence implicit items first, with history', async () => {
    await sceneWithCell('s1', 'c1x', T0, 'Alice likes many things.', 'Likes');
    for (let i = 0; i < 58; i++) {
      const kind = i < 5 ? 'implicit' : 'explicit';
      await db.exec(
        'INSERT INTO profile_items (id, kind, key, value, confidence, evidence, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)',
        [`x${i}`, kind, `key ${i}`, `value ${i}`, i < 5 ? 0.2 + i * 0.1 : 0.1, '[]', 'active'],
      );
    }
    await db.exec("UPDATE profile_items SET edited_by_user = 1 WHERE id = 'x0'");
    mock.setBehaviour({
      responder: profileAnswer(
        ['a', 'b', 'c', 'd'].map((k) => ({ op: 'add', kind: 'explicit', key: `new ${k}`, value: k, confidence: 0.9, evidence: ['E1'] })),
      ),
    });
    await updateProfile(deps, { cap: 60 });
    const live = await store.profileItems();
    expect(live).toHaveLength(60);
    const [x0, x1, x2, x3] = await Promise.all(
      ['x0', 'x1', 'x2', 'x3'].map((id) => rows<{ status: string }>('SELECT status FROM profile_items WHERE id = ?', [id])),
    );
    expect([x0![0]!.status, x1![0]!.status, x2![0]!.status, x3![0]!.status]).toEqual(['active', 'deleted', 'deleted', 'active']);
    const history = await store.profileHistory('x1');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ op: 'delete', value: 'value 1' });
    expect(history[0]!.reason).toContain('compaction');
  });

  it('makes no call when no scene has a summary', async () => {
    await addScene('s1');
    const result = await updateProfile(deps);
    expect(result.usage).toBeNull();
    expect(chatRequests()).toHaveLength(0);
  });
});

describe('foresight validity', () => {
  async function insertForesight(id: string, start: number | null, end: number | null, status = 'active'): Promise<void> {
    await db.exec(
      'INSERT INTO foresights (id, content, start_at, end_at, status, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, 0)',
      [id, `item ${id}`, start, end, status, 'llm'],
    );
  }

  it('excludes ended items from the read path and marks them expired without deleting them', async () => {
    const now = T0;
    await insertForesight('past', now - 5 * DAY, now - DAY);
    await insertForesight('current', now - DAY, now + DAY);
    await insertForesight('upcoming', now + 2 * DAY, now + 3 * DAY);
    await insertForesight('open', now - DAY, null);
    await insertForesight('dismissed', now - DAY, now + DAY, 'dismissed');

    // The read path filters by time even before the sweep runs.
    expect((await activeForesight(store, now)).map((f) => f.id)).toEqual(['current', 'upcoming', 'open']);
    expect((await activeForesight(store, now, { includeUpcoming: false })).map((f) => f.id)).toEqual(['current', 'open']);

    expect(await expireForesight(store, now)).toBe(1);
    expect(await expireForesight(store, now)).toBe(0);
    const all = await rows<{ id: string; status: string }>('SELECT id, status FROM foresights ORDER BY id');
    expect(all).toEqual([
      { id: 'current', status: 'active' },
      { id: 'dismissed', status: 'dismissed' },
      { id: 'open', status: 'active' },
      { id: 'past', status: 'expired' },
      { id: 'upcoming', status: 'active' },
    ]);
    expect((await activeForesight(store, now + 10 * DAY)).map((f) => f.id)).toEqual(['open']);
  });
});
