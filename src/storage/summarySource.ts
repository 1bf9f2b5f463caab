/**
 * What the memory summary is made from, over SQL (core/engine/MemorySummaries.ts): the active
 * profile, the plans still ahead and the newest current facts, all inside the general memory scope
 * (never the chats of a project-only project, core/recall/memoryScope.ts); and which cited items
 * still exist, so a deleted item's sentence leaves the stored summary at once; and the write of the
 * kept summary, which clears the write-ahead log's old copy when it removed a deleted item's words.
 *
 * Facts are the newest written (rowid order, an index walk: no sort over 20,000 facts at open).
 */
import type { Sql, SqlRow } from '../core/base/sql';
import type { MemoryScope } from '../core/recall/memoryScope';
import type { SummaryItem } from '../core/explorer/memorySummary';
import type { SummarySource } from '../core/engine/MemorySummaries';
import { scopeCondition, SqlKnowledgeSource } from './knowledgeSource';
import { SUMMARY_META_KEY } from '../core/explorer/memorySummary';
import { setMeta } from './vectorRepo';

interface FactRow extends SqlRow {
  id: string;
  content: string;
  occurred_at: number | null;
  valid_from: number | null;
  created_at: number;
  edited_by_user: number;
}

const ID_CHUNK = 500;

export class SqlSummarySource implements SummarySource {
  readonly #sql: Sql;
  readonly #knowledge: SqlKnowledgeSource;

  constructor(sql: Sql) {
    this.#sql = sql;
    this.#knowledge = new SqlKnowledgeSource(sql);
  }

  async items(now: number, factLimit: number, scope?: MemoryScope): Promise<SummaryItem[]> {
    const profile = await this.#knowledge.profile(undefined, scope);
    const plans = await this.#knowledge.foresight(now, scope);
    const inScope = scopeCondition(scope, 'c.conversation_id');
    const facts = await this.#sql.query<FactRow>(
      `SELECT f.id, f.content, f.occurred_at, f.valid_from, f.created_at, f.edited_by_user FROM facts f JOIN memcells c ON c.id = f.memcell_id
        WHERE f.superseded_by IS NULL${inScope.sql} ORDER BY f.rowid DESC LIMIT ?`,
      [...inScope.params, Math.max(0, Math.floor(factLimit))],
    );
    return [
      ...profile.map((p) => ({ id: p.id, kind: 'profile' as const, key: p.key, text: p.value, at: p.createdAt, byUser: p.editedByUser })),
      ...plans.map((f) => ({
        id: f.id,
        kind: 'plan' as const,
        key: null,
        text: f.content,
        at: f.startAt,
        until: f.endAt,
        byUser: f.source === 'user',
      })),
      ...facts.map((f) => ({
        id: f.id,
        kind: 'fact' as const,
        key: null,
        text: f.content,
        at: Number(f.occurred_at ?? f.valid_from ?? f.created_at),
        byUser: Number(f.edited_by_user) === 1,
      })),
    ];
  }

  async write(value: string, removed: boolean): Promise<void> {
    await this.#sql.transaction(async (tx) => {
      await setMeta(tx, SUMMARY_META_KEY, value);
      // Words of a deleted item left the summary: the log's copy of the page as it was must go too.
      if (removed) tx.contentRemoved?.();
    });
  }

  async existing(ids: readonly string[], scope?: MemoryScope): Promise<Set<string>> {
    const out = new Set<string>();
    const wanted = new Set(ids);
    for (const p of await this.#knowledge.profile(undefined, scope)) if (wanted.has(p.id)) out.add(p.id);
    const inScope = scopeCondition(scope, 'c.conversation_id');
    const unique = [...wanted];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const marks = chunk.map(() => '?').join(', ');
      const facts = await this.#sql.query<{ id: string }>(
        `SELECT f.id FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE f.id IN (${marks})${inScope.sql}`,
        [...chunk, ...inScope.params],
      );
      // A plan written by the person (no episode) goes with the profile, as in answers.
      const plans = await this.#sql.query<{ id: string }>(
        `SELECT f.id FROM foresights f LEFT JOIN memcells c ON c.id = f.memcell_id
          WHERE f.id IN (${marks}) AND f.status <> 'dismissed' AND ((f.memcell_id IS NULL AND ?) OR (f.memcell_id IS NOT NULL${inScope.sql}))`,
        [...chunk, scope?.profile === false ? 0 : 1, ...inScope.params],
      );
      for (const r of [...facts, ...plans]) out.add(r.id);
    }
    return out;
  }
}
