/**
 * Versions of a turn (TurnVersions.ts, storage/turnVersions.ts): an edit anywhere or a regenerated
 * answer keeps what it replaces as an earlier version, showing a version swaps the branches, and
 * memory (search, recall) follows the version that is shown. Deleting the conversation removes
 * every version.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/host/createEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { UNTITLED } from '../../src/core/base/titles';

async function setup() {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['recall', 'explorer'], llm: null });
  await engine.start();
  await engine.conversations.create({ id: 'c', title: UNTITLED });
  const answer = (id: string, content: string, metadata: Record<string, unknown> = {}) =>
    engine.conversations.appendTurn({ id, conversationId: 'c', role: 'assistant', speaker: 'Assistant', content, metadata });
  const shown = async () => (await engine.conversations.messages('c')).map((m) => m.id);
  return { store, engine, answer, shown };
}

describe('versions of a turn', () => {
  it('an edit in the middle keeps the old branch; showing version 1 brings its answers back and hides the new ones', async () => {
    const { engine, answer, shown } = await setup();
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'Where should we go in spring?' });
    await answer('a1', 'Try the Azores archipelago.');
    await engine.conversations.send({ id: 'u2', conversationId: 'c', content: 'What about the flamingo lagoon?' });
    await answer('a2', 'The lagoon is best in April.');
    await engine.conversations.send({ id: 'u1b', conversationId: 'c', content: 'Where should we go in autumn?', replaces: 'u1' });
    expect(await shown()).toEqual(['u1b']);
    expect(await engine.conversations.versions('c')).toEqual([{ afterId: '', shown: 2, count: 2 }]);
    // Hidden turns are out of search and recall.
    expect(await engine.conversations.search('flamingo')).toEqual([]);
    const recalled = await engine.answers.recall('flamingo lagoon', { limit: 5 });
    expect(recalled.turns.map((t) => t.message.id)).not.toContain('u2');

    await engine.conversations.showVersion('c', '', 1);
    expect(await shown()).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect((await engine.conversations.search('flamingo')).map((h) => h.message.id)).toEqual(['u2']);
    expect(await engine.conversations.search('autumn')).toEqual([]);
    expect(await engine.conversations.versions('c')).toEqual([{ afterId: '', shown: 1, count: 2 }]);

    await engine.conversations.showVersion('c', '', 2);
    expect(await shown()).toEqual(['u1b']);
  });

  it('a regenerated answer keeps the earlier one with its "what was sent"', async () => {
    const { engine, answer, shown } = await setup();
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'Name a quiet beach.' });
    await answer('a1', 'Praia da Ursa.', { requests: [{ stage: 'answer', sent: 'first request' }] });
    const { userMessageId } = await engine.conversations.regenerate('a1');
    expect(userMessageId).toBe('u1');
    expect(await shown()).toEqual(['u1']);
    await answer('a1b', 'Praia do Camilo.');
    expect(await engine.conversations.versions('c')).toEqual([{ afterId: 'u1', shown: 2, count: 2 }]);

    await engine.conversations.showVersion('c', 'u1', 1);
    const turns = await engine.conversations.messages('c');
    expect(turns.map((m) => m.id)).toEqual(['u1', 'a1']);
    expect(turns[1]!.metadata).toEqual({ requests: [{ stage: 'answer', sent: 'first request' }] });
    await expect(engine.conversations.regenerate('u1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(engine.conversations.showVersion('c', 'u1', 7)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deleting the conversation removes its hidden versions too', async () => {
    const { store, engine, answer } = await setup();
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'A secret about the lighthouse' });
    await answer('a1', 'Noted.');
    await engine.conversations.regenerate('a1');
    const before = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM turn_versions');
    expect(Number(before[0]!.n)).toBe(2);
    await engine.conversations.delete('c');
    const after = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM turn_versions');
    expect(Number(after[0]!.n)).toBe(0);
  });

  it('a downloaded and imported memory keeps the hidden versions, still switchable', async () => {
    const { store, engine, answer } = await setup();
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'Which pier for the ferry?' });
    await answer('a1', 'Pier four.');
    await engine.conversations.regenerate('a1');
    await answer('a1b', 'Pier five.');
    const target = await openNodeStore();
    await target.importDatabase(await store.exportDatabase());
    const imported = createEngine(target, { only: ['recall'], llm: null });
    await imported.start();
    expect(await imported.conversations.versions('c')).toEqual([{ afterId: 'u1', shown: 2, count: 2 }]);
    await imported.conversations.showVersion('c', 'u1', 1);
    expect((await imported.conversations.messages('c')).map((m) => m.content)).toEqual(['Which pier for the ferry?', 'Pier four.']);
  });

  it('Forget by word reaches the hidden versions: the turn that mentions it goes, the word leaves what the others keep', async () => {
    const { store, engine, answer } = await setup();
    await engine.conversations.send({ id: 'u1', conversationId: 'c', content: 'My locker code is Quibbleton.' });
    await answer('a1', 'Noted.', { requests: [{ sent: 'My locker code is Quibbleton.' }] });
    await engine.conversations.send({ id: 'u1b', conversationId: 'c', content: 'Never mind.', replaces: 'u1' });
    const hidden = async () => (await store.db.query<{ turns: string }>('SELECT turns FROM turn_versions')).map((r) => r.turns).join();
    expect(await hidden()).toContain('Quibbleton');
    const preview = await engine.memory.forgetPreview('Quibbleton');
    await engine.memory.forget(preview, 'Quibbleton');
    expect(await hidden()).not.toContain('Quibbleton');
    await engine.conversations.showVersion('c', '', 1);
    expect((await engine.conversations.messages('c')).map((m) => m.id)).toEqual(['a1']);
  });
});
