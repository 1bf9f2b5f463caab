/** SQL for the durable job queue (`jobs`). Implements core's JobStore. */
import type { Sql } from '../core/base/sql';
import type { FailedJobs, Job, JobCounts, JobStore } from '../core/base/jobs';
import { systemClock, type Clock } from '../core/base/ports';

interface JobRow {
  [k: string]: string | number | null;
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  dedupe_key: string | null;
}

function toJob(r: JobRow): Job {
  let payload: Record<string, unknown> = {};
  try {
    payload = JSON.parse(r.payload) as Record<string, unknown>;
  } catch {
    /* a damaged payload reaches the handler as {} and fails there, visibly */
  }
  return { id: Number(r.id), kind: r.kind, payload, attempts: Number(r.attempts), dedupeKey: r.dedupe_key };
}

export class SqlJobStore implements JobStore {
  readonly #sql: Sql;
  readonly #clock: Clock;
  constructor(sql: Sql, clock: Clock = systemClock) {
    this.#sql = sql;
    this.#clock = clock;
  }

  enqueue(
    kind: string,
    payload: Record<string, unknown>,
    options: { dedupeKey?: string; runAfter?: number; priority?: number } = {},
  ): Promise<number> {
    return this.#sql.transaction(async (tx) => {
      const now = this.#clock.now();
      if (options.dedupeKey) {
        const [open] = await tx.query<{ id: number; status: string }>('SELECT id, status FROM jobs WHERE dedupe_key = ?', [
          options.dedupeKey,
        ]);
        if (open && (open.status === 'pending' || open.status === 'running')) {
          if (options.priority !== undefined)
            await tx.exec('UPDATE jobs SET priority = max(priority, ?) WHERE id = ?', [options.priority, open.id]);
          return Number(open.id);
        }
        // A finished job with the same key is re-armed: the key names the work, not one attempt.
        if (open) {
          await tx.exec(
            "UPDATE jobs SET status = 'pending', attempts = 0, last_error = NULL, payload = ?, run_after = ?, priority = ?, updated_at = ? WHERE id = ?",
            [JSON.stringify(payload), options.runAfter ?? 0, options.priority ?? 0, now, open.id],
          );
          return Number(open.id);
        }
      }
      await tx.exec(
        'INSERT INTO jobs (kind, dedupe_key, payload, run_after, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [kind, options.dedupeKey ?? null, JSON.stringify(payload), options.runAfter ?? 0, options.priority ?? 0, now, now],
      );
      const [row] = await tx.query<{ id: number }>('SELECT last_insert_rowid() AS id');
      return Number(row!.id);
    });
  }

  claimNext(now: number): Promise<Job | null> {
    return this.#sql.transaction(async (tx) => {
      const [row] = await tx.query<JobRow>(
        "SELECT id, kind, payload, attempts, dedupe_key FROM jobs WHERE status = 'pending' AND run_after <= ? ORDER BY priority DESC, run_after, id LIMIT 1",
        [now],
      );
      if (!row) return null;
      await tx.exec("UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = ? WHERE id = ?", [now, row.id]);
      return toJob({ ...row, attempts: Number(row.attempts) + 1 });
    });
  }

  async complete(id: number, now: number): Promise<void> {
    await this.#sql.exec("UPDATE jobs SET status = 'done', last_error = NULL, updated_at = ? WHERE id = ?", [now, id]);
  }

  async retryLater(id: number, runAfter: number, error: string, countAttempt: boolean, now: number): Promise<void> {
    await this.#sql.exec(
      `UPDATE jobs SET status = 'pending', run_after = ?, last_error = ?, attempts = attempts - ?, updated_at = ? WHERE id = ?`,
      [runAfter, error.slice(0, 2000), countAttempt ? 0 : 1, now, id],
    );
  }

  async fail(id: number, error: string, now: number): Promise<void> {
    await this.#sql.exec("UPDATE jobs SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?", [error.slice(0, 2000), now, id]);
  }

  async setAside(id: number, reason: string, now: number): Promise<void> {
    await this.#sql.exec("UPDATE jobs SET status = 'cancelled', last_error = ?, updated_at = ? WHERE id = ?", [
      reason.slice(0, 2000),
      now,
      id,
    ]);
  }

  async recoverInterrupted(now: number): Promise<number> {
    await this.#sql.exec("UPDATE jobs SET status = 'pending', updated_at = ? WHERE status = 'running'", [now]);
    return this.#sql.changes();
  }

  cancel(kinds: readonly string[], reason: string, now: number): Promise<Job[]> {
    if (kinds.length === 0) return Promise.resolve([]);
    return this.#sql.transaction(async (tx) => {
      const rows = await tx.query<JobRow>(
        `UPDATE jobs SET status = 'cancelled', last_error = ?, updated_at = ? WHERE status = 'pending' AND kind IN (${kinds.map(() => '?').join(', ')})
         RETURNING id, kind, payload, attempts, dedupe_key`,
        [reason.slice(0, 2000), now, ...kinds],
      );
      return rows.map(toJob);
    });
  }

  revive(kinds: readonly string[], now: number): Promise<Job[]> {
    if (kinds.length === 0) return Promise.resolve([]);
    return this.#sql.transaction(async (tx) => {
      const rows = await tx.query<JobRow>(
        `UPDATE jobs SET status = 'pending', attempts = 0, last_error = NULL, run_after = 0, updated_at = ?
         WHERE status = 'cancelled' AND kind IN (${kinds.map(() => '?').join(', ')})
         RETURNING id, kind, payload, attempts, dedupe_key`,
        [now, ...kinds],
      );
      return rows.map(toJob);
    });
  }

  async nextDue(): Promise<number | null> {
    const [row] = await this.#sql.query<{ at: number | null }>("SELECT min(run_after) AS at FROM jobs WHERE status = 'pending'");
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  reviveFailed(
    codes: readonly string[],
    now: number,
    options: { readonly maxRevivals: number; readonly limit?: number; readonly attemptsUsed?: number },
  ): Promise<Job[]> {
    if (codes.length === 0 || options.maxRevivals <= 0) return Promise.resolve([]);
    return this.#sql.transaction(async (tx) => {
      const rows = await tx.query<JobRow>(
        `UPDATE jobs SET status = 'pending', attempts = ?, revivals = revivals + 1, run_after = ?, updated_at = ?
         WHERE id IN (SELECT id FROM jobs WHERE status = 'failed' AND revivals < ? AND (${codes.map(() => 'last_error LIKE ?').join(' OR ')})
                      ORDER BY priority DESC, id LIMIT ?)
         RETURNING id, kind, payload, attempts, dedupe_key`,
        [options.attemptsUsed ?? 0, now, now, options.maxRevivals, ...codes.map((c) => `${c}:%`), options.limit ?? -1],
      );
      return rows.map(toJob);
    });
  }

  retryFailed(kinds: readonly string[], now: number): Promise<Job[]> {
    if (kinds.length === 0) return Promise.resolve([]);
    return this.#sql.transaction(async (tx) => {
      const rows = await tx.query<JobRow>(
        `UPDATE jobs SET status = 'pending', attempts = 0, revivals = 0, run_after = 0, updated_at = ?
         WHERE status = 'failed' AND kind IN (${kinds.map(() => '?').join(', ')})
         RETURNING id, kind, payload, attempts, dedupe_key`,
        [now, ...kinds],
      );
      return rows.map(toJob);
    });
  }

  async failedJobs(kinds: readonly string[], codes: readonly string[], maxRevivals: number): Promise<FailedJobs> {
    if (kinds.length === 0) return { byKind: {}, revivable: 0 };
    const trouble = codes.length > 0 ? `revivals < ? AND (${codes.map(() => 'last_error LIKE ?').join(' OR ')})` : '0';
    const rows = await this.#sql.query<{ kind: string; n: number; revivable: number }>(
      `SELECT kind, count(*) AS n, sum(${trouble}) AS revivable FROM jobs
        WHERE status = 'failed' AND kind IN (${kinds.map(() => '?').join(', ')}) GROUP BY kind`,
      [...(codes.length > 0 ? [maxRevivals, ...codes.map((c) => `${c}:%`)] : []), ...kinds],
    );
    const byKind: Record<string, number> = {};
    let revivable = 0;
    for (const r of rows) {
      byKind[r.kind] = Number(r.n);
      revivable += Number(r.revivable ?? 0);
    }
    return { byKind, revivable };
  }

  async counts(): Promise<JobCounts> {
    const rows = await this.#sql.query<{ status: keyof JobCounts; n: number }>(
      `SELECT CASE WHEN status = 'pending' AND run_after > ? THEN 'scheduled' ELSE status END AS status, count(*) AS n FROM jobs GROUP BY 1`,
      [this.#clock.now()],
    );
    const out: JobCounts = { pending: 0, scheduled: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }
}
