/**
 * SQL of the memory explorer: overview counts, search across turns, facts, episodes
 * and scenes, episode/scene/profile/foresight edits, and forgetting with tombstones (schema v5).
 * Implements core's ExplorerStore (src/core/explorer/explorer.ts).
 *
 * Invariants: every delete writes its tombstones in the SAME transaction; tombstones hold a hash
 * of the forgotten text, never the text. FTS rows and vectors of deleted messages, facts,
 * episodes and scenes go with the rows (schema triggers). A scene that loses a member has its
 * LLM summary cleared (it may quote what was forgotten) and is re-summarised by the engine.
 */
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type {
  ExplorerStore, FactEdit, FactPage, ForesightEdit, MemCellEdit, FactQuery, ForesightPage, ForesightQuery, FactView, ForgetCandidate, ForgetKind, ForgetResult, JobView, LlmSpend, MemCellDetail, MemCellPage, MemCellQuery,
  MemoryCounts, ConversationMemoryCounts, MemoryKind, MemorySearchFilters, ProfileItemView, SceneVectorInput, SceneView, SearchCandidate,
} from '../core/explorer/explorer';
import type { ProfileHistoryEntry } from '../core/synthesis/knowledge';
import { SCENE_USER_TITLE } from '../core/synthesis/knowledge';
import type { MemCellStatus } from '../core/episodes/episodes';
import type { Role } from '../core/base/types';
import { RecollectError } from '../core/base/errors';
import { tombstoneHash } from '../core/explorer/explorerText';
import { searchKind, candidatesByIds } from './explorerSearch';
import { forgetMatcher } from '../core/explorer/forgetMatch';
import { forgetCandidates, forgottenTitle } from './forgetCandidates';
import { renameConversation } from './conversationRepo';
import { deleteTurnsWhere } from './deletedTurns';
import { itemTexts, redactDeletedItems, type DeletedItem } from './storedCopies';
import {
  emptyEpisodeIds,
  CELL_SUMMARY, FACT_VIEW, FORESIGHT_VIEW, jsonList, marks, num, numOrNull, parseEncoding, str, strOrNull, toCellSummary, toFact, toForesight,
} from './explorerRows';
import { encodeVector } from './vectorRepo';

async function tombstone(tx: Sql, t: { kind: 'fact' | 'foresight' | 'profile' | 'memcell'; itemId: string; text?: string; memcellId?: string | null; range?: { conversationId: string; firstSeq: number; lastSeq: number }; reason?: 'deleted' | 'edited' | 'dismissed' }, now: number): Promise<void> {
  await tx.exec(
    `INSERT INTO tombstones (kind, item_id, text_hash, memcell_id, conversation_id, first_seq, last_seq, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [t.kind, t.itemId, t.text === undefined ? null : tombstoneHash(t.text), t.memcellId ?? null, t.range?.conversationId ?? null, t.range?.firstSeq ?? null,
      t.range?.lastSeq ?? null, t.reason ?? 'deleted', now]);
}

/** After a scene lost members: recount, drop it when empty, else clear an LLM title and summary (they may quote what was forgotten). */
async function sceneLostMembers(tx: Sql, sceneId: string, now: number): Promise<boolean> {
  const [r] = await tx.query('SELECT count(*) AS n, max(end_at) AS last FROM memcells WHERE scene_id = ?', [sceneId]);
  if (num(r?.n) === 0) {
    await tx.exec('DELETE FROM memscenes WHERE id = ?', [sceneId]);
    return false;
  }
  await tx.exec(`UPDATE memscenes SET member_count = ?, last_activity_at = ?, summary_stale = 1,
      summary = CASE WHEN edited_by_user = 1 THEN summary ELSE NULL END, title = CASE WHEN edited_by_user = 1 THEN title ELSE NULL END,
      updated_at = ? WHERE id = ?`, [num(r?.n), num(r?.last), now, sceneId]);
  return true;
}

export class SqlExplorerStore implements ExplorerStore {
  readonly #sql: Sql;
  constructor(sql: Sql) {
    this.#sql = sql;
  }

  // ---- overview ------------------------------------------------------------------------------

  async counts(): Promise<MemoryCounts> {
    const [r] = await this.#sql.query(`SELECT
      (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM messages) AS turns,
      (SELECT count(*) FROM memcells) AS memcells, (SELECT count(*) FROM memcells WHERE status <> 'synthesised') AS raw,
      (SELECT count(*) FROM memscenes) AS scenes, (SELECT count(*) FROM facts) AS facts,
      (SELECT count(*) FROM foresights WHERE status <> 'dismissed') AS foresight,
      (SELECT count(*) FROM profile_items WHERE status IN ('active', 'conflict')) AS profile,
      (SELECT count(*) FROM profile_items WHERE status = 'conflict') AS conflicts,
      (SELECT count(*) FROM tombstones) AS tombstones`);
    return {
      conversations: num(r?.conversations), turns: num(r?.turns), memcells: num(r?.memcells), rawMemcells: num(r?.raw), scenes: num(r?.scenes),
      facts: num(r?.facts), foresight: num(r?.foresight), profileItems: num(r?.profile), profileConflicts: num(r?.conflicts), tombstones: num(r?.tombstones),
    };
  }

  async conversationCounts(conversationId: string): Promise<ConversationMemoryCounts> {
    const [r] = await this.#sql.query(`SELECT
      (SELECT count(*) FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE c.conversation_id = ?1) AS facts,
      (SELECT count(*) FROM foresights s JOIN memcells c ON c.id = s.memcell_id WHERE c.conversation_id = ?1 AND s.status <> 'dismissed') AS foresight`, [conversationId]);
    return { facts: num(r?.facts), foresight: num(r?.foresight) };
  }

  async llmSpend(): Promise<LlmSpend> {
    const rows = await this.#sql.query(`SELECT stage, count(*) AS calls, sum(outcome <> 'ok') AS failed, sum(prompt_tokens) AS p, sum(completion_tokens) AS c
      FROM llm_calls GROUP BY stage ORDER BY stage`);
    const byStage: Record<string, { calls: number; promptTokens: number; completionTokens: number }> = {};
    let calls = 0, failedCalls = 0, promptTokens = 0, completionTokens = 0;
    for (const r of rows) {
      byStage[str(r.stage)] = { calls: num(r.calls), promptTokens: num(r.p), completionTokens: num(r.c) };
      calls += num(r.calls); failedCalls += num(r.failed); promptTokens += num(r.p); completionTokens += num(r.c);
    }
    return { calls, failedCalls, promptTokens, completionTokens, byStage };
  }

  async recentJobs(limit: number): Promise<JobView[]> {
    const rows = await this.#sql.query(`SELECT id, kind, status, attempts, last_error, updated_at, payload FROM jobs
      ORDER BY CASE status WHEN 'running' THEN 0 WHEN 'failed' THEN 1 WHEN 'pending' THEN 2 ELSE 3 END, updated_at DESC, id DESC LIMIT ?`, [limit]);
    return rows.map((r) => {
      let subject: string | null = null;
      try {
        const p = JSON.parse(str(r.payload)) as { memcellId?: unknown; sceneId?: unknown };
        subject = typeof p.memcellId === 'string' ? p.memcellId : typeof p.sceneId === 'string' ? p.sceneId : null;
      } catch { // a payload that is not JSON names no subject
        subject = null;
      }
      return { id: num(r.id), kind: str(r.kind), status: str(r.status) as JobView['status'], attempts: num(r.attempts), lastError: strOrNull(r.last_error), updatedAt: num(r.updated_at), subject };
    });
  }

  // ---- search (explorerSearch.ts) -----------------------------------------------------------

  searchKind(kind: MemoryKind, query: string, filters: MemorySearchFilters, limit: number): Promise<SearchCandidate[]> {
    return searchKind(this.#sql, kind, query, filters, limit);
  }

  candidatesByIds(kind: MemoryKind, ids: readonly string[], filters: MemorySearchFilters): Promise<SearchCandidate[]> {
    return candidatesByIds(this.#sql, kind, ids, filters);
  }

  // ---- MemCells ------------------------------------------------------------------------------

  async listMemCells(o: MemCellQuery): Promise<MemCellPage> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (o.conversationId) { where.push('c.conversation_id = ?'); params.push(o.conversationId); }
    if (o.sceneId) { where.push('c.scene_id = ?'); params.push(o.sceneId); }
    if (o.from !== undefined) { where.push('c.start_at >= ?'); params.push(o.from); }
    if (o.to !== undefined) { where.push('c.start_at <= ?'); params.push(o.to); }
    const w = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const [t] = await this.#sql.query(`SELECT count(*) AS n FROM memcells c${w}`, params);
    const asc = o.order === 'asc';
    const dir = asc ? 'ASC' : 'DESC';
    // Keyset paging on (start_at, id): a page continues after the last row seen, whatever was
    // added or deleted before it, and costs the same at the end of the list as at its start.
    const after = parseCursor(o.cursor);
    const page = [...where, ...(after ? [`(c.start_at ${asc ? '>' : '<'} ? OR (c.start_at = ? AND c.id ${asc ? '>' : '<'} ?))`] : [])];
    const pageParams = [...params, ...(after ? [after.startAt, after.startAt, after.id] : [])];
    const pw = page.length ? ` WHERE ${page.join(' AND ')}` : '';
    const rows = await this.#sql.query(`${CELL_SUMMARY}${pw} ORDER BY c.start_at ${dir}, c.id ${dir} LIMIT ? OFFSET ?`, [...pageParams, o.limit + 1, after ? 0 : o.offset ?? 0]);
    const items = rows.slice(0, o.limit).map((r) => toCellSummary(r));
    const last = items[items.length - 1];
    return { total: num(t?.n), items, nextCursor: rows.length > o.limit && last ? `${last.startAt}:${last.id}` : null };
  }

  async listFacts(q: FactQuery): Promise<FactPage> {
    const where = q.source === 'user' ? ['edited_by_user = 1'] : q.source === 'conversations' ? ['edited_by_user = 0'] : [];
    const [t] = await this.#sql.query(`SELECT count(*) AS n FROM facts${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`);
    // Newest first by the date the list shows (when it happened; when it was written for a fact
    // without one), keyset on (that date, id) like the episode pages. Ordered by when it was
    // written, a 2023 fact synthesised today sat above last week's.
    const shown = 'coalesce(occurred_at, created_at)';
    const after = parseCursor(q.cursor);
    const page = [...where, ...(after ? [`(${shown} < ? OR (${shown} = ? AND id < ?))`] : [])];
    const rows = await this.#sql.query(`${FACT_VIEW.replace('SELECT ', `SELECT ${shown} AS shown_at, `)}${page.length ? ` WHERE ${page.join(' AND ')}` : ''} ORDER BY ${shown} DESC, id DESC LIMIT ?`,
      [...(after ? [after.startAt, after.startAt, after.id] : []), q.limit + 1]);
    const items = rows.slice(0, q.limit);
    const last = items[items.length - 1];
    return { total: num(t?.n), items: items.map(toFact), nextCursor: rows.length > q.limit && last ? `${num(last.shown_at)}:${str(last.id)}` : null };
  }

  async memCell(id: string): Promise<MemCellDetail | null> {
    const [r] = await this.#sql.query(`${CELL_SUMMARY} WHERE c.id = ?`, [id]);
    if (!r) return null;
    const facts = (await this.#sql.query(`${FACT_VIEW} WHERE memcell_id = ? ORDER BY rowid`, [id])).map(toFact);
    const foresight = (await this.#sql.query(`${FORESIGHT_VIEW} WHERE memcell_id = ? ORDER BY coalesce(start_at, end_at), id`, [id])).map(toForesight);
    const turns = await this.#sql.query('SELECT id, seq, role, speaker, content, occurred_at, encoding FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq',
      [r.conversation_id!, r.first_seq!, r.last_seq!]);
    return {
      ...toCellSummary(r, Number.MAX_SAFE_INTEGER), facts, foresight,
      turns: turns.map((t) => ({ id: str(t.id), seq: num(t.seq), role: str(t.role) as Role, speaker: str(t.speaker), content: str(t.content), occurredAt: num(t.occurred_at), encoding: parseEncoding(t.encoding) })),
    };
  }

  async editMemCell(id: string, patch: MemCellEdit, now: number): Promise<void> {
    await this.#sql.exec(`UPDATE memcells SET title = coalesce(?, title), narrative = coalesce(?, narrative), edited_by_user = 1, updated_at = ? WHERE id = ?`,
      [patch.title?.trim() ?? null, patch.narrative?.trim() ?? null, now, id]);
    if (this.#sql.changes() === 0) throw new RecollectError('NOT_FOUND', 'This episode no longer exists.');
  }

  editFact(id: string, patch: FactEdit, now: number): Promise<FactView> {
    return this.#sql.transaction(async (tx) => {
      const [old] = await tx.query(`${FACT_VIEW} WHERE id = ?`, [id]);
      if (!old) throw new RecollectError('NOT_FOUND', 'This fact no longer exists.');
      const content = patch.content?.trim();
      if (patch.content !== undefined && !content) throw new RecollectError('INVALID_INPUT', 'A fact cannot be empty; delete it instead.');
      if (content && content !== str(old.content)) {
        // The pipeline must not write the old wording back next to the correction.
        await tombstone(tx, { kind: 'fact', itemId: id, text: str(old.content), memcellId: str(old.memcell_id), reason: 'edited' }, now);
        await tx.exec("DELETE FROM vectors WHERE item_kind = 'fact' AND item_id = ?", [id]);
      }
      await tx.exec(`UPDATE facts SET content = ?, valid_from = ?, valid_to = ?, edited_by_user = 1, updated_at = ? WHERE id = ?`, [
        content ?? str(old.content),
        patch.validFrom === undefined ? numOrNull(old.valid_from) : patch.validFrom,
        patch.validTo === undefined ? numOrNull(old.valid_to) : patch.validTo, now, id]);
      const [row] = await tx.query(`${FACT_VIEW} WHERE id = ?`, [id]);
      return toFact(row!);
    });
  }

  deleteFact(id: string, now: number): Promise<boolean> {
    return this.#deleting((tx, gone) => this.#deleteFactTx(tx, id, now, gone));
  }

  /**
   * A transaction of deletions: `fn` adds what it removed to `gone`, which is then redacted from
   * stored answers once (storedCopies.ts).
   */
  #deleting<T>(fn: (tx: Sql, gone: DeletedItem[]) => Promise<T>): Promise<T> {
    return this.#sql.transaction(async (tx) => {
      const gone: DeletedItem[] = [];
      const result = await fn(tx, gone);
      await redactDeletedItems(tx, gone);
      return result;
    });
  }

  /** The *Tx deletions add what they removed to `gone`; their transaction (#deleting) redacts it from stored answers once. */
  async #deleteFactTx(tx: Sql, id: string, now: number, gone: DeletedItem[]): Promise<boolean> {
    const [f] = await tx.query('SELECT content, memcell_id FROM facts WHERE id = ?', [id]);
    if (!f) return false;
    await tombstone(tx, { kind: 'fact', itemId: id, text: str(f.content), memcellId: str(f.memcell_id) }, now);
    await tx.exec('DELETE FROM facts WHERE id = ?', [id]);
    gone.push({ kind: 'fact', id, texts: itemTexts.fact(str(f.content)) });
    tx.contentRemoved?.();
    return true;
  }

  /**
   * Forgetting an episode that still has facts or plans the user did not list: only its own text
   * goes (title, narrative and their vector), and it is marked edited so re-synthesis does not
   * write a narrative again. Returns false when nothing else hangs on it (delete it whole).
   */
  async #forgetNarrativeTx(tx: Sql, id: string, now: number, gone: DeletedItem[]): Promise<boolean> {
    const [left] = await tx.query('SELECT (SELECT count(*) FROM facts WHERE memcell_id = ?1) + (SELECT count(*) FROM foresights WHERE memcell_id = ?1) AS n', [id]);
    if (!left || num(left.n) === 0) return false;
    const [cell] = await tx.query('SELECT title, narrative FROM memcells WHERE id = ?', [id]);
    gone.push({ kind: 'episode', id, texts: itemTexts.episode(strOrNull(cell?.title), strOrNull(cell?.narrative)) });
    await tx.exec('UPDATE memcells SET title = NULL, narrative = NULL, edited_by_user = 1, updated_at = ? WHERE id = ?', [now, id]);
    await tx.exec("DELETE FROM vectors WHERE item_kind = 'memcell' AND item_id = ?", [id]);
    tx.contentRemoved?.();
    return true;
  }

  emptyEpisodes(conversationId: string): Promise<string[]> { return emptyEpisodeIds(this.#sql, conversationId); }
  deleteMemCell(id: string, options: { turns: boolean }, now: number): Promise<{ sceneId: string | null; deletedTurnIds: string[] } | null> {
    return this.#deleting((tx, gone) => this.#deleteCellTx(tx, id, options.turns, now, gone));
  }

  async #deleteCellTx(tx: Sql, id: string, turns: boolean, now: number, gone: DeletedItem[]): Promise<{ sceneId: string | null; deletedTurnIds: string[] } | null> {
    const [c] = await tx.query('SELECT id, conversation_id, first_seq, last_seq, scene_id, title, narrative FROM memcells WHERE id = ?', [id]);
    if (!c) return null;
    tx.contentRemoved?.();
    gone.push({ kind: 'episode', id, texts: itemTexts.episode(strOrNull(c.title), strOrNull(c.narrative)) });
    for (const f of await tx.query('SELECT id, content FROM facts WHERE memcell_id = ?', [id])) {
      await tombstone(tx, { kind: 'fact', itemId: str(f.id), text: str(f.content), memcellId: id }, now);
      gone.push({ kind: 'fact', id: str(f.id), texts: itemTexts.fact(str(f.content)) });
    }
    for (const f of await tx.query('SELECT id, content FROM foresights WHERE memcell_id = ?', [id])) {
      await tombstone(tx, { kind: 'foresight', itemId: str(f.id), text: str(f.content), memcellId: id }, now);
      gone.push({ kind: 'foresight', id: str(f.id), texts: itemTexts.foresight(str(f.content)) });
    }
    const range = { conversationId: str(c.conversation_id), firstSeq: num(c.first_seq), lastSeq: num(c.last_seq) };
    let deletedTurnIds: string[] = [];
    if (turns) {
      deletedTurnIds = await deleteTurnsWhere(tx, 'conversation_id = ? AND seq BETWEEN ? AND ?', [range.conversationId, range.firstSeq, range.lastSeq]);
    } else {
      // The turns stay (verbatim chat history), but their range must not become an episode again.
      await tombstone(tx, { kind: 'memcell', itemId: id, memcellId: id, range }, now);
    }
    await tx.exec("DELETE FROM jobs WHERE dedupe_key = ? AND status <> 'running'", [`memcell:${id}`]);
    await tx.exec('DELETE FROM facts WHERE memcell_id = ?', [id]);
    await tx.exec('DELETE FROM foresights WHERE memcell_id = ?', [id]);
    await tx.exec('DELETE FROM memcells WHERE id = ?', [id]);
    // Evidence links to the episode go too; the items themselves stay (they rest on scene summaries).
    for (const p of await tx.query('SELECT id, evidence FROM profile_items WHERE evidence LIKE ?', [`%${id}%`])) {
      await tx.exec('UPDATE profile_items SET evidence = ? WHERE id = ?', [JSON.stringify(jsonList(p.evidence).filter((e) => e !== id)), str(p.id)]);
    }
    const sceneId = strOrNull(c.scene_id);
    const sceneKept = sceneId ? await sceneLostMembers(tx, sceneId, now) : false;
    return { sceneId: sceneKept ? sceneId : null, deletedTurnIds };
  }

  // ---- scenes --------------------------------------------------------------------------------

  async scenes(): Promise<SceneView[]> {
    const scenes = await this.#sql.query('SELECT id, title, summary, heat, member_count, last_activity_at, edited_by_user FROM memscenes ORDER BY heat DESC, last_activity_at DESC, id');
    const members = await this.#sql.query('SELECT id, scene_id, title, start_at, end_at, status FROM memcells WHERE scene_id IS NOT NULL ORDER BY start_at, id');
    const byScene = new Map<string, SceneView['members'][number][]>();
    for (const m of members) {
      const list = byScene.get(str(m.scene_id)) ?? [];
      list.push({ id: str(m.id), title: strOrNull(m.title), startAt: num(m.start_at), endAt: num(m.end_at), status: str(m.status) as MemCellStatus });
      byScene.set(str(m.scene_id), list);
    }
    return scenes.map((s) => {
      const list = byScene.get(str(s.id)) ?? [];
      return { id: str(s.id), title: strOrNull(s.title), summary: strOrNull(s.summary), heat: num(s.heat), memberCount: list.length,
        lastActivityAt: numOrNull(s.last_activity_at), editedByUser: (num(s.edited_by_user) & SCENE_USER_TITLE) !== 0, members: list };
    });
  }

  async sceneVectorInputs(limit: number): Promise<{ inputs: SceneVectorInput[]; episodes: number }> {
    // The newest `limit` (SCENE_MAP_BOUND, which says why a bound is safe): the map says when it is hit.
    const [t] = await this.#sql.query('SELECT count(*) AS n FROM memcells');
    const rows = await this.#sql.query('SELECT id, scene_id, title, start_at FROM memcells ORDER BY start_at DESC, id DESC LIMIT ?', [limit]);
    return { episodes: num(t?.n), inputs: rows.map((r) => ({ memcellId: str(r.id), sceneId: strOrNull(r.scene_id), title: strOrNull(r.title), startAt: num(r.start_at) })) };
  }

  async renameScene(id: string, title: string, now: number): Promise<void> {
    const t = title.trim();
    if (!t) throw new RecollectError('INVALID_INPUT', 'A scene needs a name.');
    await this.#sql.exec('UPDATE memscenes SET title = ?, edited_by_user = edited_by_user | ?, updated_at = ? WHERE id = ?', [t, SCENE_USER_TITLE, now, id]);
    if (this.#sql.changes() === 0) throw new RecollectError('NOT_FOUND', 'This scene no longer exists.');
  }

  mergeScenes(targetId: string, sourceIds: readonly string[], centroid: Float32Array | null, now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const sources = sourceIds.filter((s) => s !== targetId);
      if (sources.length === 0) throw new RecollectError('INVALID_INPUT', 'Pick at least one other scene to merge.');
      const [t] = await tx.query('SELECT id FROM memscenes WHERE id = ?', [targetId]);
      if (!t) throw new RecollectError('NOT_FOUND', 'The scene to merge into no longer exists.');
      await tx.exec(`UPDATE memcells SET scene_id = ?, updated_at = ? WHERE scene_id IN (${marks(sources.length)})`, [targetId, now, ...sources]);
      await tx.exec(`DELETE FROM memscenes WHERE id IN (${marks(sources.length)})`, sources);
      await sceneLostMembers(tx, targetId, now); // recount and refresh the summary
      if (centroid) await tx.exec('UPDATE memscenes SET centroid = ? WHERE id = ?', [encodeVector(centroid), targetId]);
    });
  }

  splitScene(sceneId: string, memcellIds: readonly string[], newId: string, title: string | null, centroids: { kept: Float32Array | null; split: Float32Array | null }, now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const [s] = await tx.query('SELECT centroid_model FROM memscenes WHERE id = ?', [sceneId]);
      if (!s) throw new RecollectError('NOT_FOUND', 'This scene no longer exists.');
      if (memcellIds.length === 0) throw new RecollectError('INVALID_INPUT', 'Pick the episodes to move into the new scene.');
      const moving = await tx.query(`SELECT id, end_at FROM memcells WHERE scene_id = ? AND id IN (${marks(memcellIds.length)})`, [sceneId, ...memcellIds]);
      if (moving.length === 0) throw new RecollectError('INVALID_INPUT', 'None of these episodes belongs to the scene.');
      const t = title?.trim() || null;
      await tx.exec(`INSERT INTO memscenes (id, title, centroid, centroid_model, member_count, last_activity_at, summary_stale, edited_by_user, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`, [newId, t, centroids.split ? encodeVector(centroids.split) : null, s.centroid_model ?? null, moving.length,
        Math.max(...moving.map((m) => num(m.end_at))), t ? 1 : 0, now, now]);
      await tx.exec(`UPDATE memcells SET scene_id = ?, updated_at = ? WHERE id IN (${marks(moving.length)})`, [newId, now, ...moving.map((m) => str(m.id))]);
      const kept = await sceneLostMembers(tx, sceneId, now);
      if (kept && centroids.kept) await tx.exec('UPDATE memscenes SET centroid = ? WHERE id = ?', [encodeVector(centroids.kept), sceneId]);
    });
  }

  // ---- profile -------------------------------------------------------------------------------

  async profile(): Promise<ProfileItemView[]> {
    const items = await this.#sql.query(`SELECT id, kind, key, value, confidence, evidence, status, edited_by_user, created_at, updated_at
      FROM profile_items WHERE status IN ('active', 'conflict') ORDER BY status = 'conflict' DESC, kind, key, id`);
    const history = await this.#sql.query(`SELECT h.profile_item_id, h.op, h.value, h.confidence, h.evidence, h.reason, h.changed_at FROM profile_item_history h
      JOIN profile_items p ON p.id = h.profile_item_id WHERE p.status IN ('active', 'conflict') ORDER BY h.changed_at, h.id`);
    const byItem = new Map<string, ProfileHistoryEntry[]>();
    for (const h of history) {
      const list = byItem.get(str(h.profile_item_id)) ?? [];
      list.push({ profileItemId: str(h.profile_item_id), op: str(h.op) as ProfileHistoryEntry['op'], value: strOrNull(h.value), confidence: numOrNull(h.confidence),
        evidence: jsonList(h.evidence), reason: strOrNull(h.reason), changedAt: num(h.changed_at) });
      byItem.set(str(h.profile_item_id), list);
    }
    return items.map((r) => {
      const h = byItem.get(str(r.id)) ?? [];
      const lastConflict = [...h].reverse().find((e) => e.op === 'conflict');
      const status = str(r.status) as ProfileItemView['status'];
      return {
        id: str(r.id), kind: str(r.kind) as ProfileItemView['kind'], key: str(r.key), value: str(r.value), confidence: num(r.confidence), evidence: jsonList(r.evidence),
        status, editedByUser: num(r.edited_by_user) === 1, pinned: num(r.edited_by_user) === 1, createdAt: num(r.created_at), updatedAt: num(r.updated_at),
        history: h, proposedValue: status === 'conflict' ? (lastConflict?.value ?? null) : null,
      };
    });
  }

  async #history(tx: Sql, id: string, op: ProfileHistoryEntry['op'], value: string | null, reason: string, now: number): Promise<void> {
    await tx.exec("INSERT INTO profile_item_history (profile_item_id, op, value, confidence, evidence, reason, changed_at) VALUES (?, ?, ?, NULL, '[]', ?, ?)",
      [id, op, value, reason, now]);
  }

  async #profileRow(tx: Sql, id: string): Promise<SqlRow> {
    const [r] = await tx.query("SELECT id, key, value, status FROM profile_items WHERE id = ? AND status IN ('active', 'conflict')", [id]);
    if (!r) throw new RecollectError('NOT_FOUND', 'This profile item no longer exists.');
    return r;
  }

  editProfileItem(id: string, value: string, now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const v = value.trim();
      if (!v) throw new RecollectError('INVALID_INPUT', 'A profile item needs a value; delete it instead.');
      const r = await this.#profileRow(tx, id);
      // An edit is the user's answer: it pins the item and settles an open conflict.
      await tx.exec("UPDATE profile_items SET value = ?, edited_by_user = 1, status = 'active', confidence = 1, updated_at = ? WHERE id = ?", [v, now, id]);
      await this.#history(tx, id, r.status === 'conflict' ? 'resolve' : 'update', v, 'edited by the user', now);
    });
  }

  async pinProfileItem(id: string, pinned: boolean, now: number): Promise<void> {
    await this.#sql.exec("UPDATE profile_items SET edited_by_user = ?, updated_at = ? WHERE id = ? AND status IN ('active', 'conflict')", [pinned ? 1 : 0, now, id]);
    if (this.#sql.changes() === 0) throw new RecollectError('NOT_FOUND', 'This profile item no longer exists.');
  }

  resolveProfileConflict(id: string, choice: 'keep' | 'accept', now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const r = await this.#profileRow(tx, id);
      if (r.status !== 'conflict') throw new RecollectError('INVALID_INPUT', 'This profile item has no conflict to resolve.');
      const [c] = await tx.query("SELECT value FROM profile_item_history WHERE profile_item_id = ? AND op = 'conflict' ORDER BY changed_at DESC, id DESC LIMIT 1", [id]);
      if (choice === 'keep') {
        await tx.exec("UPDATE profile_items SET status = 'active', updated_at = ? WHERE id = ?", [now, id]);
        await this.#history(tx, id, 'resolve', str(r.value), 'the user kept the current value', now);
      } else if (c && c.value !== null) {
        // Accepting the pipeline's value also unpins, so later evidence can update it.
        await tx.exec("UPDATE profile_items SET value = ?, status = 'active', edited_by_user = 0, updated_at = ? WHERE id = ?", [str(c.value), now, id]);
        await this.#history(tx, id, 'resolve', str(c.value), 'the user accepted the proposed value', now);
      } else {
        await tx.exec("UPDATE profile_items SET status = 'deleted', updated_at = ? WHERE id = ?", [now, id]);
        await this.#history(tx, id, 'resolve', null, 'the user accepted the proposed deletion', now);
      }
    });
  }

  deleteProfileItem(id: string, now: number): Promise<void> {
    return this.#deleting(async (tx, gone) => {
      if (!(await this.#deleteProfileTx(tx, id, now, gone))) throw new RecollectError('NOT_FOUND', 'This profile item no longer exists.');
    });
  }

  async #deleteProfileTx(tx: Sql, id: string, now: number, gone: DeletedItem[]): Promise<boolean> {
    const [r] = await tx.query('SELECT key, value FROM profile_items WHERE id = ?', [id]);
    if (!r) return false;
    // Every value it had may have been sent: the history keeps the earlier ones.
    const earlier = await tx.query('SELECT value FROM profile_item_history WHERE profile_item_id = ? AND value IS NOT NULL', [id]);
    gone.push({ kind: 'profile', id, texts: itemTexts.profile(str(r.key), [str(r.value), ...earlier.map((h) => str(h.value))]) });
    // Forgotten for good: the row and its history go; the tombstone blocks the key from coming back.
    await tombstone(tx, { kind: 'profile', itemId: id, text: str(r.key) }, now);
    await tx.exec('DELETE FROM profile_items WHERE id = ?', [id]);
    tx.contentRemoved?.();
    return true;
  }

  // ---- foresight -----------------------------------------------------------------------------

  async listForesight(q: ForesightQuery): Promise<ForesightPage> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (!q.dismissed) where.push("status <> 'dismissed'");
    if (q.activeAt !== undefined) { where.push("status = 'active' AND coalesce(end_at, start_at, ?) >= ?"); params.push(q.activeAt, q.activeAt); }
    if (q.activeWithin) {
      where.push("status = 'active' AND coalesce(start_at, end_at) IS NOT NULL AND coalesce(end_at, start_at) >= ? AND coalesce(start_at, end_at) <= ?");
      params.push(q.activeWithin.from, q.activeWithin.to);
    }
    const [t] = await this.#sql.query(`SELECT count(*) AS n FROM foresights${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
    // Keyset on (the item's time, id) in time order, like the episode and fact pages.
    const at = 'coalesce(start_at, end_at, created_at)';
    const after = parseCursor(q.cursor);
    const page = [...where, ...(after ? [`(${at} > ? OR (${at} = ? AND id > ?))`] : [])];
    const rows = await this.#sql.query(`${FORESIGHT_VIEW.replace('SELECT ', `SELECT ${at} AS at, `)}${page.length ? ` WHERE ${page.join(' AND ')}` : ''} ORDER BY at, id LIMIT ?`,
      [...params, ...(after ? [after.startAt, after.startAt, after.id] : []), q.limit + 1]);
    const items = rows.slice(0, q.limit);
    const last = items[items.length - 1];
    return { total: num(t?.n), items: items.map(toForesight), nextCursor: rows.length > q.limit && last ? `${num(last.at)}:${str(last.id)}` : null };
  }

  editForesight(id: string, patch: ForesightEdit, now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const [r] = await tx.query('SELECT content, memcell_id, source, status FROM foresights WHERE id = ?', [id]);
      if (!r) throw new RecollectError('NOT_FOUND', 'This foresight item no longer exists.');
      if (patch.startAt !== null && patch.endAt !== null && patch.endAt < patch.startAt) throw new RecollectError('INVALID_INPUT', 'The end of the validity is before its start.');
      const content = patch.content?.trim() || str(r.content);
      // Re-timed by the user: source 'user' survives re-synthesis, and the tombstone keeps the
      // model's original from being written again beside it.
      if (str(r.source) !== 'user') await tombstone(tx, { kind: 'foresight', itemId: id, text: str(r.content), memcellId: strOrNull(r.memcell_id), reason: 'edited' }, now);
      const status = r.status === 'dismissed' ? 'dismissed' : patch.endAt !== null && patch.endAt < now ? 'expired' : 'active';
      await tx.exec("UPDATE foresights SET content = ?, start_at = ?, end_at = ?, source = 'user', status = ?, updated_at = ? WHERE id = ?",
        [content, patch.startAt, patch.endAt, status, now, id]);
    });
  }

  dismissForesight(id: string, now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const [r] = await tx.query('SELECT content, memcell_id FROM foresights WHERE id = ?', [id]);
      if (!r) throw new RecollectError('NOT_FOUND', 'This foresight item no longer exists.');
      await tombstone(tx, { kind: 'foresight', itemId: id, text: str(r.content), memcellId: strOrNull(r.memcell_id), reason: 'dismissed' }, now);
      await tx.exec("UPDATE foresights SET status = 'dismissed', updated_at = ? WHERE id = ?", [now, id]);
    });
  }

  // ---- forget --------------------------------------------------------------------------------

  forgetCandidates(query: string, limit: number): Promise<ForgetCandidate[]> {
    return forgetCandidates(this.#sql, query, limit);
  }

  forget(items: readonly { kind: ForgetKind; id: string }[], now: number, about?: string): Promise<ForgetResult & { sceneIds: string[]; deletedTurnIds: string[] }> {
    const matcher = about === undefined ? null : forgetMatcher(about);
    return this.#deleting(async (tx, gone) => {
      const deleted: Record<ForgetKind, number> = { fact: 0, episode: 0, turn: 0, foresight: 0, profile: 0, scene: 0, title: 0 };
      const sceneIds = new Set<string>();
      const deletedTurnIds: string[] = [];
      // Exactly the listed items, each counted once: items that others would take along (an
      // episode's facts and plans, a message's date plan) go first under their own kind, and an
      // episode or message then takes nothing that was not listed.
      const order: Record<ForgetKind, number> = { fact: 0, foresight: 0, profile: 0, scene: 0, title: 0, episode: 1, turn: 2 };
      const sorted = [...new Map(items.map((i) => [`${i.kind}:${i.id}`, i])).values()].sort((a, b) => order[a.kind] - order[b.kind]);
      for (const { kind, id } of sorted) {
        switch (kind) {
          case 'fact':
            if (await this.#deleteFactTx(tx, id, now, gone)) deleted.fact++;
            break;
          case 'episode': {
            if (await this.#forgetNarrativeTx(tx, id, now, gone)) {
              deleted.episode++;
              break;
            }
            const r = await this.#deleteCellTx(tx, id, false, now, gone);
            if (r) {
              deleted.episode++;
              if (r.sceneId) sceneIds.add(r.sceneId);
            }
            break;
          }
          case 'turn': {
            // A plan read from this message that was not listed stays (it no longer points at it).
            await tx.exec("UPDATE foresights SET source_message_id = NULL WHERE source_message_id = ? AND source = 'date-parser'", [id]);
            const ids = await deleteTurnsWhere(tx, 'id = ?', [id], { keepDerived: true });
            deleted.turn += ids.length;
            deletedTurnIds.push(...ids);
            break;
          }
          case 'foresight': {
            const [r] = await tx.query('SELECT content, memcell_id FROM foresights WHERE id = ?', [id]);
            if (!r) break;
            await tombstone(tx, { kind: 'foresight', itemId: id, text: str(r.content), memcellId: strOrNull(r.memcell_id) }, now);
            await tx.exec('DELETE FROM foresights WHERE id = ?', [id]);
            gone.push({ kind: 'foresight', id, texts: itemTexts.foresight(str(r.content)) });
            tx.contentRemoved?.();
            deleted.foresight++;
            break;
          }
          case 'profile':
            if (await this.#deleteProfileTx(tx, id, now, gone)) deleted.profile++;
            break;
          case 'scene': {
            // A scene is a grouping; forgetting it clears the text the model wrote about it and
            // marks the summary forgotten (its tombstone), so no later synthesis writes one again.
            await tx.exec('UPDATE memscenes SET title = NULL, summary = NULL, summary_stale = 0, edited_by_user = 0, summary_forgotten = 1, updated_at = ? WHERE id = ?', [now, id]);
            const found = tx.changes() > 0; // counted by the scene row, not by whether it had a vector
            await tx.exec("DELETE FROM vectors WHERE item_kind = 'memscene' AND item_id = ?", [id]);
            if (found) {
              tx.contentRemoved?.();
              deleted.scene++;
              sceneIds.add(id);
            }
            break;
          }
          case 'title': {
            // Renamed as the user's own title, so neither the first message nor the endpoint
            // names the conversation again (either could bring the word back).
            const [r] = await tx.query('SELECT title FROM conversations WHERE id = ?', [id]);
            if (!r) break;
            await renameConversation(tx, id, forgottenTitle(matcher, str(r.title)), now, 'user');
            tx.contentRemoved?.(); // the old title stays in the write-ahead log until it is cleared
            deleted.title++;
            break;
          }
        }
      }
      return { deleted, sceneIds: [...sceneIds], deletedTurnIds };
    });
  }
}

/** A cursor is "<start_at>:<id>" of the last episode of the previous page. */
function parseCursor(cursor: string | null | undefined): { startAt: number; id: string } | null {
  if (!cursor) return null;
  const i = cursor.indexOf(':');
  const startAt = Number(cursor.slice(0, i));
  return i > 0 && Number.isFinite(startAt) ? { startAt, id: cursor.slice(i + 1) } : null;
}
