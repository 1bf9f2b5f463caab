/**
 * One row of the conversation list: the title opens it (double-click renames), and its actions —
 * Rename, Delete, Move to a project, Pin, Archive — show on hover or focus, and on a touch screen on
 * the open conversation's row (styles.css `.row-actions`), so a phone reaches every one of them.
 */
import { useState } from 'react';
import type { Conversation } from '../../core/base/types';
import { formatCount } from '../../core/base/numbers';
import { useEngineMutation } from '../hooks';
import { useUi } from '../uiStore';
import { ConfirmButton } from './ConfirmButton';
import { Icon } from './Icon';

/** Pin and Archive: each turns its state over (Unpin, Unarchive when on). */
const PLACES = [
  { key: 'pinned', icon: 'pin', verb: (on: boolean) => (on ? 'Unpin' : 'Pin'), hint: (on: boolean) => (on ? 'Unpin' : 'Pin to the top') },
  {
    key: 'archived',
    icon: 'archive',
    verb: (on: boolean) => (on ? 'Unarchive' : 'Archive'),
    hint: (on: boolean) => (on ? 'Unarchive' : 'Archive (its memory stays)'),
  },
] as const;

export function ConversationRow({
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
  const place = useEngineMutation((cl, patch: { pinned?: boolean; archived?: boolean }) => cl.engine.conversations.place(c.id, patch));
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
        {PLACES.map(({ key, icon, verb, hint }) => (
          <button
            key={key}
            type="button"
            tabIndex={tab}
            title={hint(c[key])}
            aria-label={`${verb(c[key])} ${c.title}`}
            {...(key === 'pinned' ? { 'aria-pressed': c.pinned } : {})}
            onClick={() => place.mutate({ [key]: !c[key] })}
          >
            <Icon name={icon} />
          </button>
        ))}
      </span>
    </li>
  );
}
