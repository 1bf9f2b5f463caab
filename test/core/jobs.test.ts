import { describe, expect, it } from 'vitest';
import { openMemoryDatabase } from '../../src/storage/openNodeDatabase';
import { SqlJobStore } from '../../src/storage/jobRepo';
import { JobRunner, PauseQueue, type Job } from '../../src/core/base/jobs';
import { fakeTime } from '../support/fakeTime';
import { RecollectError } from '../../src/core/base/errors';

const harness = () => fakeTime(1_000_000);

describe('durable job queue', () => {
  it('runs jobs, dedupes by key and records completion', async () => {
    const db = await openMemoryDatabase();
    const h = harness();
    const store = new SqlJobStore(db, h.clock);
    const seen: Job[] = [];
    const runner = new JobRunner({ store, clock: h.clock, timer: h.timer, handlers: { synth: async (j) => void seen.push(j) } });
    const a = await store.enqueue('synth', { cell: 'a' }, { dedupeKey: 'cell:a' });
    expect(await store.enqueue('synth', { cell: 'a' }, { dedupeKey: 'cell:a' })).toBe(a);
    await store.enqueue('synth', { cell: 'b' });
    await runner.start();
    await runner.idle();
    expect(seen.map((j) => j.payload.cell)).toEqual(['a', 'b']);
    expect(await store.counts()).toEqual({ pending: 0, scheduled: 0, running: 0, done: 2, failed: 0, cancelled: 0 });
  });

  it('counts a job waiting for its run_after (a debounce, a back-off) as scheduled until it is due', async () => {
    const db = await openMemoryDatabase();
    const h = harness();
    const store = new SqlJobStore(db, h.clock);
    await store.enqueue('profile', {}, { dedupeKey: 'profile', runAfter: h.clock.now() + 30_000 });
    await store.enqueue('synth', {});
    expect(await store.counts()).toEqual({ pending: 1, scheduled: 1, running: 0, done: 0, failed: 0, cancelled: 0 });
    h.advance(30_000);
    expect(await store.counts()).toEqual({ pending: 2, scheduled: 0, running: 0, done: 0, failed: 0, cancelled: 0 });
  });

  it('retries failures with backoff, then marks the job failed after max attempts', async () => {
    const db = await openMemoryDatabase();
    const h = harness();
    const store = new SqlJobStore(db, h.clock);
    let calls = 0;
    const runner = new JobRunner({
      store,
      clock: h.clock,
      timer: h.timer,
      config: { maxAttempts: 3, baseBackoffMs: 1000 },
      handlers: {
        synth: async () => {
          calls++;
          throw new RecollectError('LLM_BAD_OUTPUT' as never, 'bad json');
        },
      },
    });
    await store.enqueue('synth', {});
    await runner.start();
    await runner.idle();
    expect(calls).toBe(1);
    h.advance(999);
    await runner.idle();
    expect(calls).toBe(1); // not before the backoff
    h.advance(1);
    await runner.idle();
    expect(calls).toBe(2);
    h.advance(2000);
    await runner.idle();
    expect(calls).toBe(3);
    expect(await store.counts()).toMatchObject({ failed: 1, pending: 0 });
    const [row] = await db.query<{ last_error: string }>('SELECT last_error FROM jobs');
    expect(row!.last_error).toContain('bad json');
  });

  it('pauses without spending attempts while the endpoint is unavailable, and resumes on kick', async () => {
    const db = await openMemoryDatabase();
    const h = harness();
    const store = new SqlJobStore(db, h.clock);
    let endpoint = false;
    let done = 0;
    const runner = new JobRunner({
      store,
      clock: h.clock,
      timer: h.timer,
      config: { maxAttempts: 2 },
      handlers: {
        synth: async () => {
          if (!endpoint) throw new PauseQueue('No LLM endpoint is configured.', 60_000);
          done++;
        },
      },
    });
    await store.enqueue('synth', {});
    await store.enqueue('synth', {});
    await runner.start();
    await runner.idle();
    for (let i = 0; i < 5; i++) {
      h.advance(60_000);
      await runner.idle();
    }
    expect(runner.status().pauseReason).toContain('No LLM endpoint');
    expect(await store.counts()).toMatchObject({ pending: 2, failed: 0 });
    const rows = await db.query<{ attempts: number }>('SELECT attempts FROM jobs');
    expect(rows.every((r) => r.attempts === 0)).toBe(true);
    endpoint = true;
    runner.kick({ resume: true });
    await runner.idle();
    expect(done).toBe(2);
  });

  it('resumes a job interrupted mid-run after the engine restarts', async () => {
    const db = await openMemoryDatabase();
    const h = harness();
    const store = new SqlJobStore(db, h.clock);
    await store.enqueue('synth', { cell: 'x' });
    // First engine: claims the job and dies before finishing.
    const claimed = await store.claimNext(h.clock.now());
    expect(claimed?.payload.cell).toBe('x');
    expect(await store.counts()).toMatchObject({ running: 1 });

    const seen: unknown[] = [];
    const restarted = new JobRunner({
      store: new SqlJobStore(db, h.clock),
      clock: h.clock,
      timer: h.timer,
      handlers: { synth: async (j) => void seen.push(j.payload.cell) },
    });
    await restarted.start();
    await restarted.idle();
    expect(seen).toEqual(['x']);
    expect(await store.counts()).toMatchObject({ done: 1, running: 0, pending: 0 });
  });

  it("revives failed jobs for the endpoint's sake a bounded number of times, highest priority first; Retry takes back every failed job", async () => {
    const db = await openMemoryDatabase();
    const h = harness();
    const store = new SqlJobStore(db, h.clock);
    const now = h.clock.now();
    const low = await store.enqueue('synth', { n: 'low' });
    const high = await store.enqueue('synth', { n: 'high' }, { priority: 5 });
    const broken = await store.enqueue('scene', { n: 'broken' });
    const failWith = async (id: number, error: string) => {
      await db.exec("UPDATE jobs SET status = 'failed', attempts = 5, last_error = ? WHERE id = ?", [error, id]);
    };
    await failWith(low, 'LLM_BAD_OUTPUT: garbled');
    await failWith(high, 'LLM_TIMEOUT: hung');
    await failWith(broken, 'INTERNAL: a bug');
    expect(await store.failedJobs(['synth', 'scene'], ['LLM_BAD_OUTPUT', 'LLM_TIMEOUT'], 2)).toEqual({
      byKind: { synth: 2, scene: 1 },
      revivable: 2,
    });

    const [first, ...none] = await store.reviveFailed(['LLM_BAD_OUTPUT', 'LLM_TIMEOUT'], now, {
      maxRevivals: 2,
      limit: 1,
      attemptsUsed: 3,
    });
    expect(none).toEqual([]);
    expect(first).toMatchObject({ id: high, attempts: 3 });
    await failWith(high, 'LLM_TIMEOUT: hung again');
    expect((await store.reviveFailed(['LLM_BAD_OUTPUT', 'LLM_TIMEOUT'], now, { maxRevivals: 2 })).map((j) => j.id).sort()).toEqual([
      low,
      high,
    ]);
    await failWith(low, 'LLM_BAD_OUTPUT: garbled');
    await failWith(high, 'LLM_TIMEOUT: hung');
    // `high` was revived twice: only `low` has a revival left; the bug is never revived automatically.
    expect((await store.reviveFailed(['LLM_BAD_OUTPUT', 'LLM_TIMEOUT'], now, { maxRevivals: 2 })).map((j) => j.id)).toEqual([low]);
    await failWith(low, 'LLM_BAD_OUTPUT: garbled');
    expect(await store.failedJobs(['synth', 'scene'], ['LLM_BAD_OUTPUT', 'LLM_TIMEOUT'], 2)).toEqual({
      byKind: { synth: 2, scene: 1 },
      revivable: 0,
    });
    expect(await store.reviveFailed(['LLM_BAD_OUTPUT', 'LLM_TIMEOUT'], now, { maxRevivals: 2 })).toEqual([]);

    expect((await store.retryFailed(['synth', 'scene'], now)).map((j) => j.id).sort()).toEqual([low, high, broken]);
    const rows = await db.query<{ status: string; attempts: number; revivals: number }>('SELECT status, attempts, revivals FROM jobs');
    expect(rows.every((r) => r.status === 'pending' && Number(r.attempts) === 0 && Number(r.revivals) === 0)).toBe(true);
  });
});
