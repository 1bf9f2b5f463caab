/**
 * RetrievalSource over SQL: BM25 over the turn index (turns_fts, schema v2), turn fetches and
 * neighbours from `messages`, and vector kNN delegated to the caller's in-memory index of message
 * vectors (the engine's SemanticIndex: brute-force cosine over the `vectors` table; docs/architecture.md, Measured facts).
 *
 * Speed at scale (the scale benchmark, measured at 30k turns): FTS5 computes bm25() for EVERY row that
 * matches any OR'd term before it can sort, and a question's terms matched half of the turn index
 * (p50 15k of 30k rows: the neighbour-context columns triple each term's postings), so a lexical
 * query cost ∝ the database. Two changes bound it: the top rows are ranked inside the FTS table
 * first and only they are joined to `messages` (the join used to run for every matched row;
 * identical results), and when the terms' postings together exceed a budget the commonest terms
 * (lowest idf) are left out (selectTerms). Under the budget — every database of a few thousand
 * turns — the query is exactly as before.
 *
 * A large memory is read through `ownWords` (BM25 over messages_fts, a third of the turn index's
 * postings, the rarest terms within the caller's budget) and `contextLinks` (which turns hold a hit
 * in their neighbour context, the turn index's window), so the Retriever can add context by score.
 */
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type { Message } from '../core/base/types';
import type {
  ContextLink,
  LexicalOptions,
  OwnWordsOptions,
  RetrievalScope,
  RetrievalSource,
  ScoredTurn,
  TurnFacts,
} from '../core/recall/Retriever';
import { maxTurnKey, toMessage } from './messageRepo';
import { TURN_CONTEXT_AFTER, TURN_CONTEXT_BEFORE, TURN_TIMELINE, TURNS_FTS_COLUMNS, turnWindowJoin } from './schema';
import type { ContextWindows, TermStats } from '../core/recall/fullQueryScore';
import type { VectorSearch } from '../core/engine/engineDeps';
import { cleanTerms, orMatch, TermFrequencies } from './termBudget';
import { getVectors } from './vectorRepo';
import { cosine } from '../core/base/vectorMath';

export { orMatch, selectTerms } from './termBudget';

const COLUMNS =
  'm.pk, m.id, m.conversation_id, m.seq, m.role, m.speaker, m.content, m.occurred_at, m.ingested_at, m.token_count, m.metadata';
/** What ranking reads of a candidate (TurnFacts): no text, no metadata to parse. */
const FACT_COLUMNS = 'm.id, m.conversation_id, m.occurred_at, m.speaker, m.role';
/** SQLite's default limit on bound parameters is 32766; stay well under it per statement. */
const ID_CHUNK = 500;
/**
 * Rows a lexical query may score: terms are taken rarest first while their document frequencies
 * sum to at most this. Tuned at 30k–100k turns (bench/scale.ts); the LoCoMo dev split (≈600 turns
 * per database) never reaches it.
 */
export const LEXICAL_POSTINGS_BUDGET = 12_000;
/** The words a standing instruction opens or ends with (queryAnalysis.STANDING_INSTRUCTION decides). */
const RULE_MATCH = 'always OR never OR whenever OR "from now on" OR "going forward" OR "when i ask"';
/** A cached average is reused until the index has grown by this factor. */
const AVERAGES_REFRESH_GROWTH = 1.25;

function scopeSql(scope: RetrievalScope | undefined, params: SqlValue[]): string {
  let where = '';
  if (scope?.conversationIds) {
    where += ` AND m.conversation_id IN (${scope.conversationIds.map(() => '?').join(', ') || 'NULL'})`;
    params.push(...scope.conversationIds);
  }
  if (scope?.excludeConversationIds?.length) {
    where += ` AND m.conversation_id NOT IN (${scope.excludeConversationIds.map(() => '?').join(', ')})`;
    params.push(...scope.excludeConversationIds);
  }
  if (scope?.until !== undefined) {
    where += ' AND m.occurred_at <= ?';
    params.push(scope.until);
  }
  return where;
}

export class SqlRetrievalSource implements RetrievalSource {
  readonly #sql: Sql;
  readonly #idsCache = new Map<string, Set<string>>();
  #idsStamp = '';
  readonly #vectors: VectorSearch | null;
  readonly #df: TermFrequencies;

  readonly #budget: number;
  /** messages_fts's row count and mean content length, with the index size (max pk) when read. */
  #averages: { docs: number; avgLength: number; at: number } | null = null;

  /** Without `vectors`, vector candidates are always empty (lexical-only retrieval). */
  constructor(sql: Sql, options: { vectors?: VectorSearch; postingsBudget?: number } = {}) {
    this.#sql = sql;
    this.#vectors = options.vectors ?? null;
    this.#budget = options.postingsBudget ?? LEXICAL_POSTINGS_BUDGET;
    this.#df = new TermFrequencies(sql);
  }

  size(): Promise<number> {
    return maxTurnKey(this.#sql);
  }

  async turnIndexCurrent(): Promise<boolean> {
    const [row] = await this.#sql.query<{ pending: number }>('SELECT EXISTS (SELECT 1 FROM turn_index_queue) AS pending');
    return !Number(row?.pending ?? 0);
  }

  async ownWords(terms: readonly string[], options: OwnWordsOptions): Promise<ScoredTurn[]> {
    const match = orMatch(await this.#withinBudget('messages_fts', cleanTerms(terms), options.postings));
    if (!match) return [];
    const weights = `${Number(options.content) || 0}, ${Number(options.speaker) || 0}`;
    const limit = Math.max(1, Math.floor(options.limit));
    const params: SqlValue[] = [match];
    const where = scopeSql(options.scope, params);
    params.push(limit);
    // Ranked inside the FTS table (ORDER BY bm25(…) LIMIT, not `rank`), only the top rows joined.
    const rows = options.scope
      ? await this.#sql.query<{ id: string; score: number }>(
          `SELECT m.id AS id, bm25(messages_fts, ${weights}) AS score FROM messages_fts JOIN messages m ON m.pk = messages_fts.rowid
          WHERE messages_fts MATCH ?${where} ORDER BY score, m.pk LIMIT ?`,
          params,
        )
      : await this.#sql.query<{ id: string; score: number }>(
          `SELECT m.id AS id, f.score AS score FROM (SELECT rowid AS pk, bm25(messages_fts, ${weights}) AS score FROM messages_fts
            WHERE messages_fts MATCH ? ORDER BY score, rowid LIMIT ?) f
          JOIN messages m ON m.pk = f.pk ORDER BY f.score, f.pk`,
          params,
        );
    return rows.map((r) => ({ id: r.id, score: -Number(r.score) }));
  }

  async termStats(terms: readonly string[]): Promise<TermStats> {
    const rows = await this.size();
    const clean = cleanTerms(terms);
    const df = clean.length ? await this.#df.frequencies('messages_fts', clean, rows) : new Map<string, number>();
    if (!this.#averages || rows > this.#averages.at * AVERAGES_REFRESH_GROWTH || rows < this.#averages.at) {
      this.#averages = { ...(await this.#ftsAverages()), at: rows };
    }
    return { docs: this.#averages.docs, avgLength: this.#averages.avgLength, df };
  }

  /**
   * FTS5's own totals: the averages record (rowid 1 of messages_fts_data) is the row count then
   * each column's token total, as SQLite varints. Falls back to the turn count and a 20-word mean.
   */
  async #ftsAverages(): Promise<{ docs: number; avgLength: number }> {
    const [row] = await this.#sql.query<{ block: Uint8Array | null }>('SELECT block FROM messages_fts_data WHERE id = 1');
    const block = row?.block;
    if (block instanceof Uint8Array && block.length > 0) {
      let at = 0;
      const varint = (): number => {
        let v = 0;
        for (let i = 0; i < 9 && at < block.length; i++) {
          const byte = block[at++]!;
          if (i === 8) return v * 256 + byte;
          v = v * 128 + (byte & 0x7f);
          if (!(byte & 0x80)) return v;
        }
        return v;
      };
      const docs = varint();
      const contentTokens = varint();
      if (docs > 0) return { docs, avgLength: contentTokens / docs };
    }
    const [count] = await this.#sql.query<{ n: number }>('SELECT count(*) AS n FROM messages');
    return { docs: Number(count?.n ?? 0), avgLength: 20 };
  }

  async contextWindows(ids: readonly string[]): Promise<ContextWindows> {
    const texts = new Map<string, string>();
    const windows: { id: string; before: string[]; after: string[]; timeline: string }[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      // The turn index's window (as contextLinks), by a self-join; each turn's text read once.
      const rows = await this.#sql.query<{ id: string; n: string; d: number; timeline: string }>(
        `SELECT m.id AS id, n.id AS n, n.seq - m.seq AS d, ${TURN_TIMELINE} AS timeline FROM messages m
           JOIN messages n ON ${turnWindowJoin('n', 'm', TURN_CONTEXT_BEFORE, TURN_CONTEXT_AFTER)}
          WHERE m.id IN (${chunk.map(() => '?').join(', ')})
          ORDER BY m.id, abs(n.seq - m.seq)`,
        chunk,
      );
      const byId = new Map<string, { id: string; before: string[]; after: string[]; timeline: string }>();
      for (const r of rows) {
        let win = byId.get(r.id);
        if (!win) {
          win = { id: r.id, before: [], after: [], timeline: String(r.timeline) };
          byId.set(r.id, win);
          windows.push(win);
        }
        const d = Number(r.d);
        if (d !== 0) (d < 0 ? win.before : win.after).push(r.n);
        texts.set(r.n, '');
      }
    }
    const wanted = [...texts.keys()];
    for (let i = 0; i < wanted.length; i += ID_CHUNK) {
      const chunk = wanted.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<{ id: string; content: string; caption: string | null }>(
        `SELECT id, content, json_extract(metadata, '$.caption') AS caption FROM messages WHERE id IN (${chunk.map(() => '?').join(', ')})`,
        chunk,
      );
      for (const r of rows)
        texts.set(r.id, typeof r.caption === 'string' && r.caption ? `${r.content} ${r.caption}` : String(r.content ?? ''));
    }
    return { texts, windows };
  }

  async contextLinks(ids: readonly string[], scope?: RetrievalScope): Promise<ContextLink[]> {
    const out: ContextLink[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const params: SqlValue[] = [...chunk];
      const where = scopeSql(scope, params);
      // The turn index's window (schema v2): a turn's "before" context is the TURN_CONTEXT_BEFORE
      // turns before it, its "after" context the TURN_CONTEXT_AFTER turns after it, same
      // conversation, within TURN_CONTEXT_GAP_MS. Seen from a hit h: h is "before" context of the
      // turns just after it and "after" context of the turns just before it.
      const rows = await this.#sql.query<{ hit: string; id: string; d: number }>(
        `SELECT h.id AS hit, m.id AS id, m.seq - h.seq AS d FROM messages h
           JOIN messages m ON ${turnWindowJoin('m', 'h', TURN_CONTEXT_AFTER, TURN_CONTEXT_BEFORE)} AND m.seq <> h.seq
          WHERE h.id IN (${chunk.map(() => '?').join(', ')})${where}`,
        params,
      );
      for (const r of rows)
        out.push({ from: r.hit, to: r.id, side: Number(r.d) > 0 ? 'before' : 'after', distance: Math.abs(Number(r.d)) });
    }
    return out;
  }

  async lexical(terms: readonly string[], options: LexicalOptions): Promise<string[]> {
    const match = orMatch(await this.#withinBudget('turns_fts', cleanTerms(terms), this.#budget));
    if (!match) return [];
    const weights = TURNS_FTS_COLUMNS.map((c) => Number(options.fields[c]) || 0).join(', ');
    const limit = Math.max(1, Math.floor(options.limit));
    if (!options.scope) {
      // Rank inside the FTS table, then join only the top rows (same order: bm25, then pk).
      const rows = await this.#sql.query<{ id: string }>(
        `SELECT m.id AS id FROM (SELECT rowid AS pk, bm25(turns_fts, ${weights}) AS score FROM turns_fts
            WHERE turns_fts MATCH ? ORDER BY score, rowid LIMIT ?) f
          JOIN messages m ON m.pk = f.pk ORDER BY f.score, f.pk`,
        [match, limit],
      );
      return rows.map((r) => r.id);
    }
    const params: SqlValue[] = [match];
    const where = scopeSql(options.scope, params);
    params.push(limit);
    const rows = await this.#sql.query<{ id: string }>(
      `SELECT m.id AS id FROM turns_fts JOIN messages m ON m.pk = turns_fts.rowid
        WHERE turns_fts MATCH ?${where}
        ORDER BY bm25(turns_fts, ${weights}), m.pk LIMIT ?`,
      params,
    );
    return rows.map((r) => r.id);
  }

  /** `terms` cut to the postings budget by document frequency in `table` (termBudget.ts). */
  #withinBudget(table: 'turns_fts' | 'messages_fts', terms: readonly string[], budget: number): Promise<string[]> {
    return this.#df.withinBudget(table, terms, budget, () => this.size());
  }

  async vector(
    vector: Float32Array,
    modelId: string,
    options: { readonly limit: number; readonly scope?: RetrievalScope },
  ): Promise<string[]> {
    if (!this.#vectors) return [];
    // Non-positive cosine carries no evidence of relatedness. The list is fused by rank only, so a
    // quantised index's own order is enough: rescoring it exactly read a stored vector per
    // candidate (≈ 250 rows for 200 candidates), the largest cost of a recall at 10k turns.
    const search = async (k: number, filter?: (id: string) => boolean) =>
      (await this.#vectors!(modelId, vector, k, { approximate: true, ...(filter ? { filter } : {}) }))
        .filter((h) => h.score > 0)
        .map((h) => h.id);
    const scope = options.scope;
    if (!scope) return search(options.limit);
    // A conversation scope is applied inside the index's scan: a project's few turns among many
    // get their k best (filtering the global top k after the search left a small project with
    // fewer, often none). Only a time bound is still checked after, on an over-fetched list.
    const filter = await this.#conversationFilter(scope);
    if (scope.until === undefined) return search(options.limit, filter);
    const hits = await search(options.limit * 4, filter);
    const inScope = await this.#idsInScope(hits, scope);
    return hits.filter((id) => inScope.has(id)).slice(0, options.limit);
  }

  /** Which turn ids a scope's conversation lists allow, as a test the vector index runs per row. */
  async #conversationFilter(scope: RetrievalScope): Promise<((id: string) => boolean) | undefined> {
    const only = scope.conversationIds;
    const without = scope.excludeConversationIds?.length ? scope.excludeConversationIds : undefined;
    if (!only && !without) return undefined;
    const allowed = only ? await this.#turnIdsOfCached(only) : null;
    const walled = without ? await this.#turnIdsOfCached(without) : null;
    return (id) => (!allowed || allowed.has(id)) && !walled?.has(id);
  }

  /**
   * #turnIdsOf, kept while nothing was written: a project's turn ids were read on every recall
   * (78 ms for 940 conversations / 17,600 turns of a 100k-turn file). Any write on the connection
   * (total_changes(), triggers included) or a replaced file drops the copy, so a turn just written
   * to a walled conversation is never missed.
   */
  async #turnIdsOfCached(conversationIds: readonly string[]): Promise<Set<string>> {
    const [row] = await this.#sql.query<{ c: number }>('SELECT total_changes() AS c');
    const stamp = `${row?.c ?? 0}:${this.#sql.replacements ?? 0}`;
    if (this.#idsStamp !== stamp) {
      this.#idsCache.clear();
      this.#idsStamp = stamp;
    }
    const key = [...conversationIds].sort().join('\u0000');
    let ids = this.#idsCache.get(key);
    if (!ids) {
      ids = await this.#turnIdsOf(conversationIds);
      // Two lists at most are asked per recall (allowed, walled); a few more cover switching chats.
      if (this.#idsCache.size >= 4) this.#idsCache.clear();
      this.#idsCache.set(key, ids);
    }
    return ids;
  }

  /** The ids of every turn of these conversations (messages_by_conversation answers it). */
  async #turnIdsOf(conversationIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < conversationIds.length; i += ID_CHUNK) {
      const chunk = conversationIds.slice(i, i + ID_CHUNK);
      const rows = await this.#sql.query<{ id: string }>(
        `SELECT id FROM messages WHERE conversation_id IN (${chunk.map(() => '?').join(', ')})`,
        chunk,
      );
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  async #idsInScope(ids: readonly string[], scope: RetrievalScope): Promise<Set<string>> {
    return new Set((await this.#rowsInScope<{ id: string }>('m.id AS id', ids, scope)).map((r) => r.id));
  }

  /** `columns` of the messages with these ids (in scope), in chunks under the bound-parameter limit. */
  async #rowsInScope<T extends SqlRow>(columns: string, ids: readonly string[], scope: RetrievalScope | undefined): Promise<T[]> {
    const out: T[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const params: SqlValue[] = [...chunk];
      const where = scopeSql(scope, params);
      out.push(
        ...(await this.#sql.query<T>(
          `SELECT ${columns} FROM messages m WHERE m.id IN (${chunk.map(() => '?').join(', ')})${where}`,
          params,
        )),
      );
    }
    return out;
  }

  async turns(ids: readonly string[]): Promise<Message[]> {
    return (await this.#rowsInScope<Parameters<typeof toMessage>[0]>(COLUMNS, ids, undefined)).map(toMessage);
  }

  async facts(ids: readonly string[], options: { readonly content: boolean | 'user' }): Promise<TurnFacts[]> {
    const content =
      options.content === 'user' ? `, CASE WHEN m.role = 'user' THEN m.content END AS content` : options.content ? ', m.content' : '';
    const rows = await this.#rowsInScope<{
      id: string;
      conversation_id: string;
      occurred_at: number;
      speaker: string;
      role: string;
      content?: string | null;
    }>(FACT_COLUMNS + content, ids, undefined);
    return rows.map((r) => ({
      id: r.id,
      conversationId: r.conversation_id,
      occurredAt: Number(r.occurred_at),
      speaker: r.speaker,
      role: r.role as Message['role'],
      ...(typeof r.content === 'string' ? { content: r.content } : {}),
    }));
  }

  async ruleCandidates(options: { readonly limit: number; readonly scope?: RetrievalScope }): Promise<{ id: string; content: string }[]> {
    const params: SqlValue[] = [RULE_MATCH];
    const where = scopeSql(options.scope, params);
    params.push(Math.max(1, Math.floor(options.limit)));
    // Newest first inside the FTS table (its rowid order, stopped by the LIMIT), then joined: the
    // cost is bounded by `limit` × 4 rows however large the memory.
    params.splice(1, 0, Math.max(1, Math.floor(options.limit)) * 4);
    return this.#sql.query<{ id: string; content: string }>(
      `SELECT m.id AS id, m.content AS content FROM (SELECT rowid AS pk FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?) f
        JOIN messages m ON m.pk = f.pk WHERE m.role = 'user'${where} ORDER BY m.pk DESC LIMIT ?`,
      params,
    );
  }

  async similarities(ids: readonly string[], vector: Float32Array, modelId: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const { itemId, vector: v } of await getVectors(this.#sql, 'message', ids, modelId)) out.set(itemId, cosine(vector, v));
    return out;
  }

  async neighbours(id: string, before: number, after: number): Promise<Message[]> {
    const rows = await this.#sql.query<Parameters<typeof toMessage>[0]>(
      `WITH t AS (SELECT conversation_id, seq FROM messages WHERE id = ?)
       SELECT * FROM (SELECT ${COLUMNS} FROM messages m, t WHERE m.conversation_id = t.conversation_id AND m.seq < t.seq ORDER BY m.seq DESC LIMIT ?)
       UNION ALL
       SELECT * FROM (SELECT ${COLUMNS} FROM messages m, t WHERE m.conversation_id = t.conversation_id AND m.seq > t.seq ORDER BY m.seq ASC LIMIT ?)`,
      [id, Math.max(0, before), Math.max(0, after)],
    );
    return rows.map(toMessage).sort((a, b) => a.seq - b.seq);
  }
}
