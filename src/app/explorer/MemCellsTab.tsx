import { useEffect, useMemo, useState } from 'react';
import { useEngineQuery, useMemCellPages, useMemoryMutation } from '../hooks';
import { useProjectFilter } from './ProjectPicker';
import { formatTime, plural } from '../format';
import { useUi } from '../uiStore';
import type { FactView, MemCellSummary } from '../../core/explorer/explorer';
import { episodeName, episodeState, planState } from '../../core/explorer/episodeLabel';
import { VirtualList } from './VirtualList';
import { Dialog } from '../components/Dialog';
import { ConfirmButton } from '../components/ConfirmButton';
import { formatCount } from '../../core/base/numbers';

const PAGE = 200;

export function MemCellsTab() {
  const focus = useUi((s) => s.explorerFocus);
  const open = useUi((s) => s.openExplorer);
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const inProject = useProjectFilter();
  const pages = useMemCellPages({ ...inProject, limit: PAGE, order });
  // A fact id is "<memcell>:f<n>" (knowledgeRepo.saveSynthesis), so a cited fact opens its episode.
  const focusCell = focus?.kind === 'episode' ? focus.id : focus?.kind === 'fact' ? focus.id.slice(0, focus.id.lastIndexOf(':')) : null;
  const [selected, setSelected] = useState<string | null>(focusCell);
  useEffect(() => setSelected(focusCell), [focusCell]);
  const items = useMemo(() => pages.data?.pages.flatMap((p) => p.items) ?? [], [pages.data]);
  const total = pages.data?.pages[0]?.total ?? 0;
  return (
    <div className="split-view">
      <div className="list-pane">
        <div className="row">
          <span className="muted" data-testid="episode-count">
            {plural(total, 'episode')}
            {items.length < total ? ` · ${formatCount(items.length)} loaded` : ''}
          </span>
          <button type="button" className="link" onClick={() => setOrder(order === 'desc' ? 'asc' : 'desc')}>
            {order === 'desc' ? 'newest first' : 'oldest first'}
          </button>
        </div>
        <VirtualList
          label="Episodes"
          items={items}
          rowHeight={64}
          height="calc(100vh - 220px)"
          onEndReached={() => pages.hasNextPage && !pages.isFetchingNextPage && void pages.fetchNextPage()}
          render={(c: MemCellSummary) => (
            <button
              type="button"
              className={`cell-row${selected === c.id ? ' active' : ''}`}
              data-testid="memcell-row"
              aria-current={selected === c.id}
              onClick={() => open('memcells', { kind: 'episode', id: c.id })}
            >
              <strong>{episodeName(c)}</strong>
              <span className="muted">
                {formatTime(c.startAt)} · {c.turnCount === 0 ? 'its messages were deleted' : plural(c.turnCount, 'message')} ·{' '}
                {plural(c.factCount, 'fact')} · {episodeState(c.status, c.open)}
              </span>
            </button>
          )}
        />
      </div>
      <div className="detail-pane">
        {selected ? (
          <MemCellDetailView
            id={selected}
            focusFact={focus?.kind === 'fact' ? focus.id : null}
            onGone={() => {
              setSelected(null);
              open('memcells');
            }}
          />
        ) : (
          <p className="muted">Pick an episode to see its narrative, facts, foresight and turns.</p>
        )}
      </div>
    </div>
  );
}

function MemCellDetailView({ id, focusFact, onGone }: { id: string; focusFact: string | null; onGone: () => void }) {
  const { data: cell, isLoading } = useEngineQuery((q) => q.memCell(id));
  const select = useUi((s) => s.selectConversation);
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const [narrative, setNarrative] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [withTurns, setWithTurns] = useState(false);
  const save = useMemoryMutation((e, v: { title: string; narrative: string }) => e.memory.editMemCell(id, v));
  const remove = useMemoryMutation((e, turns: boolean) => e.memory.deleteMemCell(id, { turns }));
  const resynth = useMemoryMutation((e, _: void) => e.memory.resynthesiseMemCell(id));
  if (isLoading) return <p className="muted">Loading…</p>;
  if (!cell) return <p className="muted">This episode no longer exists.</p>;
  return (
    <article className="memcell-detail" data-testid="memcell-detail" aria-label={`Episode ${episodeName(cell)}`}>
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ title, narrative }, { onSuccess: () => setEditing(false) });
          }}
        >
          <label className="stack">
            Title <input value={title} onChange={(e) => setTitle(e.target.value)} />
          </label>
          <label className="stack">
            Narrative <textarea rows={6} value={narrative} onChange={(e) => setNarrative(e.target.value)} />
          </label>
          <div className="buttons">
            <button type="submit" className="primary">
              Save episode
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <h2>{episodeName(cell)}</h2>
          <p className="muted">
            {formatTime(cell.startAt)} – {formatTime(cell.endAt)} · {episodeState(cell.status, cell.open)}
            {cell.editedByUser ? ' · edited by you' : ''} ·{' '}
            {cell.sceneId ? `theme: ${cell.sceneTitle ?? 'not named yet'}` : 'not in a theme yet'}
          </p>
          {cell.lostTurns > 0 && (
            <p className="muted" data-testid="lost-turns">
              {cell.lostTurns === 1 ? '1 message' : `${cell.lostTurns} messages`} of this episode {cell.lostTurns === 1 ? 'was' : 'were'}{' '}
              deleted or edited: the narrative, facts and plans derived from {cell.lostTurns === 1 ? 'it' : 'them'} were removed; the
              episode is synthesised again from the remaining messages when your synthesis policy allows.
            </p>
          )}
          <p>{cell.narrative ?? <span className="muted">Not synthesised yet: the turns below are what is remembered.</span>}</p>
        </>
      )}
      <div className="buttons">
        {!editing && (
          <button
            type="button"
            onClick={() => {
              setTitle(cell.title ?? '');
              setNarrative(cell.narrative ?? '');
              setEditing(true);
            }}
          >
            Edit narrative
          </button>
        )}
        <button type="button" onClick={() => resynth.mutate()} disabled={resynth.isPending}>
          Re-synthesise
        </button>
        <button type="button" onClick={() => select(cell.conversationId)}>
          Open conversation
        </button>
        <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
          Delete episode
        </button>
      </div>
      {confirmDelete && (
        <Dialog title="Delete episode" role="alertdialog" onClose={() => setConfirmDelete(false)}>
          <p>
            Forget this episode: its narrative, {cell.facts.length} facts and {cell.foresight.length} foresight items are deleted and will
            not be recreated.
          </p>
          {cell.turns.length > 0 && (
            <label>
              <input type="checkbox" checked={withTurns} onChange={(e) => setWithTurns(e.target.checked)} /> Also delete its{' '}
              {plural(cell.turns.length, 'message')} from the conversation
            </label>
          )}
          <div className="buttons">
            <button type="button" className="danger" onClick={() => remove.mutate(withTurns, { onSuccess: onGone })}>
              Delete for good
            </button>
            <button type="button" data-autofocus onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
      <h3>Facts</h3>
      {cell.facts.length === 0 && <p className="muted">No facts.</p>}
      <ul className="plain">
        {cell.facts.map((f) => (
          <FactRow key={f.id} fact={f} focused={f.id === focusFact} />
        ))}
      </ul>
      <h3>Foresight</h3>
      {cell.foresight.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="plain">
          {cell.foresight.map((f) => (
            <li key={f.id} className={f.status}>
              {f.content}{' '}
              <span className="muted">
                {f.startAt ? formatTime(f.startAt) : '…'} – {f.endAt ? formatTime(f.endAt) : '…'} · {planState(f.status, f.source)}
              </span>
            </li>
          ))}
        </ul>
      )}
      <h3>Source turns</h3>
      {cell.turns.length === 0 && (
        <p className="muted">
          Its messages were deleted from the conversation; the narrative and facts above stay until you delete the episode.
        </p>
      )}
      <ol className="plain turns">
        {cell.turns.map((t) => (
          <li key={t.id}>
            <strong>{t.speaker}</strong> <span className="muted">{formatTime(t.occurredAt)}</span>
            {t.encoding && (
              <span
                className="muted encoding"
                data-testid="encoding"
                title="Encoding score: how new the turn was, how salient (speech act and content), and how much it surprised memory"
              >
                {' '}
                · {t.encoding.act} · salience {t.encoding.salience.toFixed(2)} · novelty {t.encoding.novelty.toFixed(2)}
              </span>
            )}
            <p>{t.content}</p>
          </li>
        ))}
      </ol>
    </article>
  );
}

function FactRow({ fact, focused }: { fact: FactView; focused: boolean }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(fact.content);
  const save = useMemoryMutation((e, content: string) => e.memory.editFact(fact.id, { content }));
  const remove = useMemoryMutation((e, _: void) => e.memory.deleteFact(fact.id));
  return (
    <li className={`fact-row${focused ? ' highlight' : ''}${fact.supersededBy ? ' superseded' : ''}`} data-testid="fact">
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(text, { onSuccess: () => setEditing(false) });
          }}
          className="inline-form"
        >
          <input aria-label="Fact" value={text} onChange={(e) => setText(e.target.value)} autoFocus />
          <button type="submit" className="primary">
            Save fact
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <span>{fact.content}</span>
          <span className="muted">
            {' '}
            {fact.speaker}
            {fact.editedByUser ? ' · edited' : ''}
            {fact.supersededBy ? ' · superseded' : ''}
          </span>
          <button
            type="button"
            className="link"
            onClick={() => {
              setText(fact.content);
              setEditing(true);
            }}
          >
            edit
          </button>
          <ConfirmButton
            className="link"
            aria-label="Delete fact"
            title="Delete fact"
            confirmLabel="Forget for good"
            message={<>Forget “{fact.content}” for good? It is not recreated when the episode is synthesised again.</>}
            onConfirm={() => remove.mutateAsync()}
            busyLabel="Forgetting…"
          >
            delete
          </ConfirmButton>
        </>
      )}
    </li>
  );
}
