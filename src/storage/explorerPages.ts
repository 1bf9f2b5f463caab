/**
 * What the memory explorer reads (SQL behind core's ExplorerStore): overview counts, the LLM spend
 * and job view, the pages of episodes, facts and plans (keyset paging), one episode with its turns,
 * the scenes, the profile with its history. Nothing here writes.
 */
import type { Sql, SqlValue } from '../core/base/sql';
import type {
  FactPage,
  FactQuery,
  ForesightPage,
  ForesightQuery,
  JobView,
  LlmSpend,
  MemCellDetail,
  MemCellPage,
  MemCellQuery,
  MemoryCounts,
  ConversationMemoryCounts,
  ProfileItemView,
  SceneVectorInput,
  SceneView,
} from '../core/explorer/explorer';
import type { ProfileHistoryEntry } from '../core/synthesis/knowledge';
import { SCENE_USER_TITLE } from '../core/synthesis/knowledge';
import type { MemCellStatus } from '../core/episodes/episodes';
import type { Role } from '../core/base/types';
import {
  CELL_SUMMARY,
  FACT_VIEW,
  FORESIGHT_VIEW,
  jsonList,
  num,
  numOrNull,
  parseEncoding,
  str,
  strOrNull,
  toCellSummary,
  toFact,
  toForesight,
} from './explorerRows';
import { PLAN_IN_PROJECT } from './projectScope';

export async function counts(sql: Sql): Promise<MemoryCounts> {
  const [r] = await sql.query(`SELECT
    (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM messages) AS turns,
    (SELECT count(*) FROM memcells) AS memcells, (SELECT count(*) FROM memcells WHERE status <> 'synthesised') AS raw,
    (SELECT count(*) FROM memscenes) AS scenes, (SELECT count(*) FROM facts) AS facts,
    (SELECT count(*) FROM foresights WHERE status <> 'dismissed') AS foresight,
    (SELECT count(*) FROM profile_items WHERE status IN ('active', 'conflict')) AS profile,
    (SELECT count(*) FROM profile_items WHERE status = 'conflict') AS conflicts,
    (SELECT count(*) FROM tombstones) AS tombstones`);
  return {
    conversations: num(r?.conversations),
    turns: num(r?.turns),
    memcells: num(r?.memcells),
    rawMemcells: num(r?.raw),
    scenes: num(r?.scenes),
    facts: num(r?.facts),
    foresight: num(r?.foresight),
    profileItems: num(r?.profile),
    profileConflicts: num(r?.conflicts),
    tombstones: num(r?.tombstones),
  };
}

export async function conversationCounts(sql: Sql, conversationId: string): Promise<ConversationMemoryCounts> {
  const [r] = await sql.query(
    `SELECT
    (SELECT count(*) FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE c.conversation_id = ?1) AS facts,
    (SELECT count(*) FROM foresights s JOIN memcells c ON c.id = s.memcell_id WHERE c.conversation_id = ?1 AND s.status <> 'dismissed') AS foresight`,
    [conversationId],
  );
  return { facts: num(r?.facts), foresight: num(r?.foresight) };
}

export async function llmSpend(sql: Sql): Promise<LlmSpend> {
  const rows =
    await sql.query(`SELECT stage, count(*) AS calls, sum(outcome <> 'ok') AS failed, sum(prompt_tokens) AS p, sum(completion_tokens) AS c
    FROM llm_calls GROUP BY stage ORDER BY stage`);
  const byStage: Record<string, { calls: number; promptTokens: number; completionTokens: number }> = {};
  let calls = 0,
    failedCalls = 0,
    promptTokens = 0,
    completionTokens = 0;
  for (const r of rows) {
    byStage[str(r.stage)] = { calls: num(r.calls), promptTokens: num(r.p), completionTokens: num(r.c) };
    calls += num(r.calls);
    failedCalls += num(r.failed);
    promptTokens += num(r.p);
    completionTokens += num(r.c);
  }
  return { calls, failedCalls, promptTokens, completionTokens, byStage };
}

export async function recentJobs(sql: Sql, limit: number): Promise<JobView[]> {
  const rows = await sql.query(
    `SELECT id, kind, status, attempts, last_error, updated_at, payload FROM jobs
    ORDER BY CASE status WHEN 'running' THEN 0 WHEN 'failed' THEN 1 WHEN 'pending' THEN 2 ELSE 3 END, updated_at DESC, id DESC LIMIT ?`,
    [limit],
  );
  return rows.map((r) => {
    let subject: string | null = null;
    try {
      const p = JSON.parse(str(r.payload)) as { memcellId?: unknown; sceneId?: unknown };
      subject = typeof p.memcellId === 'string' ? p.memcellId : typeof p.sceneId === 'string' ? p.sceneId : null;
    } catch {
      // a payload that is not JSON names no subject
      subject = null;
    }
    return {
      id: num(r.id),
      kind: str(r.kind),
      status: str(r.status) as JobView['status'],
      attempts: num(r.attempts),
      lastError: strOrNull(r.last_error),
      updatedAt: num(r.updated_at),
      subject,
    };
  });
}

export async function listMemCells(sql: Sql, o: MemCellQuery): Promise<MemCellPage> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (o.conversationId) {
    where.push('c.conversation_id = ?');
    params.push(o.conversationId);
  }
  if (o.project !== undefined) {
    where.push('c.conversation_id IN (SELECT id FROM conversations WHERE project_id IS ?)');
    params.push(o.project);
  }
  if (o.sceneId) {
    where.push('c.scene_id = ?');
    params.push(o.sceneId);
  }
  if (o.from !== undefined) {
    where.push('c.start_at >= ?');
    params.push(o.from);
  }
  if (o.to !== undefined) {
    where.push('c.start_at <= ?');
    params.push(o.to);
  }
  const w = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  const [t] = await sql.query(`SELECT count(*) AS n FROM memcells c${w}`, params);
  const asc = o.order === 'asc';
  const dir = asc ? 'ASC' : 'DESC';
  // Keyset paging on (start_at, id): a page continues after the last row seen, whatever was
  // added or deleted before it, and costs the same at the end of the list as at its start.
  const after = parseCursor(o.cursor);
  const page = [...where, ...(after ? [`(c.start_at ${asc ? '>' : '<'} ? OR (c.start_at = ? AND c.id ${asc ? '>' : '<'} ?))`] : [])];
  const pageParams = [...params, ...(after ? [after.startAt, after.startAt, after.id] : [])];
  const pw = page.length ? ` WHERE ${page.join(' AND ')}` : '';
  const rows = await sql.query(`${CELL_SUMMARY}${pw} ORDER BY c.start_at ${dir}, c.id ${dir} LIMIT ? OFFSET ?`, [
    ...pageParams,
    o.limit + 1,
    after ? 0 : (o.offset ?? 0),
  ]);
  const items = rows.slice(0, o.limit).map((r) => toCellSummary(r));
  const last = items[items.length - 1];
  return { total: num(t?.n), items, nextCursor: rows.length > o.limit && last ? `${last.startAt}:${last.id}` : null };
}

export async function listFacts(sql: Sql, q: FactQuery): Promise<FactPage> {
  const where = q.source === 'user' ? ['edited_by_user = 1'] : q.source === 'conversations' ? ['edited_by_user = 0'] : [];
  const params: SqlValue[] = [];
  if (q.project !== undefined) {
    where.push(
      'memcell_id IN (SELECT mc.id FROM memcells mc WHERE mc.conversation_id IN (SELECT id FROM conversations WHERE project_id IS ?))',
    );
    params.push(q.project);
  }
  const [t] = await sql.query(`SELECT count(*) AS n FROM facts${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
  // Newest first by the date the list shows (when it happened; when it was written for a fact
  // without one), keyset on (that date, id) like the episode pages. Ordered by when it was
  // written, a 2023 fact synthesised today sat above last week's.
  const shown = 'coalesce(occurred_at, created_at)';
  const after = parseCursor(q.cursor);
  const page = [...where, ...(after ? [`(${shown} < ? OR (${shown} = ? AND id < ?))`] : [])];
  const rows = await sql.query(
    `${FACT_VIEW.replace('SELECT ', `SELECT ${shown} AS shown_at, `)}${page.length ? ` WHERE ${page.join(' AND ')}` : ''} ORDER BY ${shown} DESC, id DESC LIMIT ?`,
    [...params, ...(after ? [after.startAt, after.startAt, after.id] : []), q.limit + 1],
  );
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  return {
    total: num(t?.n),
    items: items.map(toFact),
    nextCursor: rows.length > q.limit && last ? `${num(last.shown_at)}:${str(last.id)}` : null,
  };
}

export async function memCell(sql: Sql, id: string): Promise<MemCellDetail | null> {
  const [r] = await sql.query(`${CELL_SUMMARY} WHERE c.id = ?`, [id]);
  if (!r) return null;
  const facts = (await sql.query(`${FACT_VIEW} WHERE memcell_id = ? ORDER BY rowid`, [id])).map(toFact);
  const foresight = (await sql.query(`${FORESIGHT_VIEW} WHERE memcell_id = ? ORDER BY coalesce(start_at, end_at), id`, [id])).map(
    toForesight,
  );
  const turns = await sql.query(
    'SELECT id, seq, role, speaker, content, occurred_at, encoding FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq',
    [r.conversation_id!, r.first_seq!, r.last_seq!],
  );
  return {
    ...toCellSummary(r, Number.MAX_SAFE_INTEGER),
    facts,
    foresight,
    turns: turns.map((t) => ({
      id: str(t.id),
      seq: num(t.seq),
      role: str(t.role) as Role,
      speaker: str(t.speaker),
      content: str(t.content),
      occurredAt: num(t.occurred_at),
      encoding: parseEncoding(t.encoding),
    })),
  };
}

export async function scenes(sql: Sql): Promise<SceneView[]> {
  const scenes = await sql.query(
    'SELECT id, title, summary, heat, member_count, last_activity_at, edited_by_user FROM memscenes ORDER BY heat DESC, last_activity_at DESC, id',
  );
  const members = await sql.query(
    'SELECT id, scene_id, title, start_at, end_at, status FROM memcells WHERE scene_id IS NOT NULL ORDER BY start_at, id',
  );
  const byScene = new Map<string, SceneView['members'][number][]>();
  for (const m of members) {
    const list = byScene.get(str(m.scene_id)) ?? [];
    list.push({
      id: str(m.id),
      title: strOrNull(m.title),
      startAt: num(m.start_at),
      endAt: num(m.end_at),
      status: str(m.status) as MemCellStatus,
    });
    byScene.set(str(m.scene_id), list);
  }
  return scenes.map((s) => {
    const list = byScene.get(str(s.id)) ?? [];
    return {
      id: str(s.id),
      title: strOrNull(s.title),
      summary: strOrNull(s.summary),
      heat: num(s.heat),
      memberCount: list.length,
      lastActivityAt: numOrNull(s.last_activity_at),
      editedByUser: (num(s.edited_by_user) & SCENE_USER_TITLE) !== 0,
      members: list,
    };
  });
}

export async function sceneVectorInputs(sql: Sql, limit: number): Promise<{ inputs: SceneVectorInput[]; episodes: number }> {
  // The newest `limit` (SCENE_MAP_BOUND, which says why a bound is safe): the map says when it is hit.
  const [t] = await sql.query('SELECT count(*) AS n FROM memcells');
  const rows = await sql.query('SELECT id, scene_id, title, start_at FROM memcells ORDER BY start_at DESC, id DESC LIMIT ?', [limit]);
  return {
    episodes: num(t?.n),
    inputs: rows.map((r) => ({
      memcellId: str(r.id),
      sceneId: strOrNull(r.scene_id),
      title: strOrNull(r.title),
      startAt: num(r.start_at),
    })),
  };
}

export async function profile(sql: Sql): Promise<ProfileItemView[]> {
  const items = await sql.query(`SELECT id, kind, key, value, confidence, evidence, status, edited_by_user, created_at, updated_at
    FROM profile_items WHERE status IN ('active', 'conflict') ORDER BY status = 'conflict' DESC, kind, key, id`);
  const history =
    await sql.query(`SELECT h.profile_item_id, h.op, h.value, h.confidence, h.evidence, h.reason, h.changed_at FROM profile_item_history h
    JOIN profile_items p ON p.id = h.profile_item_id WHERE p.status IN ('active', 'conflict') ORDER BY h.changed_at, h.id`);
  const byItem = new Map<string, ProfileHistoryEntry[]>();
  for (const h of history) {
    const list = byItem.get(str(h.profile_item_id)) ?? [];
    list.push({
      profileItemId: str(h.profile_item_id),
      op: str(h.op) as ProfileHistoryEntry['op'],
      value: strOrNull(h.value),
      confidence: numOrNull(h.confidence),
      evidence: jsonList(h.evidence),
      reason: strOrNull(h.reason),
      changedAt: num(h.changed_at),
    });
    byItem.set(str(h.profile_item_id), list);
  }
  return items.map((r) => {
    const h = byItem.get(str(r.id)) ?? [];
    const lastConflict = [...h].reverse().find((e) => e.op === 'conflict');
    const status = str(r.status) as ProfileItemView['status'];
    return {
      id: str(r.id),
      kind: str(r.kind) as ProfileItemView['kind'],
      key: str(r.key),
      value: str(r.value),
      confidence: num(r.confidence),
      evidence: jsonList(r.evidence),
      status,
      editedByUser: num(r.edited_by_user) === 1,
      pinned: num(r.edited_by_user) === 1,
      createdAt: num(r.created_at),
      updatedAt: num(r.updated_at),
      history: h,
      proposedValue: status === 'conflict' ? (lastConflict?.value ?? null) : null,
    };
  });
}

export async function listForesight(sql: Sql, q: ForesightQuery): Promise<ForesightPage> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (!q.dismissed) where.push("status <> 'dismissed'");
  if (q.activeAt !== undefined) {
    where.push("status = 'active' AND coalesce(end_at, start_at, ?) >= ?");
    params.push(q.activeAt, q.activeAt);
  }
  if (q.activeWithin) {
    where.push(
      "status = 'active' AND coalesce(start_at, end_at) IS NOT NULL AND coalesce(end_at, start_at) >= ? AND coalesce(start_at, end_at) <= ?",
    );
    params.push(q.activeWithin.from, q.activeWithin.to);
  }
  if (q.project !== undefined) {
    where.push(PLAN_IN_PROJECT);
    params.push(q.project, q.project);
  }
  const [t] = await sql.query(`SELECT count(*) AS n FROM foresights${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
  // Keyset on (the item's time, id) in time order, like the episode and fact pages.
  const at = 'coalesce(start_at, end_at, created_at)';
  const after = parseCursor(q.cursor);
  const page = [...where, ...(after ? [`(${at} > ? OR (${at} = ? AND id > ?))`] : [])];
  const rows = await sql.query(
    `${FORESIGHT_VIEW.replace('SELECT ', `SELECT ${at} AS at, `)}${page.length ? ` WHERE ${page.join(' AND ')}` : ''} ORDER BY at, id LIMIT ?`,
    [...params, ...(after ? [after.startAt, after.startAt, after.id] : []), q.limit + 1],
  );
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  return {
    total: num(t?.n),
    items: items.map(toForesight),
    nextCursor: rows.length > q.limit && last ? `${num(last.at)}:${str(last.id)}` : null,
  };
}

/** A cursor is "<start_at>:<id>" of the last episode of the previous page. */
function parseCursor(cursor: string | null | undefined): { startAt: number; id: string } | null {
  if (!cursor) return null;
  const i = cursor.indexOf(':');
  const startAt = Number(cursor.slice(0, i));
  return i > 0 && Number.isFinite(startAt) ? { startAt, id: cursor.slice(i + 1) } : null;
}
