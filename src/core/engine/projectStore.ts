/**
 * What the engine needs from storage for projects (src/storage/projectRepo.ts implements it).
 * A project's memory mode is set once, at creation: changing it later would silently expose a
 * project-only project's memory everywhere (or wall off what shared chats already used).
 */
import type { Project, ProjectMemoryMode, WalledProject } from '../base/types';

export type { WalledProject };

export interface NewProject {
  readonly id: string;
  readonly name: string;
  readonly instructions: string;
  readonly memory: ProjectMemoryMode;
  readonly useProfile: boolean;
  /** The source service's project id, for a project a history import made. */
  readonly sourceId?: string;
}

export interface ProjectPatch {
  readonly name?: string;
  readonly instructions?: string;
  readonly useProfile?: boolean;
  readonly archived?: boolean;
}

export interface ProjectStore {
  listProjects(): Promise<Project[]>;
  getProject(id: string): Promise<Project | null>;
  /** The project an earlier history import made from this source project, or null. */
  projectBySource(sourceId: string): Promise<Project | null>;
  createProject(input: NewProject): Promise<Project>;
  /** NOT_FOUND when the project is gone. */
  updateProject(id: string, patch: ProjectPatch): Promise<Project>;
  /**
   * Deletes the project row. 'keep': its chats stay, in no project. 'delete': its chats are
   * deleted with it (their turns, episodes and what was derived from them), in one transaction.
   * Returns the ids of the conversations deleted.
   */
  deleteProject(id: string, chats: 'keep' | 'delete'): Promise<string[]>;
  /** Moves a conversation into a project (or out of any with null). NOT_FOUND for a missing one. */
  moveConversation(conversationId: string, projectId: string | null): Promise<void>;
  /** The project of a conversation, or null. */
  projectOf(conversationId: string): Promise<Project | null>;
  /** Every project-only project with its chats. */
  walledProjects(): Promise<WalledProject[]>;
}
