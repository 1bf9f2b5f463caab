import { useEffect, useState } from 'react';
import { useEngineQuery, useMemoryMutation } from '../hooks';
import { formatTime } from '../format';
import { FORGET_PREVIEW_LIMIT, type ForgetKind, type ForgetResult } from '../../core/explorer/explorer';
import { forgetSummary } from '../../core/explorer/explorerText';

/** "Forget everything about X": find, show, let the user untick, then delete in one transaction. */
export function ForgetTab() {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const preview = useEngineQuery((q) => q.forgetPreview(query.trim()));
  const [excluded, setExcluded] = useState<Set<string>>(new Set());
  const [done, setDone] = useState<ForgetResult | null>(null);
  const forget = useMemoryMutation((e, items: { kind: ForgetKind; id: string }[]) => e.forget(items));
  useEffect(() => setExcluded(new Set()), [query]);
  const items = preview.data ?? [];
  const chosen = items.filter((i) => !excluded.has(`${i.kind}:${i.id}`));
  const perKind = new Map<string, number>();
  for (const i of items) perKind.set(i.kind, (perKind.get(i.kind) ?? 0) + 1);
  const full = [...perKind].filter(([, n]) => n >= FORGET_PREVIEW_LIMIT).map(([kind]) => kind);
  return (
    <div className="forget" data-testid="explorer-forget">
      <form className="inline-form" onSubmit={(e) => { e.preventDefault(); setDone(null); setQuery(text); }}>
        <label>Forget everything about <input value={text} onChange={(e) => setText(e.target.value)} placeholder="a name, a place, a topic" /></label>
        <button type="submit">Find</button>
      </form>
      {query && preview.data && items.length === 0 && <p className="muted">Nothing remembered mentions “{query}”.</p>}
      {items.length > 0 && (
        <>
          <p>{chosen.length} of {items.length} items will be deleted for good. Untick what should stay.</p>
          {full.length > 0 && (
            <p className="note" role="note" data-testid="forget-limit">
              Only the best {FORGET_PREVIEW_LIMIT} matches of each kind are shown ({full.join(', ')} may have more): after forgetting these, press Find again for the rest.
            </p>
          )}
          <ul className="plain forget-list">{items.map((i) => {
            const key = `${i.kind}:${i.id}`;
            return (
              <li key={key}><label>
                <input type="checkbox" checked={!excluded.has(key)} onChange={(e) => {
                  const next = new Set(excluded);
                  if (e.target.checked) next.delete(key); else next.add(key);
                  setExcluded(next);
                }} /> <span className={`kind ${i.kind}`}>{i.kind}</span> {i.text} {i.occurredAt !== null && <span className="muted">· {formatTime(i.occurredAt)}</span>}
              </label></li>
            );
          })}</ul>
          <button type="button" className="danger" disabled={chosen.length === 0 || forget.isPending}
            onClick={() => forget.mutate(chosen.map(({ kind, id }) => ({ kind, id })), { onSuccess: (r) => { setDone(r); setQuery(''); } })}>
            Forget {chosen.length} {chosen.length === 1 ? 'item' : 'items'}
          </button>
        </>
      )}
      {done && <p role="status" className="ok">Forgotten: {forgetSummary(done.deleted)}. They will not come back from re-synthesis.</p>}
    </div>
  );
}
