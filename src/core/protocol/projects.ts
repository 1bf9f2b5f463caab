/**
 * Projects (core/engine/Projects.ts): grouping, instructions and the memory walls of project-only
 * projects. Changes emit conversations-changed.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.projects.…`.
 */
import type { Project, ProjectEdit, ProjectInput } from '../base/types';

export interface ProjectsApi {
  /** Projects, archived last (core/engine/Projects.ts). Changes emit conversations-changed. */
  list(): Promise<Project[]>;
  /** A new project; its memory mode is chosen here, once. */
  create(input: ProjectInput): Promise<Project>;
  /** Rename, instructions, the profile switch of a project-only project, archive / unarchive. */
  edit(id: string, patch: ProjectEdit): Promise<Project>;
  /** Deletes a project: its chats go to no project ('keep') or are deleted with it ('delete'). */
  delete(id: string, chats: 'keep' | 'delete'): Promise<{ readonly deletedConversations: number }>;
  /** Moves a chat into a project, or out of any (null); its memory follows it. */
  move(conversationId: string, projectId: string | null): Promise<void>;
}
