import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlExplorerStore } from '../../src/storage/explorerRepo';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { MAX_MEMORY_CHARS, memoryKey } from '../../src/core/engine/savedMemories';
import { RecollectError } from '../../src/core/base/errors';
import { composeContext, profileLine } from '../../src/core/recall/answerContext';
import { immediateTimer, topicProvider } from '../support/topicEmbedder';

async function setup() {
  const store = await openNodeStore();
  const engine = new MemoryEngine({
    store,
    embedders: topicProvider(['x']),
    episodes: store.episodes,
    jobs: store.jobs,
    knowledge: store.knowledge,
    explorer: new SqlExplorerStore(store.db),
    timer: immediateTimer,
  });
  await engine.start();
  const events: string[] = [];
  engine.on((e) => events.push(e.type));
  return { engine, events };
}

describe('Add a memory by hand', () => {
  it('stores the sentence as a user-written profile item with history, and says memory changed', async () => {
    const { engine, events } = await setup();
    const item = await engine.profile.addMemory('  I am   allergic to peanuts.  ');
    expect(item).toMatchObject({ kind: 'explicit', value: 'I am allergic to peanuts.', editedByUser: true, status: 'active' });
    const profile = await engine.profile.list();
    expect(profile.map((p) => p.value)).toEqual(['I am allergic to peanuts.']);
    expect(profile[0]!.history.map((h) => h.op)).toEqual(['add']);
    expect(events).toContain('memory-changed');
    // Edit and delete go through the same profile paths.
    await engine.profile.edit(item.id, 'I am allergic to peanuts and cashews.');
    expect((await engine.profile.list())[0]!.value).toBe('I am allergic to peanuts and cashews.');
    await engine.profile.delete(item.id);
    expect(await engine.profile.list()).toEqual([]);
  });

  it('refuses empty and over-long text with INVALID_INPUT and stores nothing', async () => {
    const { engine } = await setup();
    for (const bad of ['   ', 'x'.repeat(MAX_MEMORY_CHARS + 1)]) {
      const err = await engine.profile.addMemory(bad).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RecollectError);
      expect((err as RecollectError).code).toBe('INVALID_INPUT');
    }
    expect(await engine.profile.list()).toEqual([]);
  });

  it('reaches an answer as the sentence written, once (not "its first words: the sentence")', async () => {
    const { engine } = await setup();
    const written = 'I am vegetarian and I prefer quick meals on weekdays, under thirty minutes.';
    const item = await engine.profile.addMemory(written);
    const ctx = composeContext(
      { profile: [{ ...item, history: [] } as never], foresight: [], episodes: [], facts: [], turns: [] },
      { budgetTokens: 10_000, now: Date.now() },
    );
    expect(ctx.text).toContain(`[1] ${written}`);
    expect(ctx.text.split('I am vegetarian and I prefer')).toHaveLength(2);
    // A synthesised item keeps its key as a label.
    expect(profileLine('diet', 'vegetarian')).toBe('diet: vegetarian');
    // An edit that no longer starts with the key's words is printed with the key, as any other item.
    expect(profileLine(item.key, 'I eat fish now.')).toBe(`${item.key}: I eat fish now.`);
  });

  it('keys an item by its first words', () => {
    expect(memoryKey('My sister Lena lives in Porto with two cats')).toBe('My sister Lena lives in Porto');
  });
});
