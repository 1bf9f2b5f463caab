/**
 * SQL for what LLM synthesis writes and reads: facts, foresight, scene summaries, profile items
 * and their history. Implements core's KnowledgeStore (src/core/synthesis/knowledge.ts); every multi-row
 * write runs in one transaction, every statement is parameterised.
 *
 * Idempotency of saveSynthesis: ids are derived from the cell (`<cell>:f<n>`, `<cell>:fs<n>`)
 * and an earlier run's facts (not user-edited) and LLM foresight of the cell are deleted in the
 * same transaction before inserting, so a job retried after a crash, or a cell re-synthesised
 * after new turns, never duplicates. Deleting a fact drops its vectors and FTS row (triggers)
 * and un-supersedes what it superseded (FK ON DELETE SET NULL).
 */
import { wallsOfEvidence } from './projectWalls';
import { jsonList } from './explorerRows';
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import {
  CONTRADICTED_CONFIDENCE,
  SCENE_USER_TITLE,
  type CellForSynthesis,
  type ForesightItem,
  type KnowledgeStore,
  type KnownFact,
  type MemCellSynthesisWrite,
  type ProfileChange,
  type ProfileHistoryEntry,
  type ProfileItem,
  type SavedSynthesis,
  type SceneDigest,
  type SceneForSummary,
} from '../core/synthesis/knowledge';
import type { Role } from '../core/base/types';
import { RecollectError } from '../core/base/errors';
import { toFtsQuery } from './ftsQuery';
import { tombstoneHash } from '../core/explorer/explorerText';

interface FactRow extends SqlRow {
  id: string;
  memcell_id: string;
  speaker: string;
  content: string;
}

export interface ProfileRow extends SqlRow {
  id: string;
  kind: string;
  key: string;
  value: string;
  confidence: number;
  evidence: string;
  status: string;
  edited_by_user: number;
  created_at: number;
  updated_at: number;
}

export interface ForesightRow extends SqlRow {
  id: string;
  memcell_id: string | null;
  content: string;
  start_at: number | null;
  end_at: number | null;
  evidence: string;
  status: string;
  source: string;
}

const num = (v: SqlValue): number => Number(v);
const numOrNull = (v: SqlValue): number | null => (v === null ? null : Number(v));

function toKnownFact(r: FactRow): KnownFact {
  return { id: r.id, memcellId: r.memcell_id, speaker: r.speaker, content: r.content };
}

export function toProfileItem(r: ProfileRow): ProfileItem {
  return {
    id: r.id,
    kind: r.kind as ProfileItem['kind'],
    key: r.key,
    value: r.value,
    confidence: num(r.confidence),
    evidence: jsonList(r.evidence),
    status: r.status as ProfileItem['status'],
    editedByUser: num(r.edited_by_user) === 1,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function toForesight(r: ForesightRow): ForesightItem {
  return {
    id: r.id,
    memcellId: r.memcell_id,
    content: r.content,
    startAt: numOrNull(r.start_at),
    endAt: numOrNull(r.end_at),
    evidence: jsonList(r.evidence),
    status: r.status as ForesightItem['status'],
    source: r.source as ForesightItem['source'],
  };
}

/** `?, ?, ?` for an IN list. */
const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
const IN_CHUNK = 500;

const FACT_COLUMNS = 'f.id, f.memcell_id, f.speaker, f.content';
export const PROFILE_COLUMNS = 'id, kind, key, value, confidence, evidence, status, edited_by_user, created_at, updated_at';
export const FORESIGHT_COLUMNS = 'id, memcell_id, content, start_at, end_at, evidence, status, source';

/** The project-only project whose wall memcell `alias` lies behind, or '' (shared memory). */
const WALL_OF = (alias: string) => `coalesce((SELECT p.id FROM conversations cv JOIN projects p ON p.id = cv.project_id
  WHERE cv.id = ${alias}.conversation_id AND p.memory = 'project-only'), '')`;

export class SqlKnowledgeStore implements KnowledgeStore {
  readonly #sql: Sql;
  constructor(sql: Sql) {
    this.#sql = sql;
  }

  // -------------------------------------------------------------------------------------------
  // MemCell synthesis
  // -------------------------------------------------------------------------------------------

  async loadCell(memcellId: string): Promise<CellForSynthesis | null> {
    const [c] = await this.#sql.query(
      'SELECT id, conversation_id, scene_id, first_seq, last_seq, start_at, end_at, title, narrative, edited_by_user FROM memcells WHERE id = ?',
      [memcellId],
    );
    if (!c) return null;
    const turns = await this.#sql.query(
      'SELECT id, seq, role, speaker, content, occurred_at FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq',
      [c.conversation_id!, c.first_seq!, c.last_seq!],
    );
    return {
      id: String(c.id),
      conversationId: String(c.conversation_id),
      sceneId: c.scene_id === null ? null : String(c.scene_id),
      startAt: num(c.start_at!),
      endAt: num(c.end_at!),
      title: c.title === null ? null : String(c.title),
      narrative: c.narrative === null ? null : String(c.narrative),
      editedByUser: num(c.edited_by_user!) === 1,
      turns: turns.map((t) => ({
        messageId: String(t.id),
        seq: num(t.seq!),
        role: t.role as Role,
        speaker: String(t.speaker),
        content: String(t.content),
        occurredAt: num(t.occurred_at!),
      })),
    };
  }

  /**
   * Half the budget for facts of the same scene (most recent first), the rest for BM25 matches
   * of the cell's text, then leftover scene facts. The cell's own user-edited facts count as
   * known (they survive re-synthesis); its other facts are about to be replaced.
   */
  async relatedFacts(cell: CellForSynthesis, text: string, limit: number): Promise<KnownFact[]> {
    if (limit <= 0) return [];
    // Facts shown to the model come from the cell's own side of a project-only project's wall
    // (core/recall/memoryScope.ts): synthesis of a chat outside it never sees its facts, and back.
    const [own] = await this.#sql.query<{ wall: string }>(`SELECT ${WALL_OF('c')} AS wall FROM memcells c WHERE c.id = ?`, [cell.id]);
    const wall = own?.wall ?? '';
    const scene =
      cell.sceneId === null
        ? []
        : await this.#sql.query<FactRow>(
            `SELECT ${FACT_COLUMNS} FROM facts f JOIN memcells c ON c.id = f.memcell_id
        WHERE c.scene_id = ? AND f.superseded_by IS NULL AND (f.memcell_id <> ? OR f.edited_by_user = 1) AND ${WALL_OF('c')} = ?
        ORDER BY coalesce(f.occurred_at, f.created_at) DESC, f.id LIMIT ?`,
            [cell.sceneId, cell.id, wall, limit],
          );
    const match = toFtsQuery(text);
    const lexical =
      match === null
        ? []
        : await this.#sql.query<FactRow>(
            `SELECT ${FACT_COLUMNS} FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid JOIN memcells c ON c.id = f.memcell_id
        WHERE facts_fts MATCH ? AND f.superseded_by IS NULL AND (f.memcell_id <> ? OR f.edited_by_user = 1) AND ${WALL_OF('c')} = ?
        ORDER BY bm25(facts_fts) LIMIT ?`,
            [match, cell.id, wall, limit],
          );
    const out = new Map<string, KnownFact>();
    const add = (rows: readonly FactRow[], max: number): void => {
      for (const r of rows) {
        if (out.size >= max) return;
        if (!out.has(r.id)) out.set(r.id, toKnownFact(r));
      }
    };
    add(scene, Math.ceil(limit / 2));
    add(lexical, limit);
    add(scene, limit);
    return [...out.values()];
  }

  saveSynthesis(write: MemCellSynthesisWrite): Promise<SavedSynthesis> {
    return this.#sql.transaction(async (tx) => {
      const { memcellId, now } = write;
      const [cell] = await tx.query('SELECT edited_by_user FROM memcells WHERE id = ?', [memcellId]);
      if (!cell) throw new RecollectError('NOT_FOUND', `The episode ${memcellId} no longer exists.`);
      const previous = await tx.query<{ id: string }>('SELECT id FROM facts WHERE memcell_id = ? AND edited_by_user = 0', [memcellId]);
      await tx.exec('DELETE FROM facts WHERE memcell_id = ? AND edited_by_user = 0', [memcellId]);
      // A dismissed item stays (the user's decision is visible in the explorer); tombstones below
      // keep the model from writing it, or any fact the user deleted or corrected, again.
      await tx.exec("DELETE FROM foresights WHERE memcell_id = ? AND source = 'llm' AND status <> 'dismissed'", [memcellId]);
      const forgotten = async (kind: 'fact' | 'foresight', text: string): Promise<boolean> =>
        (await tx.query('SELECT 1 AS x FROM tombstones WHERE kind = ? AND text_hash = ? LIMIT 1', [kind, tombstoneHash(text)])).length > 0;
      if (num(cell.edited_by_user!) === 1) {
        await tx.exec("UPDATE memcells SET status = 'synthesised', lost_turns = 0, updated_at = ? WHERE id = ?", [now, memcellId]);
      } else {
        await tx.exec("UPDATE memcells SET title = ?, narrative = ?, status = 'synthesised', lost_turns = 0, updated_at = ? WHERE id = ?", [
          write.title,
          write.narrative,
          now,
          memcellId,
        ]);
      }

      const taken = new Set(
        (
          await tx.query<{ id: string }>(
            'SELECT id FROM facts WHERE memcell_id = ? UNION ALL SELECT id FROM foresights WHERE memcell_id = ?',
            [memcellId, memcellId],
          )
        ).map((r) => r.id),
      );
      let n = 0;
      const nextId = (prefix: string): string => {
        let id: string;
        do id = `${memcellId}:${prefix}${n++}`;
        while (taken.has(id));
        taken.add(id);
        return id;
      };

      const factIds: string[] = [];
      const supersededIds: string[] = [];
      for (const f of write.facts) {
        if (await forgotten('fact', f.content)) continue;
        const id = nextId('f');
        await tx.exec(
          `INSERT INTO facts (id, memcell_id, speaker, content, occurred_at, valid_from, valid_to, confidence, created_at, updated_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, memcellId, f.speaker, f.content, f.occurredAt, f.validFrom, f.validTo, f.confidence, now, now],
        );
        factIds.push(id);
        if (f.relation === 'new' || f.replaces === null) continue;
        if (f.relation === 'update') {
          // The old value held until the new one began.
          await tx.exec(
            `UPDATE facts SET superseded_by = ?, valid_to = coalesce(valid_to, ?), updated_at = ?
            WHERE id = ? AND superseded_by IS NULL AND id <> ?`,
            [id, f.validFrom ?? f.occurredAt ?? now, now, f.replaces, id],
          );
        } else {
          await tx.exec(
            `UPDATE facts SET superseded_by = ?, confidence = min(confidence, ?), updated_at = ?
            WHERE id = ? AND superseded_by IS NULL AND id <> ?`,
            [id, CONTRADICTED_CONFIDENCE, now, f.replaces, id],
          );
        }
        if (tx.changes() > 0) supersededIds.push(f.replaces);
      }

      n = 0;
      const foresightIds: string[] = [];
      for (const item of write.foresight) {
        if (await forgotten('foresight', item.content)) continue;
        const id = nextId('fs');
        await tx.exec(
          `INSERT INTO foresights (id, memcell_id, content, start_at, end_at, evidence, status, source, created_at, updated_at)
          VALUES (?, ?, ?, ?, ?, ?, 'active', 'llm', ?, ?)`,
          [id, memcellId, item.content, item.startAt, item.endAt, JSON.stringify(item.evidence), now, now],
        );
        foresightIds.push(id);
      }
      return { factIds, foresightIds, supersededIds, removedFactIds: previous.map((r) => r.id) };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Scenes
  // -------------------------------------------------------------------------------------------

  async loadScene(sceneId: string): Promise<SceneForSummary | null> {
    const [s] = await this.#sql.query('SELECT id, title, summary, edited_by_user, summary_forgotten FROM memscenes WHERE id = ?', [
      sceneId,
    ]);
    if (!s) return null;
    const members = await this.#sql.query(
      "SELECT id, title, narrative, start_at, end_at FROM memcells WHERE scene_id = ? AND status = 'synthesised' ORDER BY start_at, id",
      [sceneId],
    );
    return {
      id: String(s.id),
      title: s.title === null ? null : String(s.title),
      summary: s.summary === null ? null : String(s.summary),
      editedByUser: (num(s.edited_by_user!) & SCENE_USER_TITLE) !== 0,
      summaryForgotten: num(s.summary_forgotten!) === 1,
      members: members.map((m) => ({
        id: String(m.id),
        title: m.title === null ? null : String(m.title),
        narrative: m.narrative === null ? null : String(m.narrative),
        startAt: num(m.start_at!),
        endAt: num(m.end_at!),
      })),
    };
  }

  async saveSceneSummary(sceneId: string, title: string, summary: string, now: number): Promise<void> {
    await this.#sql.exec('UPDATE memscenes SET title = ?, summary = ?, summary_stale = 0, updated_at = ? WHERE id = ?', [
      title,
      summary,
      now,
      sceneId,
    ]);
  }

  async sceneDigests(options: { sceneIds?: readonly string[]; limit: number }): Promise<SceneDigest[]> {
    const scenes = options.sceneIds
      ? options.sceneIds.length === 0
        ? []
        : await this.#sql.query(
            `SELECT id, title, summary FROM memscenes WHERE summary IS NOT NULL AND summary <> '' AND id IN (${marks(Math.min(options.sceneIds.length, IN_CHUNK))})
          ORDER BY coalesce(last_activity_at, updated_at) DESC LIMIT ?`,
            [...options.sceneIds.slice(0, IN_CHUNK), options.limit],
          )
      : await this.#sql.query(
          `SELECT id, title, summary FROM memscenes WHERE summary IS NOT NULL AND summary <> ''
          ORDER BY coalesce(last_activity_at, updated_at) DESC, id LIMIT ?`,
          [options.limit],
        );
    const out: SceneDigest[] = [];
    for (const s of scenes) {
      // The latest members are enough evidence; older ones stay reachable through the scene.
      const members = await this.#sql.query<{ id: string }>(
        'SELECT id FROM (SELECT id, start_at FROM memcells WHERE scene_id = ? ORDER BY start_at DESC, id DESC LIMIT 12) ORDER BY start_at, id',
        [s.id!],
      );
      out.push({
        id: String(s.id),
        title: s.title === null ? null : String(s.title),
        summary: String(s.summary),
        memberIds: members.map((m) => m.id),
      });
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Profile
  // -------------------------------------------------------------------------------------------

  async profileSubjects(limit: number): Promise<string[]> {
    const rows = await this.#sql.query<{ speaker: string; n: number }>(
      "SELECT speaker, count(*) AS n FROM messages WHERE role = 'user' GROUP BY speaker ORDER BY n DESC, speaker LIMIT ?",
      [limit],
    );
    return rows.map((r) => r.speaker);
  }

  async memcellEndTimes(ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const chunk = ids.slice(i, i + IN_CHUNK);
      const rows = await this.#sql.query<{ id: string; end_at: number }>(
        `SELECT id, end_at FROM memcells WHERE id IN (${marks(chunk.length)})`,
        chunk,
      );
      for (const r of rows) out.set(r.id, num(r.end_at));
    }
    return out;
  }

  wallsOfEvidence(evidence: readonly string[]): Promise<Map<string, string>> {
    return wallsOfEvidence(this.#sql, evidence);
  }

  async profileItems(): Promise<ProfileItem[]> {
    return (
      await this.#sql.query<ProfileRow>(
        `SELECT ${PROFILE_COLUMNS} FROM profile_items WHERE status IN ('active', 'conflict') ORDER BY key, id`,
      )
    ).map(toProfileItem);
  }

  updateProfileItems(plan: (current: readonly ProfileItem[]) => readonly ProfileChange[], now: number): Promise<ProfileChange[]> {
    return this.#sql.transaction(async (tx) => {
      const current = (
        await tx.query<ProfileRow>(`SELECT ${PROFILE_COLUMNS} FROM profile_items WHERE status IN ('active', 'conflict') ORDER BY key, id`)
      ).map(toProfileItem);
      // A profile key the user deleted is never added back by synthesis (tombstone on the normalised
      // key); the person writing it again (by hand, or asking in a message) is their own choice.
      const blocked = new Set(
        (await tx.query<{ h: string }>("SELECT text_hash AS h FROM tombstones WHERE kind = 'profile'")).map((r) => r.h),
      );
      const changes = plan(current).filter((c) => !(c.insert && !c.item.editedByUser && blocked.has(tombstoneHash(c.item.key))));
      for (const { item, history, insert } of changes) {
        if (insert) {
          await tx.exec(`INSERT INTO profile_items (${PROFILE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
            item.id,
            item.kind,
            item.key,
            item.value,
            item.confidence,
            JSON.stringify(item.evidence),
            item.status,
            item.editedByUser ? 1 : 0,
            item.createdAt,
            item.updatedAt,
          ]);
        } else {
          await tx.exec(
            'UPDATE profile_items SET kind = ?, key = ?, value = ?, confidence = ?, evidence = ?, status = ?, updated_at = ? WHERE id = ?',
            [item.kind, item.key, item.value, item.confidence, JSON.stringify(item.evidence), item.status, item.updatedAt, item.id],
          );
        }
        await tx.exec(
          'INSERT INTO profile_item_history (profile_item_id, op, value, confidence, evidence, reason, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [item.id, history.op, history.value, history.confidence, JSON.stringify(history.evidence), history.reason, now],
        );
      }
      return changes;
    });
  }

  async profileHistory(profileItemId: string): Promise<ProfileHistoryEntry[]> {
    const rows = await this.#sql.query(
      'SELECT profile_item_id, op, value, confidence, evidence, reason, changed_at FROM profile_item_history WHERE profile_item_id = ? ORDER BY changed_at, id',
      [profileItemId],
    );
    return rows.map((r) => ({
      profileItemId: String(r.profile_item_id),
      op: r.op as ProfileHistoryEntry['op'],
      value: r.value === null ? null : String(r.value),
      confidence: numOrNull(r.confidence!),
      evidence: jsonList(r.evidence!),
      reason: r.reason === null ? null : String(r.reason),
      changedAt: num(r.changed_at!),
    }));
  }

  // -------------------------------------------------------------------------------------------
  // Foresight
  // -------------------------------------------------------------------------------------------

  async expireForesight(now: number): Promise<number> {
    const rows = await this.#sql.query(
      "UPDATE foresights SET status = 'expired', updated_at = ? WHERE status = 'active' AND end_at IS NOT NULL AND end_at < ? RETURNING id",
      [now, now],
    );
    return rows.length;
  }

  async activeForesight(now: number, options: { includeUpcoming?: boolean; limit?: number } = {}): Promise<ForesightItem[]> {
    const upcoming = options.includeUpcoming ?? true;
    const rows = await this.#sql.query<ForesightRow>(
      `SELECT ${FORESIGHT_COLUMNS} FROM foresights
        WHERE status = 'active' AND (end_at IS NULL OR end_at >= ?) ${upcoming ? '' : 'AND (start_at IS NULL OR start_at <= ?)'}
        ORDER BY coalesce(end_at, 9007199254740991), start_at, id LIMIT ?`,
      upcoming ? [now, options.limit ?? 50] : [now, now, options.limit ?? 50],
    );
    return rows.map(toForesight);
  }
}
