/**
 * AnswerSource over SQL (src/core/answerContext.ts): facts through facts_fts, episodes through
 * memcells_fts, each fused (RRF, k = 60) with vector hits when the caller supplies a vector
 * search for 'fact' / 'memcell' items; scene members, the turn → episode mapping, the active
 * profile and time-valid foresight. Turns come from the caller's recall (the engine's hybrid
 * retrieval). Read-only: every statement here is a SELECT.
 *
 * Only synthesised episodes (a non-empty narrative) are returned: a raw MemCell has nothing to
 * show beyond its turns, which the excerpts already carry.
 */
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type { Message } from '../core/base/types';
import type { ForesightItem, ProfileItem } from '../core/synthesis/knowledge';
import type { AnswerSource, ContextEpisode, ContextFact, KnowledgeQueryOptions } from '../core/recall/answerContext';
import { SqlKnowledgeStore } from './knowledgeRepo';
import { toFtsQuery } from './ftsQuery';

/** The engine's recall, narrowed to what is used here (MemoryEngine.recall satisfies it). */
export type TurnRecall = (query: string, options: { limit?: number; now?: number; conversationId?: string }) =>
  Promise<{ readonly turns: readonly { readonly message: Message }[] }>;

/** Nearest items of one kind to the query text, best first (cosine). */
export type KnowledgeVectorSearch = (kind: 'fact' | 'memcell', query: string, k: number) => Promise<readonly { readonly id: string; readonly score: number }[]>;

interface FactRow extends SqlRow {
  id: string; memcell_id: string; speaker: string; content: string;
  occurred_at: number | null; valid_from: number | null; valid_to: number | null; superseded_by: string | null;
}

interface CellRow extends SqlRow {
  id: string; conversation_id: string; scene_id: string | null; title: string | null; narrative: string; start_at: number; end_at: number;
}

const FACT_COLUMNS = 'f.id, f.memcell_id, f.speaker, f.content, f.occurred_at, f.valid_from, f.valid_to, f.superseded_by';
const CELL_COLUMNS = 'c.id, c.conversation_id, c.scene_id, c.title, c.narrative, c.start_at, c.end_at';
const SYNTHESISED = "c.narrative IS NOT NULL AND c.narrative <> ''";
const ID_CHUNK = 500;
const RRF_K = 60;

const numOrNull = (v: SqlValue): number | null => (v === null ? null : Number(v));

function toFact(r: FactRow): ContextFact {
  return {
    id: r.id, memcellId: r.memcell_id, speaker: r.speaker, content: r.content,
    occurredAt: numOrNull(r.occurred_at), validFrom: numOrNull(r.valid_from), validTo: numOrNull(r.valid_to), current: r.superseded_by === null,
  };
}

function toEpisode(r: CellRow): ContextEpisode {
  return {
    id: r.id, conversationId: r.conversation_id, sceneId: r.scene_id, title: r.title, narrative: r.narrative,
    startAt: Number(r.start_at), endAt: Number(r.end_at),
  };
}

/** Ids ranked by reciprocal rank fusion of lexical and vector lists (equal weights). */
function fuse(lists: readonly (readonly string[])[]): string[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
  return [...scores].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);
}

export interface SqlAnswerSourceOptions {
  /** The engine's hybrid recall over turns. */
  readonly recall: TurnRecall;
  /** Vector hits over fact / MemCell vectors; without it facts and episodes are found lexically only. */
  readonly vectors?: KnowledgeVectorSearch;
}

export class SqlAnswerSource implements AnswerSource {
  readonly #sql: Sql;
  readonly #recall: TurnRecall;
  readonly #vectors: KnowledgeVectorSearch | null;
  readonly #knowledge: SqlKnowledgeStore;

  constructor(sql: Sql, options: SqlAnswerSourceOptions) {
    this.#sql = sql;
    this.#recall = options.recall;
    this.#vectors = options.vectors ?? null;
    this.#knowledge = new SqlKnowledgeStore(sql);
  }

  async turns(query: string, options: KnowledgeQueryOptions & { readonly now: number }): Promise<readonly Message[]> {
    const result = await this.#recall(query, {
      limit: options.limit, now: options.now, ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
    });
    return result.turns.map((t) => t.message);
  }

  async facts(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextFact[]> {
    const match = toFtsQuery(query);
    const scope = options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '';
    const scopeParams = options.conversationId !== undefined ? [options.conversationId] : [];
    const lexical = match === null ? [] : await this.#sql.query<FactRow>(
      `SELECT ${FACT_COLUMNS} FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid JOIN memcells c ON c.id = f.memcell_id
        WHERE facts_fts MATCH ?${scope} ORDER BY bm25(facts_fts), f.id LIMIT ?`, [match, ...scopeParams, options.limit * 2]);
    const vector = await this.#vectorIds('fact', query, options.limit * 2);
    const byId = new Map(lexical.map((r) => [r.id, r]));
    const missing = vector.filter((id) => !byId.has(id));
    for (let i = 0; i < missing.length; i += ID_CHUNK) {
      const chunk = missing.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<FactRow>(
        `SELECT ${FACT_COLUMNS} FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE f.id IN (${chunk.map(() => '?').join(', ')})${scope}`,
        [...chunk, ...scopeParams]);
      for (const r of rows) byId.set(r.id, r);
    }
    return fuse([lexical.map((r) => r.id), vector.filter((id) => byId.has(id))]).slice(0, options.limit).map((id) => toFact(byId.get(id)!));
  }

  async episodes(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextEpisode[]> {
    const match = toFtsQuery(query);
    const scope = options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '';
    const scopeParams = options.conversationId !== undefined ? [options.conversationId] : [];
    const lexical = match === null ? [] : await this.#sql.query<CellRow>(
      `SELECT ${CELL_COLUMNS} FROM memcells_fts JOIN memcells c ON c.rowid = memcells_fts.rowid
        WHERE memcells_fts MATCH ? AND ${SYNTHESISED}${scope} ORDER BY bm25(memcells_fts), c.id LIMIT ?`, [match, ...scopeParams, options.limit * 2]);
    const vector = await this.#vectorIds('memcell', query, options.limit * 2);
    const byId = new Map(lexical.map((r) => [r.id, toEpisode(r)]));
    for (const e of await this.episodesByIds(vector.filter((id) => !byId.has(id)))) {
      if (options.conversationId === undefined || e.conversationId === options.conversationId) byId.set(e.id, e);
    }
    return fuse([lexical.map((r) => r.id), vector.filter((id) => byId.has(id))]).slice(0, options.limit).map((id) => byId.get(id)!);
  }

  async episodesByIds(ids: readonly string[]): Promise<readonly ContextEpisode[]> {
    const out: ContextEpisode[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<CellRow>(
        `SELECT ${CELL_COLUMNS} FROM memcells c WHERE c.id IN (${chunk.map(() => '?').join(', ')}) AND ${SYNTHESISED}`, chunk);
      out.push(...rows.map(toEpisode));
    }
    return out;
  }

  async episodesOfTurns(messageIds: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const out = new Map<string, string>();
    const unique = [...new Set(messageIds)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<{ message_id: string; cell_id: string }>(
        `SELECT m.id AS message_id, c.id AS cell_id FROM messages m
           JOIN memcells c ON c.conversation_id = m.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq
          WHERE m.id IN (${chunk.map(() => '?').join(', ')}) AND ${SYNTHESISED}`, chunk);
      for (const r of rows) out.set(r.message_id, r.cell_id);
    }
    return out;
  }

  async sceneMembers(sceneIds: readonly string[], limitPerScene: number): Promise<readonly ContextEpisode[]> {
    const out: ContextEpisode[] = [];
    for (const sceneId of new Set(sceneIds)) {
      const rows = await this.#sql.query<CellRow>(
        `SELECT ${CELL_COLUMNS} FROM memcells c WHERE c.scene_id = ? AND ${SYNTHESISED} ORDER BY c.end_at DESC, c.id LIMIT ?`, [sceneId, limitPerScene]);
      out.push(...rows.map(toEpisode));
    }
    return out;
  }

  async profile(): Promise<readonly ProfileItem[]> {
    // Most confident first, so a tight budget keeps the surest items.
    return (await this.#knowledge.profileItems())
      .filter((p) => p.status === 'active')
      .sort((a, b) => b.confidence - a.confidence || b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
  }

  foresight(now: number): Promise<readonly ForesightItem[]> {
    return this.#knowledge.activeForesight(now, { includeUpcoming: true, limit: 50 });
  }

  async #vectorIds(kind: 'fact' | 'memcell', query: string, k: number): Promise<string[]> {
    if (!this.#vectors || !query.trim()) return [];
    try {
      // Non-positive cosine carries no evidence of relatedness.
      return (await this.#vectors(kind, query, k)).filter((h) => h.score > 0).map((h) => h.id);
    } catch {
      return []; // vectors are an index: a missing model must not stop a lexical answer
    }
  }
}
