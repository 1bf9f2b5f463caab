/**
 * "Forget everything about X", step 1: what mentions X, of every kind Forget can remove — facts,
 * episodes, messages, plans, profile items, theme summaries and conversation titles.
 *
 * SQL only proposes (FTS for the kinds that have an index, LIKE or a scan for the rest); the
 * decision is core's `forgetMatcher` (whole words in every script, any case), on the text the
 * list shows. The FTS stemmer and LIKE match inside and around words ("Ana" → "Nirvana",
 * "analysis"), so proposals are read in pages until `limit` real matches or the end: a page of
 * near misses never hides the matches after it. The scan stops after SCAN_LIMIT proposals of a
 * kind, so one query costs at most a few hundred milliseconds: far above daily use (≈ 500
 * conversations, 250 plans) and reached only by thousands of near misses, or by a word with
 * non-ASCII capitals in a memory of more than SCAN_LIMIT plans or conversations (no prefilter).
 */
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type { ForgetCandidate, ProjectFilter } from '../core/explorer/explorer';
import { forgetMatcher, type ForgetMatcher } from '../core/explorer/forgetMatch';
import { UNTITLED } from '../core/base/titles';
import { toFtsQuery } from './ftsQuery';
import { num, numOrNull, str } from './explorerRows';
import { CHATS_IN_PROJECT, PLAN_IN_PROJECT } from './projectScope';

const PAGE = 200;
const SCAN_LIMIT = 5_000;
/** How much of a long text a listed item shows (around its first mention). */
const SHOWN_CHARS = 200;

/** Rows of `select` (which must end in LIMIT ? OFFSET ?), page by page, kept while `keep` says so, up to `limit`. */
async function collect(
  sql: Sql,
  select: string,
  args: readonly SqlValue[],
  keep: (r: SqlRow) => ForgetCandidate | null,
  limit: number,
): Promise<ForgetCandidate[]> {
  const out: ForgetCandidate[] = [];
  for (let offset = 0; offset < SCAN_LIMIT && out.length < limit; offset += PAGE) {
    const rows = await sql.query(select, [...args, PAGE, offset]);
    for (const r of rows) {
      const c = keep(r);
      if (c) out.push(c);
      if (out.length >= limit) break;
    }
    if (rows.length < PAGE) break;
  }
  return out;
}

/**
 * A LIKE prefilter on `cols` for the matcher's words. SQLite's lower() and LIKE fold ASCII case
 * only, which is enough for an ASCII word and for a word without case (Chinese, Thai…); a word
 * with other cased letters (Ärger, Москва) gets no prefilter, and the matcher reads every row.
 */
function likeAny(m: ForgetMatcher, cols: readonly string[]): { sql: string; args: string[] } {
  if (!m.words.every((w) => /^[\p{ASCII}]*$/u.test(w) || w.toUpperCase() === w)) return { sql: '1', args: [] };
  return {
    // A word is letters, digits and marks only: nothing in it is a LIKE wildcard.
    sql: m.words.map(() => `(${cols.map((c) => `lower(coalesce(${c}, '')) LIKE ?`).join(' OR ')})`).join(' OR '),
    args: m.words.flatMap((w) => cols.map(() => `%${w}%`)),
  };
}

/**
 * With `filter.project` (a project's id, or null for chats in no project) only that side's messages,
 * episodes, facts, plans and titles are proposed; the profile and theme summaries belong to no one
 * project and are left out (the Forget tab says so).
 */
export async function forgetCandidates(
  sql: Sql,
  query: string,
  limit: number,
  filter: { readonly project?: ProjectFilter } = {},
): Promise<ForgetCandidate[]> {
  const m = forgetMatcher(query);
  const match = toFtsQuery(query);
  if (m === null || match === null) return [];
  const shown = (text: string): string => m.excerpt(text, SHOWN_CHARS);
  const out: ForgetCandidate[] = [];
  const scoped = filter.project !== undefined;
  const project = filter.project ?? null;
  // `IS ?` matches a project's id, or (null) chats in no project.
  const chats = CHATS_IN_PROJECT;
  const cells = `SELECT mc.id FROM memcells mc WHERE mc.conversation_id IN (${chats})`;
  const and = (condition: string): string => (scoped ? ` AND ${condition}` : '');
  const arg = (n = 1): SqlValue[] => (scoped ? Array.from({ length: n }, () => project) : []);

  out.push(
    ...(await collect(
      sql,
      `SELECT f.id, f.content, f.occurred_at FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid WHERE facts_fts MATCH ?${and(`f.memcell_id IN (${cells})`)} ORDER BY bm25(facts_fts) LIMIT ? OFFSET ?`,
      [match, ...arg()],
      (r) =>
        m.matches(str(r.content))
          ? { kind: 'fact', id: str(r.id), text: shown(str(r.content)), occurredAt: numOrNull(r.occurred_at) }
          : null,
      limit,
    )),
  );

  out.push(
    ...(await collect(
      sql,
      `SELECT c.id, c.title, c.narrative, c.start_at FROM memcells_fts JOIN memcells c ON c.rowid = memcells_fts.rowid WHERE memcells_fts MATCH ?${and(`c.conversation_id IN (${chats})`)} ORDER BY bm25(memcells_fts) LIMIT ? OFFSET ?`,
      [match, ...arg()],
      (r) => {
        const title = str(r.title) || 'Untitled episode';
        const narrative = str(r.narrative);
        if (!m.matches(title) && !m.matches(narrative)) return null;
        return { kind: 'episode', id: str(r.id), text: `${title}: ${shown(narrative)}`, occurredAt: num(r.start_at) };
      },
      limit,
    )),
  );

  // A message is listed as "speaker: content", and its speaker is indexed with it: a message said by X counts.
  out.push(
    ...(await collect(
      sql,
      `SELECT m.id, m.speaker, m.content, m.occurred_at FROM messages_fts JOIN messages m ON m.pk = messages_fts.rowid WHERE messages_fts MATCH ?${and(`m.conversation_id IN (${chats})`)} ORDER BY bm25(messages_fts) LIMIT ? OFFSET ?`,
      [match, ...arg()],
      (r) =>
        m.matches(str(r.speaker)) || m.matches(str(r.content))
          ? { kind: 'turn', id: str(r.id), text: `${str(r.speaker)}: ${shown(str(r.content))}`, occurredAt: num(r.occurred_at) }
          : null,
      limit,
    )),
  );

  const fs = likeAny(m, ['content']);
  out.push(
    ...(await collect(
      sql,
      `SELECT id, content, start_at FROM foresights WHERE status <> 'dismissed' AND (${fs.sql})${and(PLAN_IN_PROJECT)} ORDER BY rowid LIMIT ? OFFSET ?`,
      [...fs.args, ...arg(2)],
      (r) =>
        m.matches(str(r.content))
          ? { kind: 'foresight', id: str(r.id), text: shown(str(r.content)), occurredAt: numOrNull(r.start_at) }
          : null,
      limit,
    )),
  );

  const pr = likeAny(m, ['key', 'value']);
  if (!scoped)
    out.push(
      ...(await collect(
        sql,
        `SELECT id, key, value, updated_at FROM profile_items WHERE status IN ('active', 'conflict') AND (${pr.sql}) ORDER BY rowid LIMIT ? OFFSET ?`,
        pr.args,
        (r) =>
          m.matches(str(r.key)) || m.matches(str(r.value))
            ? { kind: 'profile', id: str(r.id), text: `${str(r.key)}: ${str(r.value)}`, occurredAt: num(r.updated_at) }
            : null,
        limit,
      )),
    );

  const sc = likeAny(m, ['title', 'summary']);
  if (!scoped)
    out.push(
      ...(await collect(
        sql,
        `SELECT id, title, summary, last_activity_at FROM memscenes WHERE ${sc.sql} ORDER BY rowid LIMIT ? OFFSET ?`,
        sc.args,
        (r) =>
          m.matches(str(r.title)) || m.matches(str(r.summary))
            ? {
                kind: 'scene',
                id: str(r.id),
                text: `Scene summary — ${str(r.title) || 'untitled'}: ${shown(str(r.summary))}`,
                occurredAt: numOrNull(r.last_activity_at),
              }
            : null,
        limit,
      )),
    );

  // A conversation's title (the sidebar, the export): forgetting it renames the conversation with
  // each mention replaced by "…" (ExplorerStore.forget), which the list shows before anything happens.
  const ti = likeAny(m, ['title']);
  out.push(
    ...(await collect(
      sql,
      `SELECT id, title, updated_at FROM conversations WHERE (${ti.sql})${and('project_id IS ?')} ORDER BY updated_at DESC, id LIMIT ? OFFSET ?`,
      [...ti.args, ...arg()],
      (r) =>
        m.matches(str(r.title))
          ? {
              kind: 'title',
              id: str(r.id),
              text: `“${str(r.title)}” becomes “${forgottenTitle(m, str(r.title))}”`,
              occurredAt: num(r.updated_at),
            }
          : null,
      limit,
    )),
  );
  return out;
}

/** The title a conversation keeps once `m`'s words are forgotten: each mention is "…"; nothing left to read, the placeholder. */
export function forgottenTitle(m: ForgetMatcher | null, title: string): string {
  if (m === null) return UNTITLED;
  const t = m.redact(title).replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(t) ? t : UNTITLED;
}
