import { useEffect, useState } from 'react';
import { useEngineQuery, useMemoryMutation } from '../hooks';
import { formatTime } from '../format';
import { FORGET_PREVIEW_LIMIT, type ForgetKind, type ForgetResult } from '../../core/explorer/explorer';
import { forgetSummary } from '../../core/explorer/explorerText';
import { useProjectFilter } from './ProjectPicker';

const KIND_ORDER: readonly ForgetKind[] = ['turn', 'fact', 'episode', 'foresight', 'profile', 'scene', 'title'];

/**
 * "Forget everything about X": find, show, let the user tick what goes, then delete in one transaction.
 *
 * Nothing starts ticked. The deletion cannot be undone, and a list of a few dozen items does not
 * fit one screen, so a list that started ticked would delete what the person never scrolled to
 * (a search for "Ana" once listed 15 items, all ticked, most below the fold). Each item is ticked by the person, or all
 * at once with "Tick all N", which says how many; the count of what will go, by kind, stands above
 * the list and on the button. The list is not a scroll box of its own: it is all laid out in the tab.
 */
export function ForgetTab() {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const filter = useProjectFilter();
  const preview = useEngineQuery((q) => q.forgetPreview(query.trim(), filter));
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [done, setDone] = useState<ForgetResult | null>(null);
  const forget = useMemoryMutation((e, v: { items: { kind: ForgetKind; id: string }[]; about: string }) =>
    e.memory.forget(v.items, v.about),
  );
  useEffect(() => setTicked(new Set()), [query, filter.project]);
  const items = preview.data ?? [];
  const keyOf = (i: { kind: string; id: string }) => `${i.kind}:${i.id}`;
  const chosen = items.filter((i) => ticked.has(keyOf(i)));
  const countBy = (list: typeof items) => {
    const counts: Partial<Record<ForgetKind, number>> = {};
    for (const i of [...list].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind)))
      counts[i.kind] = (counts[i.kind] ?? 0) + 1;
    return counts;
  };
  const found = countBy(items);
  const full = Object.entries(found)
    .filter(([, n]) => n >= FORGET_PREVIEW_LIMIT)
    .map(([kind]) => kind);
  return (
    <div className="forget" data-testid="explorer-forget">
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setDone(null);
          setQuery(text);
        }}
      >
        <label>
          Forget everything about <input value={text} onChange={(e) => setText(e.target.value)} placeholder="a name, a place, a topic" />
        </label>
        <button type="submit">Find</button>
      </form>
      {filter.project !== undefined && (
        <p className="muted" data-testid="forget-project-note">
          Only {filter.project === null ? 'chats in no project' : 'this project'} is searched: its messages, episodes, facts, plans and
          conversation titles. What Recollect knows about you and theme summaries belong to no one project — choose All projects above to
          forget those too.
        </p>
      )}
      {query && preview.data && items.length === 0 && <p className="muted">Nothing remembered mentions “{query}”.</p>}
      {items.length > 0 && (
        <>
          <p data-testid="forget-found">
            Found {items.length} {items.length === 1 ? 'item' : 'items'} that mention “{query}” as a word: {forgetSummary(found)}. Nothing
            is ticked: tick what should be deleted for good (a conversation title is renamed, as shown).
          </p>
          {full.length > 0 && (
            <p className="note" role="note" data-testid="forget-limit">
              Only the best {FORGET_PREVIEW_LIMIT} matches of each kind are shown ({full.join(', ')} may have more): after forgetting these,
              press Find again for the rest.
            </p>
          )}
          <div className="buttons">
            <button type="button" disabled={chosen.length === items.length} onClick={() => setTicked(new Set(items.map(keyOf)))}>
              Tick all {items.length}
            </button>
            <button type="button" disabled={chosen.length === 0} onClick={() => setTicked(new Set())}>
              Untick all
            </button>
          </div>
          <ul className="plain forget-list">
            {items.map((i) => {
              const key = keyOf(i);
              return (
                <li key={key}>
                  <label>
                    <input
                      type="checkbox"
                      checked={ticked.has(key)}
                      onChange={(e) => {
                        const next = new Set(ticked);
                        if (e.target.checked) next.add(key);
                        else next.delete(key);
                        setTicked(next);
                      }}
                    />{' '}
                    <span className={`kind ${i.kind}`}>{i.kind}</span> {i.text}{' '}
                    {i.occurredAt !== null && <span className="muted">· {formatTime(i.occurredAt)}</span>}
                  </label>
                </li>
              );
            })}
          </ul>
          <p role="status" data-testid="forget-chosen">
            {chosen.length === 0
              ? `Nothing ticked of ${items.length}.`
              : `${chosen.length} of ${items.length} ticked, to be deleted for good: ${forgetSummary(countBy(chosen))}.`}
          </p>
          <button
            type="button"
            className="danger"
            disabled={chosen.length === 0 || forget.isPending}
            onClick={() =>
              forget.mutate(
                { items: chosen.map(({ kind, id }) => ({ kind, id })), about: query.trim() },
                {
                  onSuccess: (r) => {
                    setDone(r);
                    setQuery('');
                  },
                },
              )
            }
          >
            Forget {chosen.length} {chosen.length === 1 ? 'item' : 'items'}
          </button>
        </>
      )}
      {done && (
        <p role="status" className="ok">
          Forgotten: {forgetSummary(done.deleted)}. They will not come back from re-synthesis.
        </p>
      )}
    </div>
  );
}
