/**
 * The sidebar: search over conversation titles, pinned conversations on top, then each project and
 * the chats in no project, each in date groups (core/base/dateGroups.ts, in the person's time
 * zone); archived conversations leave the list for the Archived view (ArchivedConversations.tsx).
 */
import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { Conversation, Project } from '../../core/base/types';
import { groupByDate } from '../../core/base/dateGroups';
import { useDayChange } from '../useDayChange';
import { titleMatcher } from '../../core/base/titleFilter';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { UNTITLED } from '../titles';
import { Icon } from './Icon';
import { MoveConversationDialog, ProjectDialog } from './ProjectDialog';
import { useOpening } from './OwnershipBanner';
import { ConversationRow } from './ConversationRow';
import { ArchivedConversations } from './ArchivedConversations';

/** The id of the title search box (keyboard.ts focuses it with Alt+C). */
export const TITLE_SEARCH_ID = 'conversation-title-search';

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
    const empty = conversations.data?.find((c) => c.messageCount === 0 && c.projectId === projectId && !c.archived);
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
  const select = useUi((s) => s.selectConversation);
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
  const [query, setQuery] = useState('');
  const [archivedOpen, setArchivedOpen] = useState(false);
  const searchBox = useRef<HTMLInputElement>(null);
  const zone = useEngineQuery((q) => q.timeZone()).data?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  useDayChange(zone); // the date groups move at the person's midnight
  const all = conversations.data ?? [];
  const list = all.filter((c) => !c.archived);
  const archived = all.filter((c) => c.archived);
  const searching = query.trim() !== '';
  const matches = titleMatcher(query);
  const projectList = projects.data ?? [];
  const known = new Set(projectList.map((p) => p.id));
  // Archived ones are found too (after the others): a search is how a forgotten one comes back.
  // With projects, what is found is listed under each project's name (then "No project").
  const hits = searching ? [...list, ...archived].filter((c) => matches(c.title)) : [];
  const foundGroups = projectList.length
    ? [
        ...projectList.map((p) => ({ id: p.id, label: p.name, chats: hits.filter((c) => c.projectId === p.id) })),
        { id: 'none', label: 'No project', chats: hits.filter((c) => c.projectId === null || !known.has(c.projectId)) },
      ].filter((g) => g.chats.length > 0)
    : null;
  const found = foundGroups ? foundGroups.flatMap((g) => g.chats) : hits;
  const pinned = list.filter((c) => c.pinned);
  const unpinned = list.filter((c) => !c.pinned);
  const loose = unpinned.filter((c) => c.projectId === null || !known.has(c.projectId));
  const open = (p: Project) => toggled[p.id] ?? !p.archived;
  const visible = searching
    ? found
    : [...pinned, ...projectList.filter(open).flatMap((p) => unpinned.filter((c) => c.projectId === p.id)), ...loose];
  const current = visible.some((c) => c.id === roving)
    ? roving
    : visible.some((c) => c.id === selected)
      ? selected
      : (visible[0]?.id ?? null);
  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!(e.target instanceof HTMLElement) || !e.target.classList.contains('conversation')) return;
    if (e.key === 'Escape' && searching) {
      e.preventDefault();
      setQuery('');
      searchBox.current?.focus();
      return;
    }
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button.conversation')];
    const i = buttons.indexOf(e.target as HTMLButtonElement);
    const next =
      e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    if (next < 0 && searching) searchBox.current?.focus();
    else buttons[Math.max(0, Math.min(buttons.length - 1, next))]?.focus();
  };
  const onSearchKey = (e: KeyboardEvent<HTMLInputElement>) => {
    const first = () => e.currentTarget.closest('nav')?.querySelector<HTMLButtonElement>('.conversation-groups button.conversation');
    if (e.key === 'Escape' && query) {
      e.preventDefault();
      setQuery('');
    } else if (e.key === 'ArrowDown' && searching) {
      e.preventDefault();
      first()?.focus();
    } else if (e.key === 'Enter' && searching && found[0]) {
      e.preventDefault();
      first()?.focus();
      select(found[0].id);
    }
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
  const now = Date.now();
  /** A labelled run of rows: a date group (Today, Yesterday, …) or Pinned; `id` is unique in the page. */
  const labelled = (id: string, label: string, chats: readonly Conversation[]): ReactNode => (
    <li key={id} className="date-group">
      <h2 className="date-label" id={id}>
        {label}
      </h2>
      <ul aria-labelledby={id}>{chats.map(row)}</ul>
    </li>
  );
  /** Chats under date headings; `scope` keeps heading ids unique per project. */
  const dated = (chats: readonly Conversation[], scope: string): ReactNode =>
    groupByDate(chats, (c) => c.updatedAt, now, zone).map((g) => labelled(`dates-${scope}-${g.key}`, g.label, g.items));

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
      <input
        ref={searchBox}
        id={TITLE_SEARCH_ID}
        type="search"
        className="title-search"
        aria-label="Search conversation titles"
        aria-describedby={searching ? `${TITLE_SEARCH_ID}-count` : undefined}
        placeholder="Search chats (Alt+C)"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={onSearchKey}
      />
      {searching && (
        <p className="muted title-search-count" id={`${TITLE_SEARCH_ID}-count`} role="status">
          {found.length === 0
            ? 'No conversation title matches.'
            : `${found.length} ${found.length === 1 ? 'title matches' : 'titles match'}`}
        </p>
      )}
      {conversations.data?.length === 0 && projectList.length === 0 && (
        <p className="empty">No conversations yet. Start one to store your first turn.</p>
      )}
      <div className="conversation-groups" onKeyDown={onListKey}>
        {searching ? (
          <ul aria-label="Conversations found">
            {foundGroups ? foundGroups.map((g) => labelled(`found-${g.id}`, g.label, g.chats)) : found.map(row)}
          </ul>
        ) : (
          <>
            {pinned.length > 0 && <ul>{labelled('pinned-conversations', 'Pinned', pinned)}</ul>}
            {projectList.map((p) => {
              const chats = unpinned.filter((c) => c.projectId === p.id);
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
                  {expanded && (chats.length ? <ul>{dated(chats, p.id)}</ul> : <p className="empty">No chats yet.</p>)}
                </section>
              );
            })}
            <ul aria-label={projectList.length ? 'Chats in no project' : undefined}>{dated(loose, 'loose')}</ul>
          </>
        )}
      </div>
      {archived.length > 0 && (
        <button type="button" className="archived-button" aria-haspopup="dialog" onClick={() => setArchivedOpen(true)}>
          Archived ({archived.length})
        </button>
      )}
      {archivedOpen && <ArchivedConversations conversations={archived} onClose={() => setArchivedOpen(false)} />}
      {dialog?.kind === 'project' && <ProjectDialog project={dialog.project} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'move' && <MoveConversationDialog conversation={dialog.conversation} onClose={() => setDialog(null)} />}
    </nav>
  );
}
