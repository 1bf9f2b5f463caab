/**
 * RetrievalSource over SQL: BM25 over the turn index (turns_fts, schema v2), turn fetches and
 * neighbours from `messages`, and vector kNN delegated to the caller's in-memory index of message
 * vectors (the engine's SemanticIndex: brute-force cosine over the `vectors` table, DESIGN §9).
 */
import type { Sql, SqlValue } from '../core/base/sql';
import type { Message } from '../core/base/types';
import type { LexicalOptions, RetrievalScope, RetrievalSource } from '../core/recall/Retriever';
import { toMessage } from './messageRepo';
import { TURNS_FTS_COLUMNS } from './schema';

/** Nearest message vectors of one vector model (e.g. the engine's SemanticIndex over `vectors`). */
export type MessageVectorSearch = (vectorModelId: string, query: Float32Array, k: number) => Promise<readonly { readonly id: string; readonly score: number }[]>;

const COLUMNS = 'm.pk, m.id, m.conversation_id, m.seq, m.role, m.speaker, m.content, m.occurred_at, m.ingested_at, m.token_count, m.metadata';
const MAX_TERMS = 64;
/** SQLite's default limit on bound parameters is 32766; stay well under it per statement. */
const ID_CHUNK = 500;

/** `"a" OR "b"` from plain words; embedded quotes are doubled so nothing is FTS5 syntax. */
export function orMatch(terms: readonly string[]): string | null {
  const clean = [...new Set(terms.map((t) => t.trim()).filter((t) => t.length > 0 && t.length <= 64))].slice(0, MAX_TERMS);
  return clean.length ? clean.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ') : null;
}

function scopeSql(scope: RetrievalScope | undefined, params: SqlValue[]): string {
  let where = '';
  if (scope?.conversationIds) {
    where += ` AND m.conversation_id IN (${scope.conversationIds.map(() => '?').join(', ') || 'NULL'})`;
    params.push(...scope.conversationIds);
  }
  if (scope?.until !== undefined) {
    where += ' AND m.occurred_at <= ?';
    params.push(scope.until);
  }
  return where;
}

export class SqlRetrievalSource implements RetrievalSource {
  readonly #sql: Sql;
  readonly #vectors: MessageVectorSearch | null;

  /** Without `vectors`, vector candidates are always empty (lexical-only retrieval). */
  constructor(sql: Sql, options: { vectors?: MessageVectorSearch } = {}) {
    this.#sql = sql;
    this.#vectors = options.vectors ?? null;
  }

  async lexical(terms: readonly string[], options: LexicalOptions): Promise<string[]> {
    const match = orMatch(terms);
    if (!match) return [];
    const weights = TURNS_FTS_COLUMNS.map((c) => Number(options.fields[c]) || 0).join(', ');
    const params: SqlValue[] = [match];
    const where = scopeSql(options.scope, params);
    params.push(Math.max(1, Math.floor(options.limit)));
    const rows = await this.#sql.query<{ id: string }>(
      `SELECT m.id AS id FROM turns_fts JOIN messages m ON m.pk = turns_fts.rowid
        WHERE turns_fts MATCH ?${where}
        ORDER BY bm25(turns_fts, ${weights}), m.pk LIMIT ?`,
      params,
    );
    return rows.map((r) => r.id);
  }

  async vector(vector: Float32Array, modelId: string, options: { readonly limit: number; readonly scope?: RetrievalScope }): Promise<string[]> {
    if (!this.#vectors) return [];
    // Non-positive cosine carries no evidence of relatedness.
    const search = async (k: number) => (await this.#vectors!(modelId, vector, k)).filter((h) => h.score > 0).map((h) => h.id);
    if (!options.scope) return search(options.limit);
    // Scoped: over-fetch, then keep the ids inside the scope.
    const hits = await search(options.limit * 4);
    const inScope = new Set((await this.turnsInScope(hits, options.scope)).map((m) => m.id));
    return hits.filter((id) => inScope.has(id)).slice(0, options.limit);
  }

  turns(ids: readonly string[]): Promise<Message[]> {
    return this.turnsInScope(ids, undefined);
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

  private async turnsInScope(ids: readonly string[], scope: RetrievalScope | undefined): Promise<Message[]> {
    const out: Message[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const params: SqlValue[] = [...chunk];
      const where = scopeSql(scope, params);
      const rows = await this.#sql.query<Parameters<typeof toMessage>[0]>(
        `SELECT ${COLUMNS} FROM messages m WHERE m.id IN (${chunk.map(() => '?').join(', ')})${where}`,
        params,
      );
      out.push(...rows.map(toMessage));
    }
    return out;
  }
}
