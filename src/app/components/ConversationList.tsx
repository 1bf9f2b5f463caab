import { useState, type KeyboardEvent } from 'react';
import type { Conversation, Project } from '../../core/base/types';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { UNTITLED } from '../titles';
import { Icon } from './Icon';
import { ConfirmButton } from './ConfirmButton';
import { formatCount } from '../../core/base/numbers';
import { MoveConversationDialog, ProjectDialog } from './ProjectDialog';
import { useOpening } from './OwnershipBanner';

/**
 * "+ New conversation" (or "New chat" inside a project, which then belongs to it): reuses an empty
 * conversation of the same project rather than stacking identical empty ones.
 */
export function useStartConversation() {
  const conversations = useEngineQuery((q) => q.conversations());
  const create = useEngineMutation((c, v: { title: string; projectId: string | null }) => c.engine.conversations.create(v));
  const select = useUi((s) => s.selectConversation);
  const setSearchText = useUi((s) => s.setSearchText);
  const setStarting = useUi((s) => s.setStartingConversation);
  return async (projectId: string | null = null) => {
    setSearchText('');
    const empty = conversations.data?.find((c) => c.messageCount === 0 && c.projectId === projectId);
    if (empty) {
      select(empty.id);
      return;
    }
    // The conversation on screen goes at once: words typed while the engine creates the new one
    // must not land in the old one (right after a start the engine can take seconds to answer).
    setStarting(true);
    try {
      select((await create.mutateAsync({ title: UNTITLED, projectId })).id);
    } catch {
      // The mutation reported why; the user is left where they were.
    } finally {
      setStarting(false);
    }
  };
}

export function ConversationList() {
  const conversations = useEngineQuery((q) => q.conversations());
  const projects = useEngineQuery((q) => q.projects());
  const startNew = useStartConversation();
  const selected = useUi((s) => s.selectedConversationId);
  const selectedProject = useUi((s) => s.selectedProjectId);
  const selectProject = useUi((s) => s.selectProject);
  const temporaryChat = useUi((s) => s.temporaryChat);
  const setTemporaryChat = useUi((s) => s.setTemporaryChat);
  const opening = useOpening();
  // One Tab stop for the whole list (roving tabindex): the current row's buttons are in the Tab
  // order, the others are reached with the arrow keys, Home and End (across project groups).
  const [roving, setRoving] = useState<string | null>(null);
  /** Groups the person opened or closed; otherwise archived projects start closed, the rest open. */
  const [toggled, setToggled] = useState<Record<string, boolean>>({});
  const [dialog, setDialog] = useState<{ kind: 'project'; project: Project | null } | { kind: 'move'; conversation: Conversation } | null>(
    null,
  );
  const list = conversations.data ?? [];
  const projectList = projects.data ?? [];
  const known = new Set(projectList.map((p) => p.id));
  const loose = list.filter((c) => c.projectId === null || !known.has(c.projectId));
  const open = (p: Project) => toggled[p.id] ?? !p.archived;
  const visible = [...projectList.filter(open).flatMap((p) => list.filter((c) => c.projectId === p.id)), ...loose];
  const current = visible.some((c) => c.id === roving)
    ? roving
    : visible.some((c) => c.id === selected)
      ? selected
      : (visible[0]?.id ?? null);
  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!(e.target instanceof HTMLElement) || !e.target.classList.contains('conversation')) return;
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button.conversation')];
    const i = buttons.indexOf(e.target as HTMLButtonElement);
    const next =
      e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, next))]?.focus();
  };
  const row = (c: Conversation) => (
    <ConversationRow
      key={c.id}
      conversation={c}
      active={!temporaryChat && c.id === selected}
      tabbable={c.id === current}
      onFocus={() => setRoving(c.id)}
      onMove={() => setDialog({ kind: 'move', conversation: c })}
    />
  );

  return (
    // Inert while the memory opens: only the message box is usable then (OwnershipBanner.tsx).
    <nav className="sidebar" id="conversation-list" aria-label="Conversations" inert={opening}>
      <button type="button" className="primary" onClick={() => void startNew()}>
        + New conversation
      </button>
      {/* Turning temporary mode on is one way: a key pressed while this button has focus (Space,
          Enter) must never turn it off and send the rest of a private message into a stored
          conversation. It is left by choosing a conversation, "+ New conversation" or "Leave" in
          the temporary chat's banner; the message box takes focus at once (TemporaryChat). */}
      <button type="button" className={temporaryChat ? 'active' : ''} aria-pressed={temporaryChat} onClick={() => setTemporaryChat(true)}>
        {temporaryChat ? '✓ Temporary chat' : 'Temporary chat'}
      </button>
      <button type="button" onClick={() => setDialog({ kind: 'project', project: null })}>
        + New project
      </button>
      {conversations.data?.length === 0 && projectList.length === 0 && (
        <p className="empty">No conversations yet. Start one to store your first turn.</p>
      )}
      <div className="conversation-groups" onKeyDown={onListKey}>
        {projectList.map((p) => {
          const chats = list.filter((c) => c.projectId === p.id);
          const expanded = open(p);
          return (
            <section
              key={p.id}
              className={`project-group${selectedProject === p.id ? ' active' : ''}${p.archived ? ' archived' : ''}`}
              aria-label={`Project ${p.name}`}
              data-project={p.id}
            >
              <div className="project-head">
                <button
                  type="button"
                  className="toggle"
                  aria-expanded={expanded}
                  aria-label={`${expanded ? 'Collapse' : 'Expand'} ${p.name}`}
                  onClick={() => setToggled((t) => ({ ...t, [p.id]: !expanded }))}
                >
                  {expanded ? '▾' : '▸'}
                </button>
                <button
                  type="button"
                  className="project-name"
                  aria-current={selectedProject === p.id ? 'page' : undefined}
                  onClick={() => selectProject(p.id)}
                  title={p.memory === 'project-only' ? 'Project-only memory' : 'Shared memory'}
                >
                  {p.name}
                  {p.memory === 'project-only' ? ' 🔒' : ''}
                  {p.archived ? ' (archived)' : ''}
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`New chat in ${p.name}`}
                  title="New chat in this project"
                  onClick={() => void startNew(p.id)}
                >
                  <Icon name="plus" />
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Edit project ${p.name}`}
                  title="Project settings"
                  onClick={() => setDialog({ kind: 'project', project: p })}
                >
                  <Icon name="edit" />
                </button>
              </div>
              {expanded && (chats.length ? <ul>{chats.map(row)}</ul> : <p className="empty">No chats yet.</p>)}
            </section>
          );
        })}
        <ul aria-label={projectList.length ? 'Chats in no project' : undefined}>{loose.map(row)}</ul>
      </div>
      {dialog?.kind === 'project' && <ProjectDialog project={dialog.project} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'move' && <MoveConversationDialog conversation={dialog.conversation} onClose={() => setDialog(null)} />}
    </nav>
  );
}

function ConversationRow({
  conversation: c,
  active,
  tabbable,
  onFocus,
  onMove,
}: {
  readonly conversation: Conversation;
  readonly active: boolean;
  readonly tabbable: boolean;
  readonly onFocus: () => void;
  readonly onMove: () => void;
}) {
  const rename = useEngineMutation((cl, v: { id: string; title: string }) => cl.engine.conversations.rename(v.id, v.title));
  const remove = useEngineMutation((cl, id: string) => cl.engine.conversations.delete(id));
  const selected = useUi((s) => s.selectedConversationId);
  const select = useUi((s) => s.selectConversation);
  const setSearchText = useUi((s) => s.setSearchText);
  const [editing, setEditing] = useState(false);
  const [draftTitle, setDraftTitle] = useState('');
  const commitRename = async () => {
    setEditing(false);
    if (draftTitle.trim()) await rename.mutateAsync({ id: c.id, title: draftTitle });
  };
  const tab = tabbable ? 0 : -1;
  return (
    <li className={active ? 'active' : ''} aria-current={active ? 'page' : undefined}>
      {editing ? (
        <input
          aria-label="Conversation title"
          autoFocus
          value={draftTitle}
          onChange={(e) => setDraftTitle(e.target.value)}
          onBlur={() => void commitRename()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void commitRename();
            if (e.key === 'Escape') setEditing(false);
          }}
        />
      ) : (
        <button
          type="button"
          className="conversation"
          tabIndex={tab}
          onFocus={onFocus}
          onClick={() => {
            select(c.id);
            setSearchText('');
          }}
          onDoubleClick={() => {
            setEditing(true);
            setDraftTitle(c.title);
          }}
        >
          <span className="title">{c.title}</span>
          <span className="count">{c.messageCount}</span>
        </button>
      )}
      <span className="row-actions">
        <button
          type="button"
          tabIndex={tab}
          title="Rename"
          aria-label={`Rename ${c.title}`}
          onClick={() => {
            setEditing(true);
            setDraftTitle(c.title);
          }}
        >
          <Icon name="edit" />
        </button>
        <ConfirmButton
          tabIndex={tab}
          buttonTitle="Delete"
          aria-label={`Delete ${c.title}`}
          title="Delete conversation"
          confirmLabel="Delete conversation"
          message={
            <>
              Delete “{c.title}” and its {formatCount(c.messageCount)} {c.messageCount === 1 ? 'message' : 'messages'}? This cannot be
              undone.
            </>
          }
          onConfirm={() =>
            remove.mutateAsync(c.id).then(() => {
              if (selected === c.id) select(null);
            })
          }
          busyLabel="Deleting…"
        >
          <Icon name="delete" />
        </ConfirmButton>
        {/* After Delete: Rename, Delete stay the first two Tab stops after a row, as before projects. */}
        <button type="button" tabIndex={tab} title="Move to a project" aria-label={`Move ${c.title}`} onClick={onMove}>
          <Icon name="move" />
        </button>
      </span>
    </li>
  );
}
