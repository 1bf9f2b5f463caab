/**
 * A background loop that fails is visible: the overview lists what is failing and why, and the list
 * empties once the loop succeeds again.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/host/createEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { topicProvider } from '../support/topicEmbedder';

describe('background errors in the overview', () => {
  it('lists a failing episode lifecycle with its reason, and clears it when it recovers', async () => {
    const store = await openNodeStore();
    const engine = createEngine(store, { embedders: topicProvider(['dog']), llm: null });
    await engine.start();
    expect((await engine.memory.overview()).backgroundErrors).toEqual([]);
    // Episodes cannot be written: the lifecycle's pass fails after the turn is stored.
    await store.db.exec(`CREATE TRIGGER no_cells BEFORE INSERT ON memcells BEGIN SELECT RAISE(ABORT, 'episodes are read-only here'); END`);
    await engine.conversations.create({ id: 'c', title: 'dogs' });
    await engine.conversations.appendTurn({
      id: 'u1',
      conversationId: 'c',
      role: 'user',
      speaker: 'You',
      content: 'My dog is called Biscuit.',
    });
    await engine.idle();
    const failing = (await engine.memory.overview()).backgroundErrors;
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatch(/^Organising episodes: .*episodes are read-only here/);
    await store.db.exec('DROP TRIGGER no_cells');
    await engine.conversations.appendTurn({
      id: 'u2',
      conversationId: 'c',
      role: 'user',
      speaker: 'You',
      content: 'Biscuit likes long walks.',
    });
    await engine.idle();
    expect((await engine.memory.overview()).backgroundErrors).toEqual([]);
    engine.stop();
  });
});
