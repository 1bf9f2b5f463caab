/**
 * KnowledgeSource over SQL (src/core/recall/answerSource.ts): facts through facts_fts and episodes
 * through memcells_fts in BM25 order, look-ups by id, scene members, the turn → episode mapping, the
 * active profile and time-valid foresight. Candidates only: fusion with vectors and every other
 * ranking happens in core (hybridSearch). Read-only: every statement here is a SELECT.
 *
 * Only synthesised episodes (a non-empty narrative) are returned: a raw MemCell has nothing to
 * show beyond its turns, which the excerpts already carry.
 */
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type { ForesightItem, ProfileItem } from '../core/synthesis/knowledge';
import type { ContextEpisode, ContextFact, KnowledgeQueryOptions } from '../core/recall/answerContext';
import type { KnowledgeSource } from '../core/recall/answerSource';
import { SqlKnowledgeStore } from './knowledgeRepo';
import { toFtsQuery } from './ftsQuery';

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

export class SqlKnowledgeSource implements KnowledgeSource {
  readonly #sql: Sql;
  readonly #knowledge: SqlKnowledgeStore;

  constructor(sql: Sql) {
    this.#sql = sql;
    this.#knowledge = new SqlKnowledgeStore(sql);
  }

  async lexicalFacts(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextFact[]> {
    const match = toFtsQuery(query);
    if (match === null) return [];
    const scope = options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '';
    const rows = await this.#sql.query<FactRow>(
      `SELECT ${FACT_COLUMNS} FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid JOIN memcells c ON c.id = f.memcell_id
        WHERE facts_fts MATCH ?${scope} ORDER BY bm25(facts_fts), f.id LIMIT ?`,
      [match, ...(options.conversationId !== undefined ? [options.conversationId] : []), options.limit]);
    return rows.map(toFact);
  }

  async factsByIds(ids: readonly string[], options: { readonly conversationId?: string }): Promise<readonly ContextFact[]> {
    const scope = options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '';
    const out: ContextFact[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<FactRow>(
        `SELECT ${FACT_COLUMNS} FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE f.id IN (${chunk.map(() => '?').join(', ')})${scope}`,
        [...chunk, ...(options.conversationId !== undefined ? [options.conversationId] : [])]);
      out.push(...rows.map(toFact));
    }
    return out;
  }

  async lexicalEpisodes(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextEpisode[]> {
    const match = toFtsQuery(query);
    if (match === null) return [];
    const scope = options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '';
    const rows = await this.#sql.query<CellRow>(
      `SELECT ${CELL_COLUMNS} FROM memcells_fts JOIN memcells c ON c.rowid = memcells_fts.rowid
        WHERE memcells_fts MATCH ? AND ${SYNTHESISED}${scope} ORDER BY bm25(memcells_fts), c.id LIMIT ?`,
      [match, ...(options.conversationId !== undefined ? [options.conversationId] : []), options.limit]);
    return rows.map(toEpisode);
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
    return (await this.#knowledge.profileItems()).filter((p) => p.status === 'active');
  }

  foresight(now: number): Promise<readonly ForesightItem[]> {
    return this.#knowledge.activeForesight(now, { includeUpcoming: true, limit: 50 });
  }
}
