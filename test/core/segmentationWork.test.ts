import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { countVmSteps, longConversation } from '../support/longConversation';

/**
 * Segmenting one long conversation must cost the same per turn however long it already is. The
 * work is counted, not timed (SQLite VM steps, through a progress handler), so a shared machine's
 * load cannot flake it: doubling the conversation must about double the work. The old read of
 * unplaced turns scanned every placed turn again on each call: ×26 the work for ×4 the turns here.
 */
async function lifecycleSteps(n: number): Promise<{ steps: number; cells: number }> {
  const store = await openNodeStore();
  try {
    const engine = createEngine(store, { only: ['episodes'] });
    await store.createConversation({ id: 'c', title: 'long' });
    const turns = longConversation('c', n);
    // Stored before the engine starts (which resumes placing unplaced turns): the count is segmentation's.
    for (let at = 0; at < n; at += 500) await store.appendTurns(turns.slice(at, at + 500));
    const steps = countVmSteps(store.db);
    await engine.start();
    await engine.idle();
    const counted = steps.stop();
    const [row] = await store.db.query<{ n: number; placed: number }>(
      'SELECT count(*) AS n, sum(last_seq - first_seq + 1) AS placed FROM memcells',
    );
    expect(Number(row!.placed)).toBe(n); // every turn placed exactly once
    engine.stop();
    return { steps: counted, cells: Number(row!.n) };
  } finally {
    await store.db.close();
  }
}

describe('segmenting one long conversation', () => {
  it('does work linear in its length (SQLite steps per turn stay flat as it doubles)', async () => {
    const small = await lifecycleSteps(400);
    const big = await lifecycleSteps(1_600);
    expect(big.cells).toBeGreaterThan(3.5 * small.cells);
    // Linear: ×4 the turns, ×4 the work (a little slack for B-tree depth); quadratic would be ×16.
    expect(big.steps / small.steps).toBeLessThan(4.6);
  }, 120_000);
});
