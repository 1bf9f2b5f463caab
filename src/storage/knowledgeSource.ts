/**
 * KnowledgeSource over SQL (src/core/recall/answerSource.ts): facts through facts_fts and episodes
 * through memcells_fts in BM25 order, look-ups by id, scene members, the turn → episode mapping, the
 * active profile and time-valid foresight. Candidates only: fusion with vectors and every other
 * ranking happens in core (hybridSearch). Read-only: every statement here is a SELECT.
 *
 * Only synthesised episodes (a non-empty narrative) are returned: a raw MemCell has nothing to
 * show beyond its turns, which the excerpts already carry.
 *
 * Speed at scale (bench/scale.ts, a synthesised layer of one fact per 5 turns and one episode per
 * 20): FTS5 scores every row matching any of the question's OR'd terms before it sorts, and at
 * 100,000 turns a question's terms matched p50 ≈ 900 / p95 ≈ 3,000 of 20,000 facts and p50 ≈ 1,400
 * / p95 ≈ 3,300 of 5,000 narratives (long texts share common words). As for the turns' own words
 * (retrievalSource.ts), the top rows are ranked inside the FTS table and only they are joined, and
 * when the terms' postings exceed KNOWLEDGE_POSTINGS_BUDGET the commonest terms are left out
 * (termBudget.ts). Under the budget — every memory of a few thousand turns — the terms are all kept.
 */
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import { MESSAGE_EVIDENCE, type ForesightItem, type ProfileItem } from '../core/synthesis/knowledge';
import type { ContextEpisode, ContextFact, ContextOrigins, KnowledgeQueryOptions } from '../core/recall/answerContext';
import type { KnowledgeSource } from '../core/recall/answerSource';
import {
  FORESIGHT_COLUMNS,
  PROFILE_COLUMNS,
  SqlKnowledgeStore,
  toForesight,
  toProfileItem,
  type ForesightRow,
  type ProfileRow,
} from './knowledgeRepo';
import type { MemoryScope } from '../core/recall/memoryScope';
import { ftsTerms } from './ftsQuery';
import { orMatch, TermFrequencies } from './termBudget';

interface FactRow extends SqlRow {
  id: string;
  memcell_id: string;
  speaker: string;
  content: string;
  occurred_at: number | null;
  valid_from: number | null;
  valid_to: number | null;
  superseded_by: string | null;
}

interface CellRow extends SqlRow {
  id: string;
  conversation_id: string;
  scene_id: string | null;
  title: string | null;
  narrative: string;
  start_at: number;
  end_at: number;
}

const FACT_COLUMNS = 'f.id, f.memcell_id, f.speaker, f.content, f.occurred_at, f.valid_from, f.valid_to, f.superseded_by';
const CELL_COLUMNS = 'c.id, c.conversation_id, c.scene_id, c.title, c.narrative, c.start_at, c.end_at';
const SYNTHESISED = "c.narrative IS NOT NULL AND c.narrative <> ''";
const ID_CHUNK = 500;

/**
 * Rows a fact or episode query may score (the rarest terms kept within it), as the turns' own words
 * at scale (RETRIEVAL_CONFIG.large.postings). Measured at 100,000 turns: the top 12 facts and top 8
 * episodes are 99.8 % and 98.3 % the unbounded query's; 2,000 kept 96 % and 91 %.
 */
export const KNOWLEDGE_POSTINGS_BUDGET = 4_000;

const numOrNull = (v: SqlValue): number | null => (v === null ? null : Number(v));

function toFact(r: FactRow): ContextFact {
  return {
    id: r.id,
    memcellId: r.memcell_id,
    speaker: r.speaker,
    content: r.content,
    occurredAt: numOrNull(r.occurred_at),
    validFrom: numOrNull(r.valid_from),
    validTo: numOrNull(r.valid_to),
    current: r.superseded_by === null,
  };
}

function toEpisode(r: CellRow): ContextEpisode {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    sceneId: r.scene_id,
    title: r.title,
    narrative: r.narrative,
    startAt: Number(r.start_at),
    endAt: Number(r.end_at),
  };
}

/**
 * The SQL condition keeping memory of `column`'s conversation inside a project scope
 * (core/recall/memoryScope.ts), with its parameters; '' without a scope.
 */
export function scopeCondition(scope: MemoryScope | undefined, column: string): { sql: string; params: string[] } {
  if (!scope) return { sql: '', params: [] };
  let sql = '';
  const params: string[] = [];
  if (scope.only) {
    sql += scope.only.length ? ` AND ${column} IN (${scope.only.map(() => '?').join(', ')})` : ' AND 0';
    params.push(...scope.only);
  }
  if (scope.without?.length) {
    sql += ` AND ${column} NOT IN (${scope.without.map(() => '?').join(', ')})`;
    params.push(...scope.without);
  }
  return { sql, params };
}

/** A scope that restricts anything (a scope of only the profile switch restricts no conversation). */
const restricts = (scope: MemoryScope | undefined): boolean =>
  scope !== undefined && (scope.only !== undefined || (scope.without?.length ?? 0) > 0);

export class SqlKnowledgeSource implements KnowledgeSource {
  readonly #sql: Sql;
  readonly #knowledge: SqlKnowledgeStore;
  readonly #df: TermFrequencies;
  readonly #budget: number;

  constructor(sql: Sql, options: { postingsBudget?: number } = {}) {
    this.#sql = sql;
    this.#knowledge = new SqlKnowledgeStore(sql);
    this.#df = new TermFrequencies(sql);
    this.#budget = options.postingsBudget ?? KNOWLEDGE_POSTINGS_BUDGET;
  }

  /** The query's MATCH expression in `table`, its commonest terms left out past the postings budget; null without a term. */
  async #match(table: 'facts_fts' | 'memcells_fts', query: string): Promise<string | null> {
    const terms = ftsTerms(query);
    const items = table === 'facts_fts' ? 'facts' : 'memcells';
    const size = async () => Number((await this.#sql.query<{ n: number | null }>(`SELECT max(rowid) AS n FROM ${items}`))[0]?.n ?? 0);
    return orMatch(await this.#df.withinBudget(table, terms, this.#budget, size));
  }

  async lexicalFacts(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextFact[]> {
    const match = await this.#match('facts_fts', query);
    if (match === null) return [];
    if (options.conversationId === undefined && !restricts(options.scope)) {
      // Ranked inside the FTS table, only the top rows joined: the same rows in the same order as
      // joining every match first (a fact always has its episode; equal scores go oldest first).
      const rows = await this.#sql.query<FactRow>(
        `SELECT ${FACT_COLUMNS} FROM (SELECT rowid AS pk, bm25(facts_fts) AS score FROM facts_fts WHERE facts_fts MATCH ? ORDER BY score, rowid LIMIT ?) x
           JOIN facts f ON f.rowid = x.pk ORDER BY x.score, x.pk`,
        [match, options.limit],
      );
      return rows.map(toFact);
    }
    const one = options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '';
    const scope = scopeCondition(options.scope, 'c.conversation_id');
    const rows = await this.#sql.query<FactRow>(
      `SELECT ${FACT_COLUMNS} FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid JOIN memcells c ON c.id = f.memcell_id
        WHERE facts_fts MATCH ?${one}${scope.sql} ORDER BY bm25(facts_fts), f.rowid LIMIT ?`,
      [match, ...(options.conversationId !== undefined ? [options.conversationId] : []), ...scope.params, options.limit],
    );
    return rows.map(toFact);
  }

  async factsByIds(
    ids: readonly string[],
    options: { readonly conversationId?: string; readonly scope?: MemoryScope },
  ): Promise<readonly ContextFact[]> {
    const inScope = scopeCondition(options.scope, 'c.conversation_id');
    const scope = (options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '') + inScope.sql;
    const out: ContextFact[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<FactRow>(
        `SELECT ${FACT_COLUMNS} FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE f.id IN (${chunk.map(() => '?').join(', ')})${scope}`,
        [...chunk, ...(options.conversationId !== undefined ? [options.conversationId] : []), ...inScope.params],
      );
      out.push(...rows.map(toFact));
    }
    return out;
  }

  async lexicalEpisodes(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextEpisode[]> {
    const match = await this.#match('memcells_fts', query);
    if (match === null) return [];
    if (options.conversationId === undefined && !restricts(options.scope)) {
      // Ranked inside the FTS table, only the top rows joined (equal scores oldest first, as below).
      // Only a titled episode without a narrative (a raw one the user named) matches and is not
      // synthesised: when one is among the top rows, the joined query below fills the limit instead.
      const top = await this.#sql.query<CellRow>(
        `SELECT ${CELL_COLUMNS} FROM (SELECT rowid AS pk, bm25(memcells_fts) AS score FROM memcells_fts WHERE memcells_fts MATCH ? ORDER BY score, rowid LIMIT ?) x
           JOIN memcells c ON c.rowid = x.pk ORDER BY x.score, x.pk`,
        [match, options.limit],
      );
      const synthesised = top.filter((r) => typeof r.narrative === 'string' && r.narrative !== '');
      if (synthesised.length === top.length) return synthesised.map(toEpisode);
    }
    const inScope = scopeCondition(options.scope, 'c.conversation_id');
    const scope = (options.conversationId !== undefined ? ' AND c.conversation_id = ?' : '') + inScope.sql;
    const rows = await this.#sql.query<CellRow>(
      `SELECT ${CELL_COLUMNS} FROM memcells_fts JOIN memcells c ON c.rowid = memcells_fts.rowid
        WHERE memcells_fts MATCH ? AND ${SYNTHESISED}${scope} ORDER BY bm25(memcells_fts), c.rowid LIMIT ?`,
      [match, ...(options.conversationId !== undefined ? [options.conversationId] : []), ...inScope.params, options.limit],
    );
    return rows.map(toEpisode);
  }

  async episodesByIds(ids: readonly string[], scope?: MemoryScope): Promise<readonly ContextEpisode[]> {
    const inScope = scopeCondition(scope, 'c.conversation_id');
    const out: ContextEpisode[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<CellRow>(
        `SELECT ${CELL_COLUMNS} FROM memcells c WHERE c.id IN (${chunk.map(() => '?').join(', ')}) AND ${SYNTHESISED}${inScope.sql}`,
        [...chunk, ...inScope.params],
      );
      out.push(...rows.map(toEpisode));
    }
    return out;
  }

  async itemsOf(kind: 'fact' | 'memcell', conversationIds: readonly string[]): Promise<ReadonlySet<string>> {
    const out = new Set<string>();
    const unique = [...new Set(conversationIds)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const marks = chunk.map(() => '?').join(', ');
      const rows = await this.#sql.query<{ id: string }>(
        kind === 'fact'
          ? `SELECT f.id AS id FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE c.conversation_id IN (${marks})`
          : `SELECT c.id AS id FROM memcells c WHERE c.conversation_id IN (${marks})`,
        chunk,
      );
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  async origins(conversationIds: readonly string[], memcellIds: readonly string[]): Promise<ContextOrigins> {
    const conversations = new Map<string, string | null>();
    const cells = new Map<string, string | null>();
    const read = async (ids: readonly string[], select: string, into: Map<string, string | null>) => {
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += ID_CHUNK) {
        const chunk = unique.slice(i, i + ID_CHUNK);
        const rows = await this.#sql.query<{ id: string; project_id: string | null }>(
          `${select} (${chunk.map(() => '?').join(', ')})`,
          chunk,
        );
        for (const r of rows) into.set(r.id, r.project_id ?? null);
      }
    };
    await read(conversationIds, 'SELECT id, project_id FROM conversations WHERE id IN', conversations);
    await read(
      memcellIds,
      'SELECT c.id AS id, cv.project_id AS project_id FROM memcells c JOIN conversations cv ON cv.id = c.conversation_id WHERE c.id IN',
      cells,
    );
    return { conversations, cells };
  }

  async episodesOfTurns(messageIds: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const out = new Map<string, string>();
    const unique = [...new Set(messageIds)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<{ message_id: string; cell_id: string }>(
        `SELECT m.id AS message_id, c.id AS cell_id FROM messages m
           JOIN memcells c ON c.conversation_id = m.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq
          WHERE m.id IN (${chunk.map(() => '?').join(', ')}) AND ${SYNTHESISED}`,
        chunk,
      );
      for (const r of rows) out.set(r.message_id, r.cell_id);
    }
    return out;
  }

  async sceneMembers(sceneIds: readonly string[], limitPerScene: number, scope?: MemoryScope): Promise<readonly ContextEpisode[]> {
    const inScope = scopeCondition(scope, 'c.conversation_id');
    const out: ContextEpisode[] = [];
    for (const sceneId of new Set(sceneIds)) {
      const rows = await this.#sql.query<CellRow>(
        `SELECT ${CELL_COLUMNS} FROM memcells c WHERE c.scene_id = ? AND ${SYNTHESISED}${inScope.sql} ORDER BY c.end_at DESC, c.id LIMIT ?`,
        [sceneId, ...inScope.params, limitPerScene],
      );
      out.push(...rows.map(toEpisode));
    }
    return out;
  }

  async profile(limit?: number, scope?: MemoryScope): Promise<readonly ProfileItem[]> {
    if (scope && !scope.profile) return [];
    if (scope?.without?.length) {
      // Not an item any of whose evidence episodes — or messages that asked for it ("remember
      // that…", evidence `message:<id>`) — lies behind a project's wall.
      const walled = scope.without.map(() => '?').join(', ');
      const rows = await this.#sql.query<ProfileRow>(
        `SELECT ${PROFILE_COLUMNS} FROM profile_items p WHERE status = 'active'
           AND NOT EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(p.evidence) THEN p.evidence ELSE '[]' END) e JOIN memcells c ON c.id = e.value
                            WHERE c.conversation_id IN (${walled}))
           AND NOT EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(p.evidence) THEN p.evidence ELSE '[]' END) e
                            JOIN messages m ON m.id = substr(e.value, ?) WHERE substr(e.value, 1, ?) = ? AND m.conversation_id IN (${walled}))
         ORDER BY confidence DESC, updated_at DESC, id LIMIT ?`,
        [
          ...scope.without,
          MESSAGE_EVIDENCE.length + 1,
          MESSAGE_EVIDENCE.length,
          MESSAGE_EVIDENCE,
          ...scope.without,
          limit === undefined ? -1 : Math.max(0, Math.floor(limit)),
        ],
      );
      return rows.map(toProfileItem);
    }
    if (limit === undefined) return (await this.#knowledge.profileItems()).filter((p) => p.status === 'active');
    // The answer's few: reading every item costs ≈ 7 µs a row (≈ 2.3 ms for 330 items at 100,000 turns).
    const rows = await this.#sql.query<ProfileRow>(
      `SELECT ${PROFILE_COLUMNS} FROM profile_items WHERE status = 'active' ORDER BY confidence DESC, updated_at DESC, id LIMIT ?`,
      [Math.max(0, Math.floor(limit))],
    );
    return rows.map(toProfileItem);
  }

  async foresight(now: number, scope?: MemoryScope): Promise<readonly ForesightItem[]> {
    if (!restricts(scope) && scope?.profile !== false) return this.#knowledge.activeForesight(now, { includeUpcoming: true, limit: 50 });
    // A plan belongs to the episode it came from; one made by the person (no episode) goes with the profile.
    const inScope = scopeCondition(scope, 'c.conversation_id');
    const columns = FORESIGHT_COLUMNS.split(', ')
      .map((c) => `f.${c}`)
      .join(', ');
    const rows = await this.#sql.query<ForesightRow>(
      `SELECT ${columns} FROM foresights f LEFT JOIN memcells c ON c.id = f.memcell_id
        WHERE f.status = 'active' AND (f.end_at IS NULL OR f.end_at >= ?)
          AND ((f.memcell_id IS NULL AND ?) OR (f.memcell_id IS NOT NULL${inScope.sql}))
        ORDER BY coalesce(f.end_at, 9007199254740991), f.start_at, f.id LIMIT 50`,
      [now, scope?.profile === false ? 0 : 1, ...inScope.params],
    );
    return rows.map(toForesight);
  }
}
