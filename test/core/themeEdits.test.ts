/**
 * Theme (MemScene) edits keep their promise: a renamed theme keeps the user's title and
 * still gets summaries, also when renamed before its first synthesis; a forgotten theme summary
 * does not come back with the next synthesis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { immediateTimer, topicProvider } from '../support/topicEmbedder';
import { createEngine } from '../../src/host/createEngine';

const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 10, 9);
const provider = topicProvider(['dog', 'flight', 'rent']);

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

let n = 0;
async function setup(withEndpoint: boolean) {
  const store = await openNodeStore();
  const llm = new LlmClient({ baseUrl: mock.url, model: 'mock-model' }, { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 1 });
  const engine = createEngine(store, { embedders: provider, llm: withEndpoint ? llm : null, timer: immediateTimer, profileDebounceMs: 0 });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  await store.createConversation({ id: 'c', title: 'Chat' });
  const say = async (h: number, content: string) => {
    await engine.conversations.appendTurn({
      id: `t${++n}`,
      conversationId: 'c',
      role: 'user',
      speaker: 'Ana',
      content,
      occurredAt: T0 + h * H,
    });
    await engine.idle();
  };
  const settle = async () => {
    await engine.closeOpenCells();
    await engine.idle();
  };
  const dogScene = async () => (await engine.memory.listScenes()).find((s) => s.id === dogSceneId)!;
  let dogSceneId = '';
  const remember = async () => {
    dogSceneId = (
      await store.db.query<{ scene_id: string }>(
        "SELECT c.scene_id FROM memcells c JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq WHERE m.content LIKE '%dog%' LIMIT 1",
      )
    )[0]!.scene_id;
  };
  // Two themes, so centred episode vectors differ (scenes compare vectors centred on the mean).
  const start = async () => {
    await say(0, 'I adopted a dog named Biscuit.');
    await say(24, 'My flight to Lisbon is on Friday.'); // the new day closes the dog episode
    await settle();
    await remember();
  };
  return { store, engine, llm, say, settle, dogScene, start };
}

describe('theme edits', () => {
  it('a theme renamed before its first synthesis keeps its title and still gets a summary, then another one later', async () => {
    const { store, engine, llm, say, settle, dogScene, start } = await setup(false);
    await start();
    const scene = await dogScene();
    expect(scene.summary ?? '').toBe('');
    await engine.memory.renameScene(scene.id, 'Biscuit');
    engine.setLlm(llm);
    await engine.idle();
    const [row] = await store.db.query<{ title: string; summary: string | null }>('SELECT title, summary FROM memscenes WHERE id = ?', [
      scene.id,
    ]);
    expect(row!.title).toBe('Biscuit');
    expect(row!.summary).toBeTruthy();

    await say(48, 'The dog learned to sit today.');
    await settle();
    const [later] = await store.db.query<{ title: string; summary: string }>('SELECT title, summary FROM memscenes WHERE id = ?', [
      scene.id,
    ]);
    expect(later!.title).toBe('Biscuit');
    expect(later!.summary).not.toBe(row!.summary); // the summary follows the new episode
  });

  it('forgetting a theme writes its tombstone: the summary does not return after the next synthesis', async () => {
    const { store, engine, say, settle, dogScene, start } = await setup(true);
    await start();
    const scene = await dogScene();
    expect(scene.summary).toBeTruthy();
    await engine.memory.forget([{ kind: 'scene', id: scene.id }]);
    await engine.idle();
    await say(48, 'The dog learned to sit today.');
    await settle();
    const [row] = await store.db.query<{ title: string | null; summary: string | null; members: number }>(
      'SELECT title, summary, (SELECT count(*) FROM memcells WHERE scene_id = s.id) AS members FROM memscenes s WHERE id = ?',
      [scene.id],
    );
    expect(row!.members).toBe(2); // the new episode joined the same theme …
    expect(row!.summary).toBeNull(); // … and its forgotten summary stayed forgotten
    expect((await store.db.query("SELECT item_id FROM vectors WHERE item_kind = 'memscene' AND item_id = ?", [scene.id])).length).toBe(0);
  });
});
