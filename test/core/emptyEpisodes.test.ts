/**
 * An episode whose turns were all deleted from the chat: with nothing synthesised from it, it
 * goes (no "Untitled episode · 0 messages" left in the explorer) and the conversation's next turns
 * still become episodes. A synthesised one goes too: what was derived only from deleted turns goes
 * with them; only what the user wrote (an edited narrative) keeps it.
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';

const T0 = Date.UTC(2026, 0, 3);

async function setup() {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['episodes', 'synthesis', 'recall', 'explorer'], llm: null });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  await engine.conversations.create({ id: 'c', title: 'chat' });
  await engine.conversations.appendTurns(
    ['I planted tomatoes.', 'They need water daily.'].map((content, i) => ({
      id: `t${i}`,
      conversationId: 'c',
      role: 'user' as const,
      speaker: 'You',
      content,
      occurredAt: T0 + i * 60_000,
    })),
  );
  await engine.idle();
  const cells = async () => (await engine.memory.listMemCells({ offset: 0, limit: 50 })).items;
  return { store, engine, cells };
}

describe('deleting every turn of an episode', () => {
  it('removes an episode with nothing synthesised, and later turns become an episode again', async () => {
    const { engine, cells } = await setup();
    expect((await cells()).map((c) => c.turnCount)).toEqual([2]);
    await engine.conversations.deleteMessage('t0');
    expect((await cells()).map((c) => c.turnCount)).toEqual([1]); // not empty yet: kept
    await engine.conversations.deleteMessage('t1');
    expect(await cells()).toEqual([]);
    expect((await engine.memory.overview()).counts.memcells).toBe(0);

    await engine.conversations.appendTurn({
      id: 't2',
      conversationId: 'c',
      role: 'user',
      speaker: 'You',
      content: 'The basil is up.',
      occurredAt: T0 + 3_600_000,
    });
    await engine.idle();
    expect((await cells()).map((c) => c.turnCount)).toEqual([1]);
  });

  it('takes a synthesised episode with its last message: its narrative came from those messages', async () => {
    const { store, engine, cells } = await setup();
    await store.db.exec("UPDATE memcells SET narrative = 'The user grows tomatoes.', title = 'Tomatoes', status = 'synthesised'");
    await engine.conversations.deleteMessage('t0');
    expect((await cells()).map((c) => [c.title, c.narrative, c.status, c.lostTurns, c.turnCount])).toEqual([[null, null, 'raw', 1, 1]]);
    await engine.conversations.deleteMessage('t1');
    expect(await cells()).toEqual([]);
  });

  it('keeps an episode whose narrative the user wrote, and says its messages are gone', async () => {
    const { store, engine, cells } = await setup();
    await store.db.exec(
      "UPDATE memcells SET narrative = 'I grow tomatoes.', title = 'Tomatoes', status = 'synthesised', edited_by_user = 1",
    );
    await engine.conversations.deleteMessage('t0');
    await engine.conversations.deleteMessage('t1');
    expect((await cells()).map((c) => [c.title, c.turnCount, c.lostTurns])).toEqual([['Tomatoes', 0, 2]]);
  });
});
