/**
 * The Archived view: conversations taken out of the list, each with Open, Unarchive and Delete.
 * Archiving hides a conversation and nothing else — its turns stay memory that answers draw on
 * until it is deleted here — and the view says so, since people expect "archive" to mean "gone".
 */
import type { Conversation } from '../../core/base/types';
import { formatCount } from '../../core/base/numbers';
import { useEngineMutation } from '../hooks';
import { useUi } from '../uiStore';
import { ConfirmButton } from './ConfirmButton';
import { Dialog } from './Dialog';

export function ArchivedConversations({ conversations, onClose }: { conversations: readonly Conversation[]; onClose: () => void }) {
  const unarchive = useEngineMutation((cl, id: string) => cl.engine.conversations.place(id, { archived: false }));
  const remove = useEngineMutation((cl, id: string) => cl.engine.conversations.delete(id));
  const selected = useUi((s) => s.selectedConversationId);
  const select = useUi((s) => s.selectConversation);
  return (
    <Dialog title="Archived conversations" onClose={onClose} testId="archived-view">
      <p className="muted">
        Archived conversations are out of the list, not out of memory: what you said in them still counts in answers. Delete one to remove
        it and what was remembered from it.
      </p>
      {conversations.length === 0 ? (
        <p className="empty">Nothing is archived.</p>
      ) : (
        <ul className="archived-list" aria-label="Archived conversations">
          {conversations.map((c) => (
            <li key={c.id}>
              <button
                type="button"
                className="link-button archived-title"
                onClick={() => {
                  select(c.id);
                  onClose();
                }}
              >
                {c.title}
              </button>
              <span className="muted">
                {formatCount(c.messageCount)} {c.messageCount === 1 ? 'message' : 'messages'}
              </span>
              <button type="button" aria-label={`Unarchive ${c.title}`} onClick={() => unarchive.mutate(c.id)}>
                Unarchive
              </button>
              <ConfirmButton
                aria-label={`Delete ${c.title}`}
                title="Delete conversation"
                confirmLabel="Delete conversation"
                message={
                  <>
                    Delete “{c.title}” and its {formatCount(c.messageCount)} {c.messageCount === 1 ? 'message' : 'messages'}? What was
                    remembered from it goes too. This cannot be undone.
                  </>
                }
                onConfirm={() =>
                  remove.mutateAsync(c.id).then(() => {
                    if (selected === c.id) select(null);
                  })
                }
                busyLabel="Deleting…"
              >
                Delete
              </ConfirmButton>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
