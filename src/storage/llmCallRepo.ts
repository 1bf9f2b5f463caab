/** The cost ledger: every LLM call attempt in `llm_calls` (never the API key), and totals over it. */
import type { Sql } from '../core/base/sql';
import type { LlmCall, LlmCallSink } from '../core/base/ports';

export interface LlmUsageTotals {
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export class SqlLlmCallLog implements LlmCallSink {
  readonly #sql: Sql;
  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async record(call: LlmCall): Promise<void> {
    await this.#sql.exec(
      `INSERT INTO llm_calls (stage, model, prompt_tokens, completion_tokens, tokens_estimated, latency_ms, outcome, error, job_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT id FROM jobs WHERE id = ?), ?)`,
      [
        call.stage,
        call.model,
        call.promptTokens,
        call.completionTokens,
        call.tokensEstimated ? 1 : 0,
        Math.round(call.latencyMs),
        call.outcome,
        call.error,
        call.jobId,
        call.createdAt,
      ],
    );
  }

  /** Totals, optionally for one stage and/or since a time. */
  async totals(filter: { stage?: string; since?: number } = {}): Promise<LlmUsageTotals> {
    const [r] = await this.#sql.query<{ calls: number; p: number | null; c: number | null }>(
      `SELECT count(*) AS calls, sum(prompt_tokens) AS p, sum(completion_tokens) AS c FROM llm_calls
        WHERE (?1 IS NULL OR stage = ?1) AND created_at >= ?2`,
      [filter.stage ?? null, filter.since ?? 0],
    );
    return { calls: Number(r?.calls ?? 0), promptTokens: Number(r?.p ?? 0), completionTokens: Number(r?.c ?? 0) };
  }

  /** Totals per stage, for the cost view. */
  async byStage(since = 0): Promise<Record<string, LlmUsageTotals>> {
    const rows = await this.#sql.query<{ stage: string; calls: number; p: number; c: number }>(
      'SELECT stage, count(*) AS calls, sum(prompt_tokens) AS p, sum(completion_tokens) AS c FROM llm_calls WHERE created_at >= ? GROUP BY stage',
      [since],
    );
    return Object.fromEntries(
      rows.map((r) => [r.stage, { calls: Number(r.calls), promptTokens: Number(r.p), completionTokens: Number(r.c) }]),
    );
  }
}
