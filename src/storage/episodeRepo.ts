/** SQL for the episode lifecycle: MemCells, MemScenes, date foresight, encoding scores. Implements EpisodeStore. */
import { tombstoneHash } from '../core/explorer/explorerText';
import { sceneSides } from './projectWalls';
import type { Sql } from '../core/base/sql';
import type { EpisodeStore, LifecycleTurn, MemCellRecord, MemCellStatus, MemSceneRecord, TurnPlacement } from '../core/episodes/episodes';
import type { BoundaryReason } from '../core/episodes/segmenter';
import type { Role } from '../core/base/types';
import { decodeVector, encodeVector } from './vectorRepo';

interface CellRow {
  [k: string]: string | number | null;
  id: string;
  conversation_id: string;
  first_seq: number;
  last_seq: number;
  start_at: number;
  end_at: number;
  status: string;
  scene_id: string | null;
  closed_by: string | null;
  salience: number;
  title: string | null;
  narrative: string | null;
  updated_at: number;
}

const CELL_COLUMNS =
  'id, conversation_id, first_seq, last_seq, start_at, end_at, status, scene_id, closed_by, salience, title, narrative, updated_at';

function toCell(r: CellRow): MemCellRecord {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    firstSeq: Number(r.first_seq),
    lastSeq: Number(r.last_seq),
    startAt: Number(r.start_at),
    endAt: Number(r.end_at),
    status: r.status as MemCellStatus,
    sceneId: r.scene_id,
    closedBy: r.closed_by as BoundaryReason | null,
    salience: Number(r.salience),
    title: r.title,
    narrative: r.narrative,
    touchedAt: Number(r.updated_at),
  };
}

export class SqlEpisodeStore implements EpisodeStore {
  readonly #sql: Sql;
  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Turns not yet in any cell, in (conversation, seq) order. Read conversation by conversation:
   * where its cells end (the cell that starts last ends last: a conversation's turns are placed in
   * seq order, so cells never overlap) and the turns after that, through the (conversation_id, seq)
   * index. One query over every message, asking each row for its conversation's cells, read the
   * placed turns again on every call and made segmenting one long conversation cubic.
   */
  async unplacedTurns(limit: number): Promise<LifecycleTurn[]> {
    // A conversation the user chose not to remember is not segmented (schema v7); its turns
    // wait, and are placed if the switch is turned back on.
    const pending = await this.#sql.query<{ id: string; placed: number }>(
      `SELECT cv.id, coalesce((SELECT c.last_seq FROM memcells c WHERE c.conversation_id = cv.id ORDER BY c.first_seq DESC LIMIT 1), 0) AS placed
         FROM conversations cv
        WHERE cv.remember = 1
          AND (SELECT m.seq FROM messages m WHERE m.conversation_id = cv.id ORDER BY m.seq DESC LIMIT 1) > placed
        ORDER BY cv.id`,
    );
    const out: LifecycleTurn[] = [];
    for (const conversation of pending) {
      if (out.length >= limit) break;
      const rows = await this.#sql.query<{
        id: string;
        conversation_id: string;
        seq: number;
        role: string;
        speaker: string;
        content: string;
        occurred_at: number;
        token_count: number;
      }>(
        `SELECT m.id, m.conversation_id, m.seq, m.role, m.speaker, m.content, m.occurred_at, m.token_count
           FROM messages m
          WHERE m.conversation_id = ? AND m.seq > ?
            -- A deleted episode's kept turns are not segmented again (tombstone, schema v5); turns
            -- stored after the deletion are new even if they reuse a seq.
            AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.kind = 'memcell' AND t.conversation_id = m.conversation_id
                             AND m.seq BETWEEN t.first_seq AND t.last_seq AND m.ingested_at <= t.created_at)
          ORDER BY m.seq LIMIT ?`,
        [conversation.id, Number(conversation.placed), limit - out.length],
      );
      for (const r of rows) {
        out.push({
          id: r.id,
          conversationId: r.conversation_id,
          seq: Number(r.seq),
          role: r.role as Role,
          speaker: r.speaker,
          content: r.content,
          occurredAt: Number(r.occurred_at),
          tokenCount: Number(r.token_count),
        });
      }
    }
    return out;
  }

  async openCell(conversationId: string): Promise<{ cell: MemCellRecord; memberIds: string[] } | null> {
    const [row] = await this.#sql.query<CellRow>(
      `SELECT ${CELL_COLUMNS} FROM memcells WHERE conversation_id = ? AND closed_by IS NULL ORDER BY first_seq DESC LIMIT 1`,
      [conversationId],
    );
    if (!row) return null;
    const members = await this.turnsInRange(conversationId, Number(row.first_seq), Number(row.last_seq));
    return { cell: toCell(row), memberIds: members.map((m) => m.id) };
  }

  async turnsBefore(conversationId: string, beforeSeq: number, n: number): Promise<{ id: string; speaker: string; content: string }[]> {
    const rows = await this.#sql.query<{ id: string; speaker: string; content: string }>(
      'SELECT id, speaker, content FROM messages WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      [conversationId, beforeSeq, n],
    );
    return rows.reverse();
  }

  async turnsInRange(
    conversationId: string,
    firstSeq: number,
    lastSeq: number,
  ): Promise<{ id: string; speaker: string; content: string }[]> {
    return this.#sql.query<{ id: string; speaker: string; content: string }>(
      'SELECT id, speaker, content FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq',
      [conversationId, firstSeq, lastSeq],
    );
  }

  placeTurn(p: TurnPlacement, now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const t = p.turn;
      if (p.close)
        await tx.exec('UPDATE memcells SET closed_by = ?, updated_at = ? WHERE id = ? AND closed_by IS NULL', [
          p.close.reason,
          now,
          p.close.cellId,
        ]);
      const priority = p.priority;
      const cellId = p.newCellId ?? p.extendCellId!;
      if (p.newCellId) {
        await tx.exec(
          `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, status, salience, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'raw', ?, ?, ?)`,
          [p.newCellId, t.conversationId, t.seq, t.seq, t.occurredAt, t.occurredAt, priority, now, now],
        );
      } else {
        await tx.exec(
          'UPDATE memcells SET last_seq = max(last_seq, ?), end_at = max(end_at, ?), salience = max(salience, ?), updated_at = ? WHERE id = ?',
          [t.seq, t.occurredAt, priority, now, cellId],
        );
      }
      await tx.exec('UPDATE messages SET encoding = ? WHERE id = ?', [JSON.stringify(p.encoding), t.id]);
      // A date plan the person deleted (here or, through sync, on another device) is not made again.
      const hashes = p.foresight.map((f) => tombstoneHash(f.content));
      const blocked = hashes.length
        ? new Set(
            (
              await tx.query<{ h: string }>(
                `SELECT text_hash AS h FROM tombstones WHERE kind = 'foresight' AND text_hash IN (${hashes.map(() => '?').join(', ')})`,
                hashes,
              )
            ).map((r) => String(r.h)),
          )
        : new Set<string>();
      for (const f of p.foresight) {
        if (blocked.has(tombstoneHash(f.content))) continue;
        await tx.exec(
          `INSERT INTO foresights (id, memcell_id, content, start_at, end_at, evidence, status, source, source_message_id, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, CASE WHEN ? < ? THEN 'expired' ELSE 'active' END, 'date-parser', ?, ?, ?)
           ON CONFLICT DO NOTHING`,
          [
            f.id,
            f.memcellId,
            f.content,
            f.startAt,
            f.endAt,
            JSON.stringify([f.sourceMessageId]),
            f.endAt,
            now,
            f.sourceMessageId,
            now,
            now,
          ],
        );
      }
    });
  }

  async closeCell(cellId: string, reason: BoundaryReason, now: number): Promise<void> {
    await this.#sql.exec('UPDATE memcells SET closed_by = ?, updated_at = ? WHERE id = ? AND closed_by IS NULL', [reason, now, cellId]);
  }

  async openCellsIdleSince(before: number): Promise<MemCellRecord[]> {
    const rows = await this.#sql.query<CellRow>(
      `SELECT ${CELL_COLUMNS} FROM memcells WHERE closed_by IS NULL AND end_at < ? ORDER BY end_at`,
      [before],
    );
    return rows.map(toCell);
  }

  async unsynthesisedCells(limit: number): Promise<MemCellRecord[]> {
    const rows = await this.#sql.query<CellRow>(
      `SELECT ${CELL_COLUMNS} FROM memcells WHERE closed_by IS NOT NULL AND status IN ('raw', 'failed') ORDER BY end_at LIMIT ?`,
      [limit],
    );
    return rows.map(toCell);
  }

  async unsynthesisedTurns(): Promise<{ conversationId: string; occurredAt: number; tokenCount: number }[]> {
    const rows = await this.#sql.query<{ conversation_id: string; occurred_at: number; token_count: number }>(
      `SELECT m.conversation_id, m.occurred_at, m.token_count FROM messages m JOIN conversations cv ON cv.id = m.conversation_id AND cv.remember = 1
        WHERE m.role <> 'system' AND NOT EXISTS (SELECT 1 FROM memcells c WHERE c.conversation_id = m.conversation_id
          AND m.seq BETWEEN c.first_seq AND c.last_seq AND c.status IN ('synthesised', 'queued'))
        ORDER BY m.conversation_id, m.seq`,
    );
    return rows.map((r) => ({
      conversationId: String(r.conversation_id),
      occurredAt: Number(r.occurred_at),
      tokenCount: Number(r.token_count),
    }));
  }

  async getCell(cellId: string): Promise<MemCellRecord | null> {
    const [row] = await this.#sql.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM memcells WHERE id = ?`, [cellId]);
    return row ? toCell(row) : null;
  }

  async scenes(vectorModelId: string): Promise<MemSceneRecord[]> {
    const rows = await this.#sql.query<{
      id: string;
      centroid: Uint8Array | null;
      centroid_model: string | null;
      member_count: number;
      last_activity_at: number | null;
    }>('SELECT id, centroid, centroid_model, member_count, last_activity_at FROM memscenes WHERE centroid_model = ?', [vectorModelId]);
    return rows.map((r) => ({
      id: r.id,
      centroid: r.centroid ? decodeVector(r.centroid, r.centroid.byteLength / 4) : null,
      centroidModel: r.centroid_model,
      memberCount: Number(r.member_count),
      lastActivityAt: Number(r.last_activity_at ?? 0),
    }));
  }

  sceneSides(conversationId: string): Promise<{ own: string; scenes: Map<string, Set<string>> }> {
    return sceneSides(this.#sql, conversationId);
  }

  assignScene(cellId: string, scene: MemSceneRecord, isNew: boolean, now: number): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const centroid = scene.centroid ? encodeVector(scene.centroid) : null;
      if (isNew) {
        await tx.exec(
          `INSERT INTO memscenes (id, centroid, centroid_model, member_count, last_activity_at, summary_stale, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 1, ?, ?)`,
          [scene.id, centroid, scene.centroidModel, scene.memberCount, scene.lastActivityAt, now, now],
        );
      } else {
        await tx.exec(
          'UPDATE memscenes SET centroid = ?, centroid_model = ?, member_count = ?, last_activity_at = ?, summary_stale = 1, updated_at = ? WHERE id = ?',
          [centroid, scene.centroidModel, scene.memberCount, scene.lastActivityAt, now, scene.id],
        );
      }
      await tx.exec('UPDATE memcells SET scene_id = ?, updated_at = ? WHERE id = ?', [scene.id, now, cellId]);
    });
  }

  async sceneIds(): Promise<string[]> {
    return (await this.#sql.query<{ id: string }>('SELECT id FROM memscenes ORDER BY rowid')).map((r) => r.id);
  }

  async setSceneCentroid(sceneId: string, centroid: Float32Array, vectorModelId: string): Promise<void> {
    await this.#sql.exec('UPDATE memscenes SET centroid = ?, centroid_model = ? WHERE id = ?', [
      encodeVector(centroid),
      vectorModelId,
      sceneId,
    ]);
  }

  async cellsInScene(sceneId: string): Promise<MemCellRecord[]> {
    const rows = await this.#sql.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM memcells WHERE scene_id = ? ORDER BY start_at`, [sceneId]);
    return rows.map(toCell);
  }

  async setCellStatus(cellId: string, status: MemCellStatus, now: number): Promise<void> {
    await this.#sql.exec('UPDATE memcells SET status = ?, updated_at = ? WHERE id = ?', [status, now, cellId]);
  }

  async sceneHeatInput(sceneId: string): Promise<{ visits: number; turns: number; lastActivityAt: number }> {
    const [r] = await this.#sql.query<{ v: number | null; t: number | null; a: number | null }>(
      `SELECT sum(c.visits) AS v, sum(c.last_seq - c.first_seq + 1) AS t, max(coalesce(c.last_visited_at, 0), max(c.end_at)) AS a
         FROM memcells c WHERE c.scene_id = ?`,
      [sceneId],
    );
    return { visits: Number(r?.v ?? 0), turns: Number(r?.t ?? 0), lastActivityAt: Number(r?.a ?? 0) };
  }

  async setSceneHeat(sceneId: string, heat: number, now: number): Promise<void> {
    await this.#sql.exec('UPDATE memscenes SET heat = ?, updated_at = ? WHERE id = ?', [heat, now, sceneId]);
  }

  async sceneHeat(sceneId: string): Promise<number> {
    const [r] = await this.#sql.query<{ heat: number }>('SELECT heat FROM memscenes WHERE id = ?', [sceneId]);
    return Number(r?.heat ?? 0);
  }

  markVisited(messageIds: readonly string[], now: number): Promise<MemCellRecord[]> {
    return this.#sql.transaction(async (tx) => {
      const ids = new Set<string>();
      for (const id of messageIds) {
        const [cell] = await tx.query<{ id: string }>(
          `SELECT c.id FROM memcells c JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq
            WHERE m.id = ? LIMIT 1`,
          [id],
        );
        if (cell) ids.add(cell.id);
      }
      const out: MemCellRecord[] = [];
      for (const id of ids) {
        await tx.exec('UPDATE memcells SET visits = visits + 1, last_visited_at = ?, updated_at = ? WHERE id = ?', [now, now, id]);
        const [row] = await tx.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM memcells WHERE id = ?`, [id]);
        if (row) out.push(toCell(row));
      }
      return out;
    });
  }

  async counts(): Promise<{ memcells: number; memscenes: number; foresights: number; facts: number }> {
    const [r] = await this.#sql.query<{ c: number; s: number; f: number; k: number }>(
      'SELECT (SELECT count(*) FROM memcells) AS c, (SELECT count(*) FROM memscenes) AS s, (SELECT count(*) FROM foresights) AS f, (SELECT count(*) FROM facts) AS k',
    );
    return { memcells: Number(r?.c ?? 0), memscenes: Number(r?.s ?? 0), foresights: Number(r?.f ?? 0), facts: Number(r?.k ?? 0) };
  }
}
