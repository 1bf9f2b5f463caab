/**
 * Which side of a project-only wall memory lies on, for the write path: theme clustering
 * (core/episodes/Lifecycle.ts) keeps a theme to one side, and the profile update
 * (core/synthesis/profileUpdate.ts) sends each side's themes and profile items in separate requests.
 * A side is the project-only project's id; memory of any other chat (no project, or a shared
 * project) is on the shared side, which these maps leave out.
 */
import type { Sql } from '../core/base/sql';
import { MESSAGE_EVIDENCE } from '../core/synthesis/knowledge';

const CHUNK = 500;
const WALLED = "JOIN conversations cv ON cv.id = {col} JOIN projects p ON p.id = cv.project_id AND p.memory = 'project-only'";

async function chunked(sql: Sql, ids: readonly string[], query: (marks: string) => string, into: Map<string, string>, prefix = '') {
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    const rows = await sql.query<{ id: string; wall: string }>(query(chunk.map(() => '?').join(', ')), chunk);
    for (const r of rows) into.set(prefix + r.id, r.wall);
  }
}

/** For each evidence entry (an episode id, or `message:<id>`) behind a wall, the project it is walled in. */
export async function wallsOfEvidence(sql: Sql, evidence: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const cells = evidence.filter((e) => !e.startsWith(MESSAGE_EVIDENCE));
  const messages = evidence.filter((e) => e.startsWith(MESSAGE_EVIDENCE)).map((e) => e.slice(MESSAGE_EVIDENCE.length));
  await chunked(
    sql,
    cells,
    (marks) => `SELECT c.id AS id, p.id AS wall FROM memcells c ${WALLED.replace('{col}', 'c.conversation_id')} WHERE c.id IN (${marks})`,
    out,
  );
  await chunked(
    sql,
    messages,
    (marks) => `SELECT m.id AS id, p.id AS wall FROM messages m ${WALLED.replace('{col}', 'm.conversation_id')} WHERE m.id IN (${marks})`,
    out,
    MESSAGE_EVIDENCE,
  );
  return out;
}

/** The sides of each theme's members ('' for the shared side), and the side of a conversation. */
export async function sceneSides(sql: Sql, conversationId: string): Promise<{ own: string; scenes: Map<string, Set<string>> }> {
  const [own] = await sql.query<{ wall: string }>(
    `SELECT p.id AS wall FROM conversations cv JOIN projects p ON p.id = cv.project_id AND p.memory = 'project-only' WHERE cv.id = ?`,
    [conversationId],
  );
  const rows = await sql.query<{ scene_id: string; wall: string | null }>(
    `SELECT DISTINCT c.scene_id AS scene_id, p.id AS wall FROM memcells c JOIN conversations cv ON cv.id = c.conversation_id
       LEFT JOIN projects p ON p.id = cv.project_id AND p.memory = 'project-only' WHERE c.scene_id IS NOT NULL`,
  );
  const scenes = new Map<string, Set<string>>();
  for (const r of rows) {
    const set = scenes.get(r.scene_id) ?? new Set<string>();
    set.add(r.wall ?? '');
    scenes.set(r.scene_id, set);
  }
  return { own: own?.wall ?? '', scenes };
}

/**
 * Themes whose episodes lie on more than one side of a wall, each as its members by side ('' for
 * the shared side). Clustering never makes one; moving a chat into or out of a project-only
 * project after its episodes joined a theme does (core/explorer/ExplorerService.splitMixedScenes).
 */
export async function mixedScenes(sql: Sql): Promise<{ sceneId: string; sides: Map<string, string[]> }[]> {
  const rows = await sql.query<{ scene_id: string; id: string; wall: string }>(
    `WITH sided AS (
       SELECT c.scene_id, c.id, coalesce(p.id, '') AS wall FROM memcells c JOIN conversations cv ON cv.id = c.conversation_id
         LEFT JOIN projects p ON p.id = cv.project_id AND p.memory = 'project-only'
        WHERE c.scene_id IS NOT NULL AND EXISTS (SELECT 1 FROM projects WHERE memory = 'project-only'))
     SELECT scene_id, id, wall FROM sided
      WHERE scene_id IN (SELECT scene_id FROM sided GROUP BY scene_id HAVING count(DISTINCT wall) > 1)
      ORDER BY scene_id, id`,
  );
  const out = new Map<string, Map<string, string[]>>();
  for (const r of rows) {
    const sides = out.get(r.scene_id) ?? new Map<string, string[]>();
    sides.set(r.wall, [...(sides.get(r.wall) ?? []), r.id]);
    out.set(r.scene_id, sides);
  }
  return [...out].map(([sceneId, sides]) => ({ sceneId, sides }));
}
