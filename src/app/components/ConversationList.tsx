import { useState, type KeyboardEvent } from 'react';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { UNTITLED } from '../titles';
import { Icon } from './Icon';
import { ConfirmButton } from './ConfirmButton';
import { formatCount } from '../../core/base/numbers';

/** "+ New conversation": reuses an empty conversation rather than stacking identical empty ones. */
export function useStartConversation() {
  const conversations = useEngineQuery((q) => q.conversations());
  const create = useEngineMutation((c, title: string) => c.engine.createConversation({ title }));
  const select = useUi((s) => s.selectConversation);
  const setSearchText = useUi((s) => s.setSearchText);
  const setStarting = useUi((s) => s.setStartingConversation);
  return async () => {
    setSearchText('');
    const empty = conversations.data?.find((c) => c.messageCount === 0);
    if (empty) {
      select(empty.id);
      return;
    }
    // The conversation on screen goes at once: words typed while the engine creates the new one
    // must not land in the old one (right after a start the engine can take seconds to answer).
    setStarting(true);
    try {
      select((await create.mutateAsync(UNTITLED)).id);
    } catch {
      // The mutation reported why; the user is left where they were.
    } finally {
      setStarting(false);
    }
  };
}

export function ConversationList() {
  const conversations = useEngineQuery((q) => q.conversations());
  const startNew = useStartConversation();
  const rename = useEngineMutation((c, v: { id: string; title: string }) => c.engine.renameConversation(v.id, v.title));
  const remove = useEngineMutation((c, id: string) => c.engine.deleteConversation(id));
  const selected = useUi((s) => s.selectedConversationId);
  const select = useUi((s) => s.selectConversation);
  const setSearchText = useUi((s) => s.setSearchText);
  const temporaryChat = useUi((s) => s.temporaryChat);
  const setTemporaryChat = useUi((s) => s.setTemporaryChat);
  const [editing, setEditing] = useState<string | null>(null);
  const [draftTitle, setDraftTitle] = useState('');
  // One Tab stop for the whole list (roving tabindex): the current row's buttons are in the Tab
  // order, the others are reached with the arrow keys, Home and End.
  const [roving, setRoving] = useState<string | null>(null);
  const list = conversations.data ?? [];
  const current = list.some((c) => c.id === roving) ? roving : list.some((c) => c.id === selected) ? selected : list[0]?.id ?? null;
  const onListKey = (e: KeyboardEvent<HTMLUListElement>) => {
    if (!(e.target instanceof HTMLElement) || !e.target.classList.contains('conversation')) return;
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button.conversation')];
    const i = buttons.indexOf(e.target as HTMLButtonElement);
    const next = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, next))]?.focus();
  };


  const commitRename = async (id: string) => {
    setEditing(null);
    if (draftTitle.trim()) await rename.mutateAsync({ id, title: draftTitle });
  };

  return (
    <nav className="sidebar" id="conversation-list" aria-label="Conversations">
      <button type="button" className="primary" onClick={() => void startNew()} >
        + New conversation
      </button>
      {/* Turning temporary mode on is one way: a key pressed while this button has focus (Space,
          Enter) must never turn it off and send the rest of a private message into a stored
          conversation. It is left by choosing a conversation, "+ New conversation" or "Leave" in
          the temporary chat's banner; the message box takes focus at once (TemporaryChat). */}
      <button type="button" className={temporaryChat ? 'active' : ''} aria-pressed={temporaryChat} onClick={() => setTemporaryChat(true)}>
        {temporaryChat ? '✓ Temporary chat' : 'Temporary chat'}
      </button>
      {conversations.data?.length === 0 && <p className="empty">No conversations yet. Start one to store your first turn.</p>}
      <ul onKeyDown={onListKey}>
        {list.map((c) => (
          <li key={c.id} className={!temporaryChat && c.id === selected ? 'active' : ''} aria-current={!temporaryChat && c.id === selected ? 'page' : undefined}>
            {editing === c.id ? (
              <input
                aria-label="Conversation title"
                autoFocus
                value={draftTitle}
                onChange={(e) => setDraftTitle(e.target.value)}
                onBlur={() => void commitRename(c.id)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') void commitRename(c.id);
                  if (e.key === 'Escape') setEditing(null);
                }}
              />
            ) : (
              <button type="button" className="conversation" tabIndex={c.id === current ? 0 : -1} onFocus={() => setRoving(c.id)} onClick={() => { select(c.id); setSearchText(''); }}
                onDoubleClick={() => { setEditing(c.id); setDraftTitle(c.title); }}>
                <span className="title">{c.title}</span>
                <span className="count">{c.messageCount}</span>
              </button>
            )}
            <span className="row-actions">
              <button type="button" tabIndex={c.id === current ? 0 : -1} title="Rename" aria-label={`Rename ${c.title}`} onClick={() => { setEditing(c.id); setDraftTitle(c.title); }}><Icon name="edit" /></button>
              <ConfirmButton tabIndex={c.id === current ? 0 : -1} buttonTitle="Delete" aria-label={`Delete ${c.title}`}
                title="Delete conversation" confirmLabel="Delete conversation"
                message={<>Delete “{c.title}” and its {formatCount(c.messageCount)} {c.messageCount === 1 ? 'message' : 'messages'}? This cannot be undone.</>}
                onConfirm={() => void remove.mutateAsync(c.id).then(() => selected === c.id && select(null))}><Icon name="delete" /></ConfirmButton>
            </span>
          </li>
        ))}
      </ul>
    </nav>
  );
}
