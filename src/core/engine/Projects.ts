/**
 * Projects as the engine offers them: create (the memory mode is chosen here, once), rename, set
 * instructions, the profile switch of a project-only project, archive and unarchive, delete (the
 * person chooses whether its chats go to no project or are deleted with it), move a chat into or
 * out of a project, and the memory an answer in a given chat may read (memoryScope.ts).
 *
 * Moving a chat moves its memory with it: its turns, episodes and facts are read by the scope of
 * wherever the chat is now, at the next answer (scopes are computed per answer, never cached), and
 * a theme its episodes shared with the other side of a project-only wall is split in two.
 */
import { RecollectError } from '../base/errors';
import { MAX_TITLE_CHARS } from '../base/limits';
import { formatCount } from '../base/numbers';
import type { Project, ProjectEdit, ProjectInput, ProjectMemoryMode } from '../base/types';
import type { ImportedProject } from '../base/historyImport';

import type { SyncNotes } from './Conversations';
export type { ProjectEdit, ProjectInput };
import type { EngineEvent } from '../protocol';
import { answerScopeOf, type AnswerScope } from '../recall/memoryScope';
import type { ProjectStore } from './projectStore';

/** Instructions are a few paragraphs; a pasted book is a mistake. */
export const MAX_PROJECT_INSTRUCTIONS = 8_000;

export interface ProjectsDeps {
  readonly store: ProjectStore;
  readonly newId: () => string;
  readonly emit: (event: EngineEvent) => void;
  /** Conversations were deleted with their project: indexes and open episodes forget them. */
  readonly conversationsDeleted: (ids: readonly string[]) => void;
  /** Sync: told what changed (a project, a chat's project, turns deleted with a project). */
  readonly synced?: SyncNotes;
  /** The conversations in a project and their turn ids (what sync is told a deletion removes). */
  readonly contents?: (projectId: string) => Promise<{ readonly conversationIds: string[]; readonly turnIds: string[] }>;
  /** Chats crossed a project-only wall: themes left holding both sides are split (ExplorerService.splitMixedScenes). */
  readonly wallsMoved?: () => Promise<unknown>;
}

function cleanName(name: unknown): string {
  if (typeof name !== 'string') throw new RecollectError('INVALID_INPUT', 'A project needs a name.');
  const t = name.replace(/\s+/g, ' ').trim();
  if (!t) throw new RecollectError('INVALID_INPUT', 'A project needs a name.');
  if (t.length > MAX_TITLE_CHARS)
    throw new RecollectError('INVALID_INPUT', `A project name is at most ${MAX_TITLE_CHARS} characters (this one has ${t.length}).`);
  return t;
}

function cleanInstructions(text: unknown): string {
  if (text === undefined) return '';
  if (typeof text !== 'string') throw new RecollectError('INVALID_INPUT', 'Project instructions must be text.');
  const t = text.trim();
  if (t.length > MAX_PROJECT_INSTRUCTIONS) {
    throw new RecollectError(
      'INVALID_INPUT',
      `Project instructions are at most ${formatCount(MAX_PROJECT_INSTRUCTIONS)} characters (these have ${formatCount(t.length)}); shorten them, they are sent with every answer.`,
    );
  }
  return t;
}

/** A source's project name as a name here: spaces collapsed, cut to the limit (an import does not fail on a long name). */
function importedName(name: string): string {
  return name.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS).trim() || 'Imported project';
}

function flag(value: unknown, what: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new RecollectError('INVALID_INPUT', `${what} must be on or off.`);
  return value;
}

export class Projects {
  readonly #d: ProjectsDeps;

  constructor(deps: ProjectsDeps) {
    this.#d = deps;
  }

  list(): Promise<Project[]> {
    return this.#d.store.listProjects();
  }
  get(id: string): Promise<Project | null> {
    return this.#d.store.getProject(id);
  }

  async create(input: ProjectInput): Promise<Project> {
    const memory = input?.memory;
    if (memory !== 'shared' && memory !== 'project-only')
      throw new RecollectError('INVALID_INPUT', 'Choose how the project uses memory: shared or project-only.');
    const created = await this.#d.store.createProject({
      id: this.#d.newId(),
      name: cleanName(input.name),
      instructions: cleanInstructions(input.instructions),
      memory,
      useProfile: flag(input.useProfile, 'Use the profile') ?? true,
    });
    this.#changed(created.id);
    return created;
  }

  /** A project made on another device (sync), under its id and with the memory mode chosen there. */
  async adopt(p: {
    id: string;
    name: string;
    instructions: string;
    memory: ProjectMemoryMode;
    useProfile: boolean;
    archived: boolean;
  }): Promise<void> {
    await this.#d.store.createProject({
      id: p.id,
      name: importedName(p.name),
      instructions: p.instructions.slice(0, MAX_PROJECT_INSTRUCTIONS),
      memory: p.memory === 'project-only' ? 'project-only' : 'shared',
      useProfile: p.useProfile,
    });
    if (p.archived) await this.#d.store.updateProject(p.id, { archived: true });
    this.#changed(p.id);
  }

  async edit(id: string, patch: ProjectEdit): Promise<Project> {
    if ((patch as { memory?: unknown }).memory !== undefined) {
      throw new RecollectError(
        'INVALID_INPUT',
        "A project's memory mode is chosen when it is created and cannot be changed; create a new project and move the chats.",
      );
    }
    const useProfile = flag(patch.useProfile, 'Use the profile');
    const archived = flag(patch.archived, 'Archived');
    const updated = await this.#d.store.updateProject(id, {
      ...(patch.name !== undefined ? { name: cleanName(patch.name) } : {}),
      ...(patch.instructions !== undefined ? { instructions: cleanInstructions(patch.instructions) } : {}),
      ...(useProfile !== undefined ? { useProfile } : {}),
      ...(archived !== undefined ? { archived } : {}),
    });
    this.#changed(id);
    return updated;
  }

  /**
   * The project a history import puts a source project's chats in: the one an earlier import made
   * from the same source project (found by its source id, kept as the person may have renamed it),
   * or a new one with `memory`. A name too long is cut; instructions too long are left out (said
   * in `instructionsLeftOut`) rather than failing the import.
   */
  async fromSource(
    source: ImportedProject,
    memory: ProjectMemoryMode,
  ): Promise<{ project: Project; created: boolean; instructionsLeftOut: boolean }> {
    const existing = await this.#d.store.projectBySource(source.sourceId);
    if (existing) return { project: existing, created: false, instructionsLeftOut: false };
    const name = importedName(source.name);
    const instructions = (source.instructions ?? '').trim();
    const fits = instructions.length <= MAX_PROJECT_INSTRUCTIONS;
    const project = await this.#d.store.createProject({
      id: this.#d.newId(),
      name,
      instructions: fits ? instructions : '',
      memory: memory === 'project-only' ? 'project-only' : 'shared',
      useProfile: true,
      sourceId: source.sourceId,
    });
    this.#changed(project.id);
    return { project, created: true, instructionsLeftOut: !fits };
  }

  /** An imported project's name and instructions from the export's own list (instructions too long are left out). */
  async describeImported(id: string, source: ImportedProject): Promise<{ instructionsLeftOut: boolean }> {
    const instructions = (source.instructions ?? '').trim();
    const fits = instructions.length <= MAX_PROJECT_INSTRUCTIONS;
    await this.#d.store.updateProject(id, { name: importedName(source.name), ...(fits && instructions ? { instructions } : {}) });
    this.#changed(id);
    return { instructionsLeftOut: !fits };
  }

  /** 'keep': the chats go to no project (a project-only project's memory becomes shared); 'delete': they are deleted too. */
  async delete(id: string, chats: 'keep' | 'delete'): Promise<{ readonly deletedConversations: number }> {
    if (chats !== 'keep' && chats !== 'delete')
      throw new RecollectError('INVALID_INPUT', "Say what happens to the project's chats: keep them (in no project) or delete them.");
    const synced = this.#d.synced?.on ? this.#d.synced : null;
    const held = synced && this.#d.contents ? await this.#d.contents(id) : null;
    const deleted = await this.#d.store.deleteProject(id, chats);
    if (synced && held) {
      if (chats === 'delete') {
        synced.noteTurnsDeleted(held.turnIds);
        for (const c of held.conversationIds) synced.noteVersionsGone(c);
      } else for (const c of held.conversationIds) synced.noteConversation(c);
    }
    if (deleted.length) {
      this.#d.conversationsDeleted(deleted);
      for (const c of deleted) this.#d.emit({ type: 'messages-changed', conversationId: c });
      this.#d.emit({ type: 'memory-changed' });
    }
    await this.#d.wallsMoved?.();
    this.#changed(id);
    return { deletedConversations: deleted.length };
  }

  async move(conversationId: string, projectId: string | null): Promise<void> {
    if (projectId !== null && typeof projectId !== 'string') throw new RecollectError('INVALID_INPUT', 'Choose a project, or none.');
    await this.#d.store.moveConversation(conversationId, projectId);
    this.#d.synced?.noteConversation(conversationId);
    await this.#d.wallsMoved?.();
    this.#changed();
  }

  /** What an answer in this conversation may read, and the project instructions it is sent with. */
  async answerScope(conversationId: string): Promise<AnswerScope> {
    const [project, walled] = await Promise.all([this.#d.store.projectOf(conversationId), this.#d.store.walledProjects()]);
    return answerScopeOf(project, walled);
  }

  /** `projectId`: the project written (sync records it if it differs from what the synced log says). */
  #changed(projectId?: string): void {
    if (projectId) this.#d.synced?.noteProject(projectId);
    this.#d.emit({ type: 'conversations-changed' });
  }
}
