import { useState } from 'react';
import { useForesightPages, useMemoryMutation } from '../hooks';
import { formatTime } from '../format';
import { useUi } from '../uiStore';
import type { ForesightItem } from '../../core/synthesis/knowledge';
import { formatCount } from '../../core/base/numbers';
import { planState } from '../../core/explorer/episodeLabel';

const DAY = 86_400_000;
const toInput = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString().slice(0, 10));
const fromInput = (s: string, end: boolean): number | null => (s ? Date.parse(`${s}T${end ? '23:59:59.999' : '00:00:00'}Z`) : null);

/**
 * Foresight as intervals on a time axis with a "now" line; expired items greyed, dismissed ones
 * hidden from the axis. Read in pages by cursor to the end of the list: the axis draws what is
 * loaded, and the list says how many more there are.
 */
export function ForesightTab() {
  const [showDismissed, setShowDismissed] = useState(false);
  const pages = useForesightPages({ limit: 200, dismissed: showDismissed });
  const now = Date.now();
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const total = pages.data?.pages[0]?.total ?? 0;
  const onAxis = items.filter((f) => f.status !== 'dismissed');
  const times = onAxis.flatMap((f) => [f.startAt ?? f.endAt, f.endAt ?? f.startAt]).filter((t): t is number => t !== null);
  const min = Math.min(now - 7 * DAY, ...times);
  const max = Math.max(now + 7 * DAY, ...times);
  const x = (t: number) => 2 + ((t - min) / (max - min)) * 96;
  const rowH = 6;
  return (
    <div className="foresight" data-testid="explorer-foresight">
      <svg className="timeline" viewBox={`0 0 100 ${Math.max(1, onAxis.length) * rowH + 8}`} preserveAspectRatio="none" role="img"
        aria-label={`Timeline of ${onAxis.length} foresight items from ${formatTime(min)} to ${formatTime(max)}`} style={{ height: `${Math.max(1, onAxis.length) * 22 + 30}px` }}>
        {onAxis.map((f, i) => {
          const a = x(f.startAt ?? f.endAt ?? now);
          const b = x(f.endAt ?? max);
          return (
            <rect key={f.id} x={a} y={i * rowH + 2} width={Math.max(0.8, b - a)} height={rowH - 2} rx="0.6" className={`interval ${f.status}`}>
              <title>{f.content}</title>
            </rect>
          );
        })}
        <line x1={x(now)} x2={x(now)} y1="0" y2={Math.max(1, onAxis.length) * rowH + 8} className="now-line" />
      </svg>
      {/* "now" is placed where the line is drawn (same x), not centred between the ends. */}
      <p className="muted axis-labels"><span>{formatTime(min)}</span><span className="now-label" style={{ left: `${x(now)}%` }}>now</span><span>{formatTime(max)}</span></p>
      <label><input type="checkbox" checked={showDismissed} onChange={(e) => setShowDismissed(e.target.checked)} /> Show dismissed</label>
      {items.length === 0 && <p className="muted">Nothing ahead. Plans mentioned in chat ("next Friday", "in March") appear here.</p>}
      <ul className="plain" aria-label="Foresight">{items.map((f) => <ForesightRow key={f.id} item={f} />)}</ul>
      <p className="muted" data-testid="foresight-count">{items.length < total ? `${formatCount(items.length)} of ${formatCount(total)} items` : `${formatCount(total)} items`}</p>
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {pages.isFetchingNextPage ? 'Loading…' : `Show more (${formatCount(total - items.length)} more)`}
        </button>
      )}
    </div>
  );
}

function ForesightRow({ item }: { item: ForesightItem }) {
  const focus = useUi((s) => s.explorerFocus);
  const [editing, setEditing] = useState(false);
  const [start, setStart] = useState(toInput(item.startAt));
  const [end, setEnd] = useState(toInput(item.endAt));
  const edit = useMemoryMutation((e, v: { startAt: number | null; endAt: number | null }) => e.editForesight(item.id, v));
  const dismiss = useMemoryMutation((e, _: void) => e.dismissForesight(item.id));
  return (
    <li className={`foresight-item ${item.status}${focus?.kind === 'foresight' && focus.id === item.id ? ' highlight' : ''}`} data-testid="foresight-item" data-status={item.status}>
      <span className="grow">{item.content}</span>{' '}
      <span className="muted">{item.startAt ? formatTime(item.startAt) : '…'} – {item.endAt ? formatTime(item.endAt) : '…'} · {planState(item.status, item.source)}</span>
      {editing ? (
        <form className="inline-form" onSubmit={(e) => { e.preventDefault(); edit.mutate({ startAt: fromInput(start, false), endAt: fromInput(end, true) }, { onSuccess: () => setEditing(false) }); }}>
          <label>From <input type="date" value={start} onChange={(e) => setStart(e.target.value)} /></label>
          <label>To <input type="date" value={end} onChange={(e) => setEnd(e.target.value)} /></label>
          <button type="submit" className="primary">Save validity</button><button type="button" onClick={() => setEditing(false)}>Cancel</button>
        </form>
      ) : (
        <span className="buttons small">
          <button type="button" className="link" onClick={() => setEditing(true)}>edit validity</button>
          {item.status !== 'dismissed' && <button type="button" className="link" onClick={() => dismiss.mutate()}>dismiss</button>}
        </span>
      )}
    </li>
  );
}
