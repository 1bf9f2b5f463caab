/**
 * The explorer's search candidates over SQL: per kind, FTS5 matches in BM25 order (scenes, with
 * no FTS table, by a LIKE per word) and look-ups by id for hits found by meaning, with the
 * explorer's filters applied. Candidates only: core's hybridSearch ranks them.
 */
import type { Sql, SqlRow, SqlValue } from '../core/base/sql';
import type { MemoryKind, MemorySearchFilters, SearchCandidate } from '../core/explorer/explorer';
import { terms } from '../core/base/text';
import { toFtsQuery } from './ftsQuery';
import { IN_CHUNK, marks, num, numOrNull, str, strOrNull, clip } from './explorerRows';
import { episodeName } from '../core/explorer/episodeLabel';

function filterSql(kind: MemoryKind, f: MemorySearchFilters): { where: string[]; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const time = {
    turn: ['m.occurred_at', 'm.occurred_at'],
    fact: ['coalesce(f.occurred_at, c.start_at)', 'coalesce(f.occurred_at, c.end_at)'],
    episode: ['c.start_at', 'c.end_at'],
    scene: ['s.last_activity_at', 's.last_activity_at'],
  }[kind];
  if (f.from !== undefined) {
    where.push(`${time[1]} >= ?`);
    params.push(f.from);
  }
  if (f.to !== undefined) {
    where.push(`${time[0]} <= ?`);
    params.push(f.to);
  }
  if (f.conversationId) {
    if (kind === 'turn') where.push('m.conversation_id = ?');
    else if (kind === 'scene') where.push('EXISTS (SELECT 1 FROM memcells x WHERE x.scene_id = s.id AND x.conversation_id = ?)');
    else where.push('c.conversation_id = ?');
    params.push(f.conversationId);
  }
  if (f.project !== undefined) {
    // `IS ?` matches a project's id, or (null) chats in no project.
    const inProject = (column: string) => `${column} IN (SELECT id FROM conversations WHERE project_id IS ?)`;
    if (kind === 'turn') where.push(inProject('m.conversation_id'));
    else if (kind === 'scene')
      where.push(`EXISTS (SELECT 1 FROM memcells x WHERE x.scene_id = s.id AND ${inProject('x.conversation_id')})`);
    else where.push(inProject('c.conversation_id'));
    params.push(f.project);
  }
  if (f.speaker) {
    if (kind === 'turn') where.push('m.speaker = ?');
    else if (kind === 'fact') where.push('f.speaker = ?');
    else if (kind === 'episode')
      where.push(
        'EXISTS (SELECT 1 FROM messages x WHERE x.conversation_id = c.conversation_id AND x.seq BETWEEN c.first_seq AND c.last_seq AND x.speaker = ?)',
      );
    else where.push('0 AND ? IS NOT NULL'); // scenes have no speaker
    params.push(f.speaker);
  }
  return { where, params };
}

const SELECT = {
  turn: `SELECT m.id, m.conversation_id, m.speaker, m.content, m.occurred_at,
      (SELECT c.id FROM memcells c WHERE c.conversation_id = m.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq LIMIT 1) AS memcell_id`,
  fact: 'SELECT f.id, f.memcell_id, f.speaker, f.content, coalesce(f.occurred_at, c.start_at) AS occurred_at, c.conversation_id',
  episode: 'SELECT c.id, c.conversation_id, c.title, c.narrative, c.start_at',
  scene: 'SELECT s.id, s.title, s.summary, s.last_activity_at',
};

function toCandidate(kind: MemoryKind, r: SqlRow): SearchCandidate {
  switch (kind) {
    case 'turn':
      return {
        kind,
        id: str(r.id),
        title: `${str(r.speaker)}`,
        text: str(r.content),
        occurredAt: num(r.occurred_at),
        conversationId: str(r.conversation_id),
        memcellId: strOrNull(r.memcell_id),
        speaker: str(r.speaker),
        fields: { text: str(r.content), speaker: str(r.speaker) },
      };
    case 'fact':
      return {
        kind,
        id: str(r.id),
        title: str(r.speaker),
        text: str(r.content),
        occurredAt: numOrNull(r.occurred_at),
        conversationId: str(r.conversation_id),
        memcellId: str(r.memcell_id),
        speaker: str(r.speaker),
        fields: { fact: str(r.content), speaker: str(r.speaker) },
      };
    case 'episode':
      return {
        kind,
        id: str(r.id),
        title: episodeName({ title: strOrNull(r.title), narrative: strOrNull(r.narrative) }),
        text: clip(str(r.narrative)),
        occurredAt: num(r.start_at),
        conversationId: str(r.conversation_id),
        memcellId: str(r.id),
        speaker: null,
        fields: { title: str(r.title), narrative: str(r.narrative) },
      };
    case 'scene':
      return {
        kind,
        id: str(r.id),
        title: str(r.title) || 'Untitled scene',
        text: clip(str(r.summary)),
        occurredAt: numOrNull(r.last_activity_at),
        conversationId: null,
        memcellId: null,
        speaker: null,
        fields: { title: str(r.title), summary: str(r.summary) },
      };
  }
}

export async function searchKind(
  sql: Sql,
  kind: MemoryKind,
  query: string,
  filters: MemorySearchFilters,
  limit: number,
): Promise<SearchCandidate[]> {
  const match = toFtsQuery(query);
  if (match === null) return [];
  const { where, params } = filterSql(kind, filters);
  const extra = where.length ? ` AND ${where.join(' AND ')}` : '';
  let text: string;
  let args: SqlValue[];
  switch (kind) {
    case 'turn':
      text = `${SELECT.turn} FROM messages_fts JOIN messages m ON m.pk = messages_fts.rowid WHERE messages_fts MATCH ?${extra} ORDER BY bm25(messages_fts) LIMIT ?`;
      args = [match, ...params, limit];
      break;
    case 'fact':
      text = `${SELECT.fact} FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid JOIN memcells c ON c.id = f.memcell_id WHERE facts_fts MATCH ?${extra} ORDER BY bm25(facts_fts) LIMIT ?`;
      args = [match, ...params, limit];
      break;
    case 'episode':
      text = `${SELECT.episode} FROM memcells_fts JOIN memcells c ON c.rowid = memcells_fts.rowid WHERE memcells_fts MATCH ?${extra} ORDER BY bm25(memcells_fts) LIMIT ?`;
      args = [match, ...params, limit];
      break;
    case 'scene': {
      // Few scenes and no FTS table of their own: a LIKE per word is enough.
      const words = terms(query)
        .filter((t) => t.length >= 2)
        .slice(0, 8);
      if (words.length === 0) return [];
      const like = words.map(() => "(lower(coalesce(s.title, '')) LIKE ? OR lower(coalesce(s.summary, '')) LIKE ?)").join(' OR ');
      text = `${SELECT.scene} FROM memscenes s WHERE (${like})${extra} ORDER BY s.heat DESC, s.id LIMIT ?`;
      args = [...words.flatMap((t) => [`%${t}%`, `%${t}%`]), ...params, limit];
      break;
    }
  }
  return (await sql.query(text, args)).map((r) => toCandidate(kind, r));
}

export async function candidatesByIds(
  sql: Sql,
  kind: MemoryKind,
  ids: readonly string[],
  filters: MemorySearchFilters,
): Promise<SearchCandidate[]> {
  const out: SearchCandidate[] = [];
  const { where, params } = filterSql(kind, filters);
  const extra = where.length ? ` AND ${where.join(' AND ')}` : '';
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const chunk = ids.slice(i, i + IN_CHUNK);
    const from = {
      turn: `FROM messages m WHERE m.id IN (${marks(chunk.length)})`,
      fact: `FROM facts f JOIN memcells c ON c.id = f.memcell_id WHERE f.id IN (${marks(chunk.length)})`,
      episode: `FROM memcells c WHERE c.id IN (${marks(chunk.length)})`,
      scene: `FROM memscenes s WHERE s.id IN (${marks(chunk.length)})`,
    }[kind];
    out.push(...(await sql.query(`${SELECT[kind]} ${from}${extra}`, [...chunk, ...params])).map((r) => toCandidate(kind, r)));
  }
  return out;
}
