/**
 * The project dialog: create a project (name, instructions, and the memory mode, chosen once),
 * or edit one (name, instructions, the profile switch of a project-only project, archive, delete).
 * Deleting says first what happens to the project's chats and lets the person choose: move them
 * out to no project (a project-only project's memory then joins shared memory), or delete them.
 * Also the move dialog of a conversation's row, which says what moving does to its memory.
 */
import { formatCount } from '../../core/base/numbers';
import { useState } from 'react';
import type { Conversation, Project, ProjectMemoryMode } from '../../core/base/types';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { Dialog } from './Dialog';

export const MEMORY_MODE_TEXT: Record<ProjectMemoryMode, string> = {
  shared: 'Shared memory: chats here use everything Recollect remembers, and what is said here is remembered everywhere.',
  'project-only':
    'Project-only memory: chats here recall only this project’s chats, and nothing said here is ever recalled outside the project.',
};

export function ProjectDialog({ project, onClose }: { readonly project: Project | null; readonly onClose: () => void }) {
  const [name, setName] = useState(project?.name ?? '');
  const [instructions, setInstructions] = useState(project?.instructions ?? '');
  const [memory, setMemory] = useState<ProjectMemoryMode>(project?.memory ?? 'shared');
  const [useProfile, setUseProfile] = useState(project?.useProfile ?? true);
  const [chats, setChats] = useState<'keep' | 'delete'>('keep');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const selectProject = useUi((s) => s.selectProject);
  const selectedProject = useUi((s) => s.selectedProjectId);
  const create = useEngineMutation((c, v: { name: string; instructions: string; memory: ProjectMemoryMode; useProfile: boolean }) =>
    c.engine.projects.create(v),
  );
  const edit = useEngineMutation(
    (c, v: { id: string; patch: { name?: string; instructions?: string; useProfile?: boolean; archived?: boolean } }) =>
      c.engine.projects.edit(v.id, v.patch),
  );
  const remove = useEngineMutation((c, v: { id: string; chats: 'keep' | 'delete' }) => c.engine.projects.delete(v.id, v.chats));
  const busy = create.isPending || edit.isPending || remove.isPending;

  const save = async () => {
    try {
      if (project) {
        await edit.mutateAsync({
          id: project.id,
          patch: { name, instructions, ...(project.memory === 'project-only' ? { useProfile } : {}) },
        });
      } else {
        const created = await create.mutateAsync({ name, instructions, memory, useProfile });
        selectProject(created.id);
      }
      onClose();
    } catch {
      // The mutation reported why; the dialog stays open with what was typed.
    }
  };
  const n = project?.conversationCount ?? 0;
  const chatsWord = `${formatCount(n)} ${n === 1 ? 'chat' : 'chats'}`;

  return (
    <Dialog
      title={project ? `Project “${project.name}”` : 'New project'}
      onClose={onClose}
      closeLabel="Close project dialog"
      testId="project-dialog"
    >
      <form
        className="project-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          Name <input data-autofocus value={name} maxLength={200} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Instructions (sent with every answer in this project)
          <textarea
            rows={4}
            value={instructions}
            maxLength={8000}
            onChange={(e) => setInstructions(e.target.value)}
            placeholder="For example: answer in British English; I am writing a thesis on soil moisture."
          />
        </label>
        <fieldset disabled={project !== null}>
          <legend>Memory {project ? '(chosen when the project was created)' : '(chosen now, cannot be changed later)'}</legend>
          {(['shared', 'project-only'] as const).map((mode) => (
            <label key={mode} className="choice">
              <input type="radio" name="project-memory" value={mode} checked={memory === mode} onChange={() => setMemory(mode)} />
              {MEMORY_MODE_TEXT[mode]}
            </label>
          ))}
        </fieldset>
        {memory === 'project-only' && (
          <label className="choice">
            <input type="checkbox" checked={useProfile} onChange={(e) => setUseProfile(e.target.checked)} />
            Answers here may also use what Recollect knows about you (your profile and saved memories)
          </label>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || !name.trim()}>
            {project ? 'Save' : 'Create project'}
          </button>
          {project && (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void edit.mutateAsync({ id: project.id, patch: { archived: !project.archived } }).then(onClose, () => undefined)
              }
            >
              {project.archived ? 'Unarchive' : 'Archive'}
            </button>
          )}
        </div>
      </form>
      {project && (
        <section className="project-delete" aria-label="Delete project">
          <h3>Delete this project</h3>
          <p>
            It has {chatsWord}. What should happen to {n === 1 ? 'it' : 'them'}?
          </p>
          <label className="choice">
            <input type="radio" name="project-chats" checked={chats === 'keep'} onChange={() => setChats('keep')} />
            Move {n === 1 ? 'it' : 'them'} out to no project
            {project.memory === 'project-only' ? ' — their memory then becomes shared and is recalled in other chats' : ''}
          </label>
          <label className="choice">
            <input type="radio" name="project-chats" checked={chats === 'delete'} onChange={() => setChats('delete')} />
            Delete {n === 1 ? 'it' : 'them'} too, with everything remembered from {n === 1 ? 'it' : 'them'} (cannot be undone)
          </label>
          {confirmDelete ? (
            <div className="actions" role="group" aria-label="Confirm deleting the project">
              <button
                type="button"
                className="danger"
                disabled={busy}
                onClick={() =>
                  void remove.mutateAsync({ id: project.id, chats }).then(
                    () => {
                      if (selectedProject === project.id) selectProject(null);
                      onClose();
                    },
                    () => undefined,
                  )
                }
              >
                {chats === 'delete' ? `Delete project and ${chatsWord}` : 'Delete project, keep its chats'}
              </button>
              <button type="button" onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
            </div>
          ) : (
            <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
              Delete project…
            </button>
          )}
        </section>
      )}
    </Dialog>
  );
}

/** What moving a chat does to its memory, said before it is moved. */
export function moveConsequence(from: Project | null, to: Project | null): string {
  if (from?.id === to?.id) return 'The chat is already here.';
  const leaving = from?.memory === 'project-only' ? `Its memory leaves “${from.name}”: ` : 'Its memory moves with it: ';
  if (to?.memory === 'project-only')
    return `${leaving}from now on it is recalled only inside “${to.name}”, and answers in it recall only that project’s memory.`;
  return `${leaving}from now on it is shared memory, recalled in any chat outside project-only projects${to ? `, and answers in it follow “${to.name}”’s instructions` : ''}.`;
}

export function MoveConversationDialog({ conversation, onClose }: { readonly conversation: Conversation; readonly onClose: () => void }) {
  const projects = useEngineQuery((q) => q.projects());
  const list = projects.data ?? [];
  const [target, setTarget] = useState<string>(conversation.projectId ?? '');
  const move = useEngineMutation((c, v: { id: string; projectId: string | null }) => c.engine.projects.move(v.id, v.projectId));
  const from = list.find((p) => p.id === conversation.projectId) ?? null;
  const to = list.find((p) => p.id === target) ?? null;
  return (
    <Dialog title={`Move “${conversation.title}”`} onClose={onClose} closeLabel="Close move dialog" testId="move-dialog">
      <form
        className="project-form"
        onSubmit={(e) => {
          e.preventDefault();
          void move.mutateAsync({ id: conversation.id, projectId: target || null }).then(onClose, () => undefined);
        }}
      >
        <label>
          Project
          <select data-autofocus value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">No project</option>
            {list.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
                {p.memory === 'project-only' ? ' (project-only memory)' : ''}
                {p.archived ? ' (archived)' : ''}
              </option>
            ))}
          </select>
        </label>
        <p className="muted" data-testid="move-consequence">
          {moveConsequence(from, to)}
        </p>
        <div className="actions">
          <button type="submit" className="primary" disabled={move.isPending || (from?.id ?? '') === target}>
            Move
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
