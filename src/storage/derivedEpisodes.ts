/**
 * SQL behind synced derived records of episodes (core/synthesis/derivedEpisode.ts): an episode's turns,
 * the episode covering exactly a set of turns, what synthesis stored for an episode, and facts named
 * by a turn of their episode and their words.
 */
import type { Sql } from '../core/base/sql';
import type { DerivedEpisodeStore, DerivedTheme, FactRef } from '../core/synthesis/derivedEpisode';
import type { EpisodeSynthesis, NewFact } from '../core/synthesis/knowledge';
import { jsonList } from './explorerRows';

const CELL_TURNS = 'JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq';
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export class SqlDerivedEpisodes implements DerivedEpisodeStore {
  constructor(private readonly sql: Sql) {}

  async episodeTurnIds(memcellId: string): Promise<string[] | null> {
    const [cell] = await this.sql.query('SELECT 1 AS x FROM memcells WHERE id = ?', [memcellId]);
    if (!cell) return null;
    const rows = await this.sql.query<{ id: string }>(`SELECT m.id FROM memcells c ${CELL_TURNS} WHERE c.id = ? ORDER BY m.seq`, [
      memcellId,
    ]);
    return rows.map((r) => r.id);
  }

  async episodeWithTurns(turnIds: readonly string[]): Promise<{ id: string; narrative: string | null } | null> {
    const ids = [...new Set(turnIds)];
    if (ids.length === 0 || ids.length > 5_000) return null;
    const [span] = await this.sql.query<{ conversation_id: string; lo: number; hi: number; n: number; conversations: number }>(
      `SELECT min(conversation_id) AS conversation_id, min(seq) AS lo, max(seq) AS hi, count(*) AS n, count(DISTINCT conversation_id) AS conversations
         FROM messages WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    if (!span || Number(span.n) !== ids.length || Number(span.conversations) !== 1) return null;
    // Exactly these turns: a turn between them that is not in the set means another episode.
    const [inRange] = await this.sql.query<{ n: number }>(
      'SELECT count(*) AS n FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ?',
      [span.conversation_id, span.lo, span.hi],
    );
    if (Number(inRange?.n) !== ids.length) return null;
    const [cell] = await this.sql.query<{ id: string; narrative: string | null }>(
      'SELECT id, narrative FROM memcells WHERE conversation_id = ? AND first_seq = ? AND last_seq = ? LIMIT 1',
      [span.conversation_id, span.lo, span.hi],
    );
    return cell ? { id: cell.id, narrative: cell.narrative } : null;
  }

  async storedEpisode(memcellId: string): Promise<EpisodeSynthesis | null> {
    const [cell] = await this.sql.query<{ title: string | null; narrative: string | null; status: string }>(
      'SELECT title, narrative, status FROM memcells WHERE id = ?',
      [memcellId],
    );
    if (!cell || cell.status !== 'synthesised') return null;
    const facts = await this.sql.query<{
      id: string;
      speaker: string;
      content: string;
      occurred_at: number | null;
      valid_from: number | null;
      valid_to: number | null;
      confidence: number;
    }>('SELECT id, speaker, content, occurred_at, valid_from, valid_to, confidence FROM facts WHERE memcell_id = ? ORDER BY rowid', [
      memcellId,
    ]);
    const out: NewFact[] = [];
    for (const f of facts) {
      // What this fact replaced: the older fact marked superseded by it.
      const [old] = await this.sql.query<{ id: string }>('SELECT id FROM facts WHERE superseded_by = ? LIMIT 1', [f.id]);
      out.push({
        speaker: f.speaker,
        content: f.content,
        occurredAt: numOrNull(f.occurred_at),
        validFrom: numOrNull(f.valid_from),
        validTo: numOrNull(f.valid_to),
        confidence: Number(f.confidence),
        relation: old ? 'update' : 'new',
        replaces: old?.id ?? null,
      });
    }
    const foresight = await this.sql.query<{ content: string; start_at: number; end_at: number; evidence: string }>(
      `SELECT content, start_at, end_at, evidence FROM foresights
        WHERE memcell_id = ? AND source = 'llm' AND status <> 'dismissed' AND start_at IS NOT NULL AND end_at IS NOT NULL ORDER BY rowid`,
      [memcellId],
    );
    return {
      title: cell.title ?? '',
      narrative: cell.narrative ?? '',
      facts: out,
      foresight: foresight.map((f) => ({
        content: f.content,
        startAt: Number(f.start_at),
        endAt: Number(f.end_at),
        evidence: jsonList(f.evidence),
      })),
    };
  }

  async synthesisedEpisodeIds(): Promise<string[]> {
    return (await this.sql.query<{ id: string }>("SELECT id FROM memcells WHERE status = 'synthesised' ORDER BY start_at, id")).map(
      (r) => r.id,
    );
  }

  async factRef(factId: string): Promise<FactRef | null> {
    const [row] = await this.sql.query<{ content: string; turn_id: string | null }>(
      `SELECT f.content AS content, (SELECT m.id FROM memcells c ${CELL_TURNS} WHERE c.id = f.memcell_id ORDER BY m.seq LIMIT 1) AS turn_id
         FROM facts f WHERE f.id = ?`,
      [factId],
    );
    return row?.turn_id ? { turnId: row.turn_id, content: row.content } : null;
  }

  async themeTurnIds(sceneId: string): Promise<string[] | null> {
    const [scene] = await this.sql.query('SELECT 1 AS x FROM memscenes WHERE id = ?', [sceneId]);
    if (!scene) return null;
    const rows = await this.sql.query<{ id: string }>(
      `SELECT m.id FROM memcells c ${CELL_TURNS} WHERE c.scene_id = ? AND c.status = 'synthesised' ORDER BY c.start_at, m.seq`,
      [sceneId],
    );
    return rows.map((r) => r.id);
  }

  async themeWithTurns(turnIds: readonly string[]): Promise<{ id: string; summary: string | null } | null> {
    const want = new Set(turnIds);
    if (want.size === 0) return null;
    const [found] = await this.sql.query<{ scene_id: string; summary: string | null }>(
      `SELECT c.scene_id, s.summary FROM messages m JOIN memcells c ON c.conversation_id = m.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq
         JOIN memscenes s ON s.id = c.scene_id WHERE m.id = ? LIMIT 1`,
      [turnIds[0]!],
    );
    if (!found) return null;
    const held = await this.themeTurnIds(found.scene_id);
    return held && held.length === want.size && held.every((id) => want.has(id)) ? { id: found.scene_id, summary: found.summary } : null;
  }

  async storedTheme(sceneId: string): Promise<DerivedTheme | null> {
    const [s] = await this.sql.query<{ title: string | null; summary: string | null; summary_forgotten: number }>(
      'SELECT title, summary, summary_forgotten FROM memscenes WHERE id = ?',
      [sceneId],
    );
    return s && s.summary && Number(s.summary_forgotten) === 0 ? { title: s.title ?? '', summary: s.summary } : null;
  }

  async summarisedThemeIds(): Promise<string[]> {
    return (
      await this.sql.query<{ id: string }>(
        "SELECT id FROM memscenes WHERE summary IS NOT NULL AND summary <> '' AND summary_forgotten = 0 ORDER BY rowid",
      )
    ).map((r) => r.id);
  }

  async factByRef(ref: FactRef): Promise<string | null> {
    const [row] = await this.sql.query<{ id: string }>(
      `SELECT f.id FROM facts f JOIN memcells c ON c.id = f.memcell_id
         JOIN messages m ON m.id = ? AND m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq
        WHERE f.content = ? LIMIT 1`,
      [ref.turnId, ref.content],
    );
    return row?.id ?? null;
  }
}
