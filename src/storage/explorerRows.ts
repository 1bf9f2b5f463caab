/**
 * Row helpers of the explorer's SQL (explorerRepo.ts, explorerSearch.ts): value coercion, the
 * SELECT lists of the views the explorer shows, and their row → view conversions.
 */
import type { EncodingScore } from '../core/episodes/encodingScore';
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type { FactView, MemCellSummary } from '../core/explorer/explorer';
import type { ForesightItem } from '../core/synthesis/knowledge';
import type { MemCellStatus } from '../core/episodes/episodes';

export const num = (v: SqlValue | undefined): number => Number(v ?? 0);
export const numOrNull = (v: SqlValue | undefined): number | null => (v === null || v === undefined ? null : Number(v));
export const str = (v: SqlValue | undefined): string => (v === null || v === undefined ? '' : String(v));
export const strOrNull = (v: SqlValue | undefined): string | null => (v === null || v === undefined ? null : String(v));
export const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
export const IN_CHUNK = 500;

export function jsonList(text: SqlValue | undefined): string[] {
  if (typeof text !== 'string') return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    // a damaged column reads as an empty list, not a failed page
    return [];
  }
}

export function clip(text: string, n = 280): string {
  return text.length > n ? `${text.slice(0, n)}…` : text;
}

/** WHERE fragments for the filters, per kind (time/conversation/speaker columns differ). */
export const CELL_SUMMARY = `SELECT c.id, c.conversation_id, cv.title AS conversation_title, c.start_at, c.end_at, c.title, c.narrative, c.status, c.closed_by,
    c.scene_id, s.title AS scene_title, c.edited_by_user, c.first_seq, c.last_seq, c.lost_turns,
    (SELECT count(*) FROM facts f WHERE f.memcell_id = c.id) AS fact_count,
    (SELECT count(*) FROM messages x WHERE x.conversation_id = c.conversation_id AND x.seq BETWEEN c.first_seq AND c.last_seq) AS turn_count,
    (SELECT substr(x.content, 1, 300) FROM messages x WHERE x.conversation_id = c.conversation_id AND x.seq BETWEEN c.first_seq AND c.last_seq
      ORDER BY x.role <> 'user', x.seq LIMIT 1) AS opening
  FROM memcells c JOIN conversations cv ON cv.id = c.conversation_id LEFT JOIN memscenes s ON s.id = c.scene_id`;

export function toCellSummary(r: SqlRow, narrativeChars = 240): MemCellSummary {
  return {
    id: str(r.id),
    conversationId: str(r.conversation_id),
    conversationTitle: str(r.conversation_title),
    startAt: num(r.start_at),
    endAt: num(r.end_at),
    title: strOrNull(r.title),
    narrative: r.narrative === null ? null : clip(str(r.narrative), narrativeChars),
    status: str(r.status) as MemCellStatus,
    open: r.closed_by === null,
    sceneId: strOrNull(r.scene_id),
    sceneTitle: strOrNull(r.scene_title),
    factCount: num(r.fact_count),
    turnCount: num(r.turn_count),
    editedByUser: num(r.edited_by_user) === 1,
    lostTurns: num(r.lost_turns ?? 0),
    opening: strOrNull(r.opening),
  };
}

export const FACT_VIEW =
  'SELECT id, memcell_id, speaker, content, occurred_at, valid_from, valid_to, confidence, superseded_by, edited_by_user FROM facts';
export function toFact(r: SqlRow): FactView {
  return {
    id: str(r.id),
    memcellId: str(r.memcell_id),
    speaker: str(r.speaker),
    content: str(r.content),
    occurredAt: numOrNull(r.occurred_at),
    validFrom: numOrNull(r.valid_from),
    validTo: numOrNull(r.valid_to),
    confidence: num(r.confidence),
    supersededBy: strOrNull(r.superseded_by),
    editedByUser: num(r.edited_by_user) === 1,
  };
}

export const FORESIGHT_VIEW = 'SELECT id, memcell_id, content, start_at, end_at, evidence, status, source FROM foresights';
export function toForesight(r: SqlRow): ForesightItem {
  return {
    id: str(r.id),
    memcellId: strOrNull(r.memcell_id),
    content: str(r.content),
    startAt: numOrNull(r.start_at),
    endAt: numOrNull(r.end_at),
    evidence: jsonList(r.evidence),
    status: str(r.status) as ForesightItem['status'],
    source: str(r.source) as ForesightItem['source'],
  };
}

export function parseEncoding(raw: unknown): EncodingScore | null {
  if (typeof raw !== 'string') return null;
  try {
    return JSON.parse(raw) as EncodingScore;
  } catch {
    // an unreadable score shows as not yet scored
    return null;
  }
}

/** Episodes of a conversation with no turn left in their range and nothing synthesised (no narrative, no facts). */
export async function emptyEpisodeIds(sql: Sql, conversationId: string): Promise<string[]> {
  const rows = await sql.query(
    `SELECT c.id FROM memcells c WHERE c.conversation_id = ? AND c.narrative IS NULL
        AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.memcell_id = c.id)
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq)`,
    [conversationId],
  );
  return rows.map((r) => str(r.id));
}
