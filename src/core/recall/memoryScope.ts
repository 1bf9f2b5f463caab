/**
 * Which memory an answer may read, by project (core/engine/Projects.ts). A scope is a set of
 * conversations, because every memory item leads back to conversations: a turn is in one, an
 * episode covers turns of one, a fact and a plan belong to an episode, and a profile item lists
 * the episodes it was derived from as evidence.
 *
 * - In a project-only project: `only` its own chats; the profile only when the project allows it,
 *   and even then not the items derived from another project-only project (`without`).
 * - Anywhere else (no project, or a shared project): everything except the chats of project-only
 *   projects (`without`), including profile items and plans derived from them.
 * - No project-only project exists: no scope at all (undefined), and every read is exactly the
 *   query it was before projects existed (the recall benchmark pins this).
 */
import type { Project, WalledProject } from '../base/types';

export interface MemoryScope {
  /** Only memory from these conversations (a project-only project's chats). */
  readonly only?: readonly string[];
  /** Never memory from these conversations (the chats of project-only projects, seen from outside). */
  readonly without?: readonly string[];
  /** Whether profile items (and plans not tied to an episode) may be read at all. */
  readonly profile: boolean;
}

/** What an answer in one conversation reads and is told, by its project. */
export interface AnswerScope {
  readonly scope?: MemoryScope;
  readonly project?: { readonly id: string; readonly name: string; readonly memory: Project['memory']; readonly instructions: string };
}

export function answerScopeOf(project: Project | null, walled: readonly WalledProject[]): AnswerScope {
  const about = project
    ? { project: { id: project.id, name: project.name, memory: project.memory, instructions: project.instructions } }
    : {};
  if (project?.memory === 'project-only') {
    const own = walled.find((w) => w.projectId === project.id)?.conversationIds ?? [];
    const others = walled.filter((w) => w.projectId !== project.id).flatMap((w) => w.conversationIds);
    return { ...about, scope: { only: own, ...(others.length ? { without: others } : {}), profile: project.useProfile } };
  }
  const without = walled.flatMap((w) => w.conversationIds);
  return without.length ? { ...about, scope: { without, profile: true } } : about;
}

/** Whether memory from `conversationId` may be read under `scope` (no scope: yes). */
export function inMemoryScope(scope: MemoryScope | undefined, conversationId: string): boolean {
  if (!scope) return true;
  if (scope.only && !scope.only.includes(conversationId)) return false;
  return !scope.without?.includes(conversationId);
}
