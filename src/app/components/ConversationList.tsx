import { useState } from 'react';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { UNTITLED } from '../titles';

export function ConversationList() {
  const conversations = useEngineQuery((q) => q.conversations());
  const create = useEngineMutation((c, title: string) => c.engine.createConversation({ title }));
  const rename = useEngineMutation((c, v: { id: string; title: string }) => c.engine.renameConversation(v.id, v.title));
  const remove = useEngineMutation((c, id: string) => c.engine.deleteConversation(id));
  const selected = useUi((s) => s.selectedConversationId);
  const select = useUi((s) => s.selectConversation);
  const setSearchText = useUi((s) => s.setSearchText);
  const temporaryChat = useUi((s) => s.temporaryChat);
  const setTemporaryChat = useUi((s) => s.setTemporaryChat);
  const [editing, setEditing] = useState<string | null>(null);
  const [draftTitle, setDraftTitle] = useState('');

  const startNew = async () => {
    setSearchText('');
    // An empty conversation is reused rather than stacking identical empty ones.
    const empty = conversations.data?.find((c) => c.messageCount === 0);
    if (empty) {
      select(empty.id);
      return;
    }
    const c = await create.mutateAsync(UNTITLED);
    select(c.id);
  };

  const commitRename = async (id: string) => {
    setEditing(null);
    if (draftTitle.trim()) await rename.mutateAsync({ id, title: draftTitle });
  };

  return (
    <nav className="sidebar" aria-label="Conversations">
      <button type="button" className="primary" onClick={() => void startNew()} disabled={create.isPending}>
        + New conversation
      </button>
      <button type="button" className={temporaryChat ? 'active' : ''} aria-pressed={temporaryChat} onClick={() => setTemporaryChat(!temporaryChat)}>
        {temporaryChat ? '✓ Temporary chat' : 'Temporary chat'}
      </button>
      {conversations.data?.length === 0 && <p className="empty">No conversations yet. Start one to store your first turn.</p>}
      <ul>
        {conversations.data?.map((c) => (
          <li key={c.id} className={c.id === selected ? 'active' : ''}>
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
              <button type="button" className="conversation" onClick={() => { select(c.id); setSearchText(''); }}
                onDoubleClick={() => { setEditing(c.id); setDraftTitle(c.title); }}>
                <span className="title">{c.title}</span>
                <span className="count">{c.messageCount}</span>
              </button>
            )}
            <span className="row-actions">
              <button type="button" title="Rename" aria-label={`Rename ${c.title}`} onClick={() => { setEditing(c.id); setDraftTitle(c.title); }}>✎</button>
              <button type="button" title="Delete" aria-label={`Delete ${c.title}`}
                onClick={() => {
                  if (window.confirm(`Delete "${c.title}" and its ${c.messageCount} messages? This cannot be undone.`)) {
                    void remove.mutateAsync(c.id).then(() => selected === c.id && select(null));
                  }
                }}>🗑</button>
            </span>
          </li>
        ))}
      </ul>
    </nav>
  );
}
