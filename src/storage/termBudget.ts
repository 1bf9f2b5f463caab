/**
 * The postings budget of a full-text query (docs/architecture.md, Measured facts: FTS5 scores every
 * row that matches any OR'd term before it can sort, so a query's cost follows the postings of its
 * terms, not its LIMIT). When the terms' document frequencies sum to more than the budget, the
 * commonest terms are left out (`selectTerms`); under it the query is exactly as given. Used by the
 * turn index and the turns' own words (retrievalSource.ts) and by facts and episodes
 * (knowledgeSource.ts).
 *
 * Document frequencies are counted by MATCH on each quoted term (so the index's own tokenizer and
 * porter stemming apply: a vocabulary look-up would need the stem) and cached per table until the
 * table has grown by a quarter.
 */
import type { Sql } from '../core/base/sql';
import { ftsOperand } from '../core/base/lexicalUnits';

const MAX_TERMS = 64;
/** A cached document frequency is reused until the index has grown by this factor. */
const DF_REFRESH_GROWTH = 1.25;
/** Cached frequencies kept before the cache starts afresh. */
const DF_CACHE_SIZE = 50_000;

/** The FTS tables a budget applies to. */
export type FtsTable = 'turns_fts' | 'messages_fts' | 'facts_fts' | 'memcells_fts';

/**
 * The terms to query: all of them when their postings fit `budget`; otherwise the rarest first
 * while the running sum of document frequencies stays within it, always at least the rarest one.
 * Terms keep their input order. A term with no postings costs nothing and is kept.
 */
export function selectTerms(terms: readonly string[], df: ReadonlyMap<string, number>, budget: number): string[] {
  const total = terms.reduce((n, t) => n + (df.get(t) ?? 0), 0);
  if (total <= budget) return [...terms];
  const byRarity = [...terms].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0));
  const keep = new Set<string>();
  let sum = 0;
  for (const t of byRarity) {
    const d = df.get(t) ?? 0;
    if (keep.size > 0 && sum + d > budget) break;
    keep.add(t);
    sum += d;
  }
  return terms.filter((t) => keep.has(t));
}

/** Terms trimmed, de-duplicated, of at most 64 characters, at most 64 of them. */
export function cleanTerms(terms: readonly string[]): string[] {
  return [...new Set(terms.map((t) => t.trim()).filter((t) => t.length > 0 && t.length <= 64))].slice(0, MAX_TERMS);
}

/**
 * `"a" OR "b"` from plain words; embedded quotes are doubled so nothing is FTS5 syntax, and a lone
 * character of a script without spaces is a prefix query (lexicalUnits.ftsOperand).
 */
export function orMatch(terms: readonly string[]): string | null {
  const clean = cleanTerms(terms);
  return clean.length ? clean.map(ftsOperand).join(' OR ') : null;
}

/** Document frequencies per FTS table, cached (approximate is enough). */
export class TermFrequencies {
  readonly #sql: Sql;
  /** table + term → [document frequency, index size when counted]. */
  readonly #df = new Map<string, readonly [number, number]>();

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * `terms` cut to `budget` postings in `table` (selectTerms). `size` is the index's size (its
   * largest rowid): a table smaller than the budget cannot exceed it with one term, so below
   * `size × terms ≤ budget` nothing is looked up.
   */
  async withinBudget(table: FtsTable, terms: readonly string[], budget: number, size: () => Promise<number>): Promise<string[]> {
    if (terms.length < 2) return [...terms];
    const rows = await size();
    if (rows * terms.length <= budget) return [...terms];
    return selectTerms(terms, await this.frequencies(table, terms, rows), budget);
  }

  /** Each term's document frequency in `table`; `rows` is the index size now (cached counts older than a quarter of growth are recounted). */
  async frequencies(table: FtsTable, terms: readonly string[], rows: number): Promise<Map<string, number>> {
    const key = (t: string) => `${table}\u0000${t}`;
    const out = new Map<string, number>();
    const stale: string[] = [];
    for (const t of terms) {
      const hit = this.#df.get(key(t));
      if (!hit || rows > hit[1] * DF_REFRESH_GROWTH || rows < hit[1]) stale.push(t);
      else out.set(t, hit[0]);
    }
    if (stale.length) {
      const columns = stale.map((_, i) => `(SELECT count(*) FROM ${table} WHERE ${table} MATCH ?) AS c${i}`).join(', ');
      const [counts] = await this.#sql.query<Record<string, number>>(
        `SELECT ${columns}`,
        stale.map((t) => orMatch([t])!),
      );
      if (this.#df.size > DF_CACHE_SIZE) this.#df.clear();
      stale.forEach((t, i) => {
        const n = Number(counts?.[`c${i}`] ?? 0);
        this.#df.set(key(t), [n, rows]);
        out.set(t, n);
      });
    }
    return new Map(terms.map((t) => [t, out.get(t) ?? 0]));
  }
}
