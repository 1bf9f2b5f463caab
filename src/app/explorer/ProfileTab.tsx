import { useState } from 'react';
import { useAnswerer, useEngineQuery, useMemoryMutation } from '../hooks';
import { formatTime } from '../format';
import { useUi } from '../uiStore';
import type { ProfileItemView } from '../../core/explorer/explorer';
import { ConfirmButton } from '../components/ConfirmButton';
import { MESSAGE_EVIDENCE } from '../../core/synthesis/knowledge';

export function ProfileTab() {
  const profile = useEngineQuery((q) => q.profile());
  // Whether anything can write the profile: the empty list says why it is empty.
  const answerer = useAnswerer();
  const items = profile.data ?? [];
  const conflicts = items.filter((i) => i.status === 'conflict');
  return (
    <div className="profile" data-testid="explorer-profile">
      {conflicts.length > 0 && (
        <p className="banner" role="status">
          {conflicts.length} conflict{conflicts.length > 1 ? 's' : ''} to resolve: the pipeline proposed a different value than the one
          kept.
        </p>
      )}
      {items.length === 0 && profile.isSuccess && answerer.known && (
        <p className="muted" data-testid="profile-empty">
          {answerer.configured
            ? 'No profile yet: it is written from the summaries of your themes, as your conversations are summarised (Settings → Memory consolidation says when that happens).'
            : 'No profile yet: it is written from the summaries of your themes once an AI endpoint is connected (Settings).'}
        </p>
      )}
      {(['explicit', 'implicit'] as const).map((kind) => {
        const list = items.filter((i) => i.kind === kind);
        return list.length === 0 ? null : (
          <section key={kind}>
            <h3>{kind === 'explicit' ? 'Stated facts' : 'Inferred traits'}</h3>
            <ul className="plain">
              {list.map((i) => (
                <ProfileRow key={i.id} item={i} />
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

function ProfileRow({ item }: { item: ProfileItemView }) {
  const focus = useUi((s) => s.explorerFocus);
  const open = useUi((s) => s.openExplorer);
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(item.value);
  const [showHistory, setShowHistory] = useState(false);
  // Evidence is episode ids, and the messages that asked for the item ("remember that…").
  const episodes = item.evidence.filter((e) => !e.startsWith(MESSAGE_EVIDENCE));
  const edit = useMemoryMutation((e, v: string) => e.profile.edit(item.id, v));
  const pin = useMemoryMutation((e, p: boolean) => e.profile.pin(item.id, p));
  const resolve = useMemoryMutation((e, c: 'keep' | 'accept') => e.profile.resolveConflict(item.id, c));
  const remove = useMemoryMutation((e, _: void) => e.profile.delete(item.id));
  const focused = focus?.kind === 'profile' && focus.id === item.id;
  return (
    <li className={`profile-item ${item.status}${focused ? ' highlight' : ''}`} data-testid="profile-item" data-status={item.status}>
      <div className="row">
        <strong>{item.key}</strong>
        {editing ? (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              edit.mutate(value, { onSuccess: () => setEditing(false) });
            }}
          >
            <input aria-label={`Value of ${item.key}`} value={value} onChange={(e) => setValue(e.target.value)} autoFocus />
            <button type="submit" className="primary">
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <span className="grow">{item.value}</span>
        )}
        <span className="muted">
          {Math.round(item.confidence * 100)}%{item.pinned ? ' · pinned' : ''}
        </span>
      </div>
      {item.status === 'conflict' && (
        <div className="conflict" role="group" aria-label={`Conflict on ${item.key}`}>
          <p>
            Proposed: <em>{item.proposedValue ?? '(delete this item)'}</em>
          </p>
          <button type="button" onClick={() => resolve.mutate('keep')}>
            Keep current
          </button>
          <button type="button" onClick={() => resolve.mutate('accept')}>
            Accept proposal
          </button>
        </div>
      )}
      <div className="buttons small">
        <button
          type="button"
          className="link"
          onClick={() => {
            setValue(item.value);
            setEditing(true);
          }}
        >
          edit
        </button>
        <button type="button" className="link" onClick={() => pin.mutate(!item.pinned)}>
          {item.pinned ? 'unpin' : 'pin'}
        </button>
        <button type="button" className="link" aria-expanded={showHistory} onClick={() => setShowHistory(!showHistory)}>
          history ({item.history.length})
        </button>
        <ConfirmButton
          className="link"
          aria-label={`Delete ${item.key}`}
          title="Delete profile item"
          confirmLabel="Forget for good"
          message={<>Forget “{item.key}” for good? It is not learned again from your conversations.</>}
          onConfirm={() => remove.mutateAsync()}
          busyLabel="Forgetting…"
        >
          delete
        </ConfirmButton>
        {episodes.length > 0 && (
          <span className="muted">
            evidence:{' '}
            {episodes.slice(0, 5).map((id, n) => (
              <button key={id} type="button" className="link-button" onClick={() => open('memcells', { kind: 'episode', id })}>
                #{n + 1}
              </button>
            ))}
          </span>
        )}
        {episodes.length < item.evidence.length && <span className="muted">asked for in a chat message</span>}
      </div>
      {showHistory && (
        <ol className="plain history">
          {item.history.map((h, n) => (
            <li key={n}>
              <span className="muted">{formatTime(h.changedAt)}</span> <strong>{h.op}</strong> {h.value ?? ''}{' '}
              {h.reason && <span className="muted">— {h.reason}</span>}
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}
