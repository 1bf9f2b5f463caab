import { useEffect, useRef, useState } from 'react';
import { useForesightPages, useMemoryMutation } from '../hooks';
import { useProjectFilter } from './ProjectPicker';
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
  const inProject = useProjectFilter();
  const pages = useForesightPages({ ...inProject, limit: 200, dismissed: showDismissed });
  const now = Date.now();
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const total = pages.data?.pages[0]?.total ?? 0;
  const cited = useCitedItem(items, pages, showDismissed, setShowDismissed);
  const onAxis = items.filter((f) => f.status !== 'dismissed');
  const times = onAxis.flatMap((f) => [f.startAt ?? f.endAt, f.endAt ?? f.startAt]).filter((t): t is number => t !== null);
  const min = Math.min(now - 7 * DAY, ...times);
  const max = Math.max(now + 7 * DAY, ...times);
  const x = (t: number) => 2 + ((t - min) / (max - min)) * 96;
  const rowH = 6;
  return (
    <div className="foresight" data-testid="explorer-foresight">
      <svg
        className="timeline"
        viewBox={`0 0 100 ${Math.max(1, onAxis.length) * rowH + 8}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Timeline of ${onAxis.length} foresight items from ${formatTime(min)} to ${formatTime(max)}`}
        style={{ height: `${Math.max(1, onAxis.length) * 22 + 30}px` }}
      >
        {onAxis.map((f, i) => {
          const a = x(f.startAt ?? f.endAt ?? now);
          const b = x(f.endAt ?? max);
          return (
            <rect
              key={f.id}
              x={a}
              y={i * rowH + 2}
              width={Math.max(0.8, b - a)}
              height={rowH - 2}
              rx="0.6"
              className={`interval ${f.status}${f.id === cited.id ? ' cited' : ''}`}
            >
              <title>{f.content}</title>
            </rect>
          );
        })}
        <line x1={x(now)} x2={x(now)} y1="0" y2={Math.max(1, onAxis.length) * rowH + 8} className="now-line" />
      </svg>
      {/* "now" is placed where the line is drawn (same x), not centred between the ends. */}
      <p className="muted axis-labels">
        <span>{formatTime(min)}</span>
        <span className="now-label" style={{ left: `${x(now)}%` }}>
          now
        </span>
        <span>{formatTime(max)}</span>
      </p>
      <label>
        <input type="checkbox" checked={showDismissed} onChange={(e) => setShowDismissed(e.target.checked)} /> Show dismissed
      </label>
      {cited.missing && (
        <p className="notice" role="status" data-testid="foresight-cited-missing">
          The cited plan is no longer in memory (it was deleted, or the message it came from was).
        </p>
      )}
      {items.length === 0 && <p className="muted">Nothing ahead. Plans mentioned in chat ("next Friday", "in March") appear here.</p>}
      <ul className="plain" aria-label="Foresight" ref={cited.listRef}>
        {items.map((f) => (
          <ForesightRow key={f.id} item={f} cited={f.id === cited.id} />
        ))}
      </ul>
      <p className="muted" data-testid="foresight-count">
        {items.length < total ? `${formatCount(items.length)} of ${formatCount(total)} items` : `${formatCount(total)} items`}
      </p>
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {pages.isFetchingNextPage ? 'Loading…' : `Show more (${formatCount(total - items.length)} more)`}
        </button>
      )}
    </div>
  );
}

/**
 * A citation of a plan opens this tab with the plan as the explorer's focus: its row may be pages
 * down the list (200 per page) and below a chart 22 px per item tall, so the pages are read until
 * it is loaded (a dismissed plan shows the dismissed ones), then its row is scrolled to the middle
 * and focused. A plan no longer in memory says so.
 */
function useCitedItem(
  items: readonly ForesightItem[],
  pages: ReturnType<typeof useForesightPages>,
  showDismissed: boolean,
  setShowDismissed: (on: boolean) => void,
) {
  const focus = useUi((s) => s.explorerFocus);
  const id = focus?.kind === 'foresight' ? focus.id : null;
  const found = id !== null && items.some((f) => f.id === id);
  const listRef = useRef<HTMLUListElement>(null);
  const exhausted = pages.isSuccess && !pages.hasNextPage && !pages.isFetchingNextPage;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  useEffect(() => {
    if (id === null || found) return;
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
    else if (exhausted && !showDismissed) setShowDismissed(true);
  }, [id, found, hasNextPage, isFetchingNextPage, fetchNextPage, exhausted, showDismissed, setShowDismissed]);
  useEffect(() => {
    if (!found || id === null) return;
    const row = listRef.current?.querySelector<HTMLElement>(`[data-foresight-id="${CSS.escape(id)}"]`);
    row?.scrollIntoView({ block: 'center' });
    row?.focus({ preventScroll: true });
  }, [focus, found, id]);
  return { id, listRef, missing: id !== null && !found && exhausted && showDismissed };
}

function ForesightRow({ item, cited }: { item: ForesightItem; cited: boolean }) {
  const [editing, setEditing] = useState(false);
  const [start, setStart] = useState(toInput(item.startAt));
  const [end, setEnd] = useState(toInput(item.endAt));
  const edit = useMemoryMutation((e, v: { startAt: number | null; endAt: number | null }) => e.plans.edit(item.id, v));
  const dismiss = useMemoryMutation((e, _: void) => e.plans.dismiss(item.id));
  return (
    <li
      className={`foresight-item ${item.status}${cited ? ' highlight' : ''}`}
      data-testid="foresight-item"
      data-status={item.status}
      data-foresight-id={item.id}
      tabIndex={cited ? -1 : undefined}
      aria-current={cited ? 'true' : undefined}
    >
      <span className="grow">{item.content}</span>{' '}
      <span className="muted">
        {item.startAt ? formatTime(item.startAt) : '…'} – {item.endAt ? formatTime(item.endAt) : '…'} ·{' '}
        {planState(item.status, item.source)}
      </span>
      {editing ? (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            edit.mutate({ startAt: fromInput(start, false), endAt: fromInput(end, true) }, { onSuccess: () => setEditing(false) });
          }}
        >
          <label>
            From <input type="date" value={start} onChange={(e) => setStart(e.target.value)} />
          </label>
          <label>
            To <input type="date" value={end} onChange={(e) => setEnd(e.target.value)} />
          </label>
          <button type="submit" className="primary">
            Save validity
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <span className="buttons small">
          <button type="button" className="link" onClick={() => setEditing(true)}>
            edit validity
          </button>
          {item.status !== 'dismissed' && (
            <button type="button" className="link" onClick={() => dismiss.mutate()}>
              dismiss
            </button>
          )}
        </span>
      )}
    </li>
  );
}
