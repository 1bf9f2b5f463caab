/** SQL for projects (schema v13; source ids v14) and for which project a conversation belongs to. */
import type { Sql, SqlRow } from '../core/base/sql';
import type { Project } from '../core/base/types';
import type { NewProject, ProjectPatch, ProjectStore, WalledProject } from '../core/engine/projectStore';
import type { Clock } from '../core/base/ports';
import { RecollectError } from '../core/base/errors';
import { deleteConversation, requireConversation } from './conversationRepo';
import type { WaSqliteDatabase } from './WaSqliteDatabase';

interface ProjectRow extends SqlRow {
  id: string;
  name: string;
  instructions: string;
  memory: string;
  use_profile: number;
  archived: number;
  created_at: number;
  updated_at: number;
  conversation_count: number;
}

const SELECT = `SELECT p.id, p.name, p.instructions, p.memory, p.use_profile, p.archived, p.created_at, p.updated_at,
  (SELECT count(*) FROM conversations c WHERE c.project_id = p.id) AS conversation_count
  FROM projects p`;

function toProject(r: ProjectRow): Project {
  return {
    id: r.id,
    name: r.name,
    instructions: r.instructions,
    memory: r.memory === 'project-only' ? 'project-only' : 'shared',
    useProfile: Number(r.use_profile) !== 0,
    archived: Number(r.archived) !== 0,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    conversationCount: Number(r.conversation_count),
  };
}

const gone = () => new RecollectError('NOT_FOUND', 'That project no longer exists.');

async function requireProject(sql: Sql, id: string): Promise<Project> {
  const [row] = await sql.query<ProjectRow>(`${SELECT} WHERE p.id = ?`, [id]);
  if (!row) throw gone();
  return toProject(row);
}

/** Puts a conversation in a project (null: in none), in the caller's transaction. */
export async function moveToProject(sql: Sql, conversationId: string, projectId: string | null): Promise<void> {
  await requireConversation(sql, conversationId);
  if (projectId !== null) await requireProject(sql, projectId);
  await sql.exec('UPDATE conversations SET project_id = ? WHERE id = ?', [projectId, conversationId]);
}

export class SqlProjectStore implements ProjectStore {
  readonly #db: WaSqliteDatabase;
  readonly #clock: Clock;

  constructor(db: WaSqliteDatabase, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async listProjects(): Promise<Project[]> {
    return (await this.#db.query<ProjectRow>(`${SELECT} ORDER BY p.archived, lower(p.name), p.id`)).map(toProject);
  }

  async getProject(id: string): Promise<Project | null> {
    const [row] = await this.#db.query<ProjectRow>(`${SELECT} WHERE p.id = ?`, [id]);
    return row ? toProject(row) : null;
  }

  async projectBySource(sourceId: string): Promise<Project | null> {
    const [row] = await this.#db.query<ProjectRow>(`${SELECT} WHERE p.source_id = ?`, [sourceId]);
    return row ? toProject(row) : null;
  }

  createProject(input: NewProject): Promise<Project> {
    const now = this.#clock.now();
    return this.#db.transaction(async (tx) => {
      await tx.exec(
        'INSERT INTO projects (id, name, instructions, memory, use_profile, archived, created_at, updated_at, source_id) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)',
        [input.id, input.name, input.instructions, input.memory, input.useProfile ? 1 : 0, now, now, input.sourceId ?? null],
      );
      return requireProject(tx, input.id);
    });
  }

  updateProject(id: string, patch: ProjectPatch): Promise<Project> {
    return this.#db.transaction(async (tx) => {
      await requireProject(tx, id);
      const sets: string[] = [];
      const params: (string | number)[] = [];
      if (patch.name !== undefined) {
        sets.push('name = ?');
        params.push(patch.name);
      }
      if (patch.instructions !== undefined) {
        sets.push('instructions = ?');
        params.push(patch.instructions);
      }
      if (patch.useProfile !== undefined) {
        sets.push('use_profile = ?');
        params.push(patch.useProfile ? 1 : 0);
      }
      if (patch.archived !== undefined) {
        sets.push('archived = ?');
        params.push(patch.archived ? 1 : 0);
      }
      if (sets.length)
        await tx.exec(`UPDATE projects SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`, [...params, this.#clock.now(), id]);
      return requireProject(tx, id);
    });
  }

  deleteProject(id: string, chats: 'keep' | 'delete'): Promise<string[]> {
    return this.#db.transaction(async (tx) => {
      await requireProject(tx, id);
      const ids = (await tx.query<{ id: string }>('SELECT id FROM conversations WHERE project_id = ? ORDER BY id', [id])).map((r) => r.id);
      if (chats === 'delete') for (const c of ids) await deleteConversation(tx, c);
      else await tx.exec('UPDATE conversations SET project_id = NULL WHERE project_id = ?', [id]);
      await tx.exec('DELETE FROM projects WHERE id = ?', [id]);
      return chats === 'delete' ? ids : [];
    });
  }

  moveConversation(conversationId: string, projectId: string | null): Promise<void> {
    return this.#db.transaction((tx) => moveToProject(tx, conversationId, projectId));
  }

  async projectOf(conversationId: string): Promise<Project | null> {
    const [row] = await this.#db.query<ProjectRow>(`${SELECT} JOIN conversations c0 ON c0.project_id = p.id WHERE c0.id = ?`, [
      conversationId,
    ]);
    return row ? toProject(row) : null;
  }

  async walledProjects(): Promise<WalledProject[]> {
    const rows = await this.#db.query<{ project_id: string; use_profile: number; conversation_id: string | null }>(
      `SELECT p.id AS project_id, p.use_profile, c.id AS conversation_id FROM projects p LEFT JOIN conversations c ON c.project_id = p.id
        WHERE p.memory = 'project-only' ORDER BY p.id, c.id`,
    );
    const out = new Map<string, { projectId: string; useProfile: boolean; conversationIds: string[] }>();
    for (const r of rows) {
      let w = out.get(r.project_id);
      if (!w) out.set(r.project_id, (w = { projectId: r.project_id, useProfile: Number(r.use_profile) !== 0, conversationIds: [] }));
      if (typeof r.conversation_id === 'string') w.conversationIds.push(r.conversation_id);
    }
    return [...out.values()];
  }
}
