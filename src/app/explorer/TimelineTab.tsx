/**
 * The timeline picture: episodes over time, one lane per theme (the busiest eight in view, the
 * rest in "Other"), coloured like the theme map, with plans ahead (active foresight) drawn to the
 * right of a "now" line. It opens on now (the last three months and the next two weeks) and zooms
 * and pans over the years with its buttons or the mouse wheel; every episode in the window is
 * read, page by page. Clicking an episode opens it. Label and line share one x scale.
 */
import { useState } from 'react';
import { useProjectFilter } from './ProjectPicker';
import { useEngineQuery } from '../hooks';
import { episodeName } from '../../core/explorer/episodeLabel';
import { useUi } from '../uiStore';
import { formatTime, plural } from '../format';

const DAY = 86_400_000;
const LANES = 8;
const COLOURS = ['#3856d8', '#2a9d8f', '#e76f51', '#8a5cf6', '#d4a017', '#c2410c', '#0e7490', '#be185d'];
const LANE_H = 26;
const LEFT = 120; // px for lane names
const MIN_SPAN = 2 * DAY;
const MAX_SPAN = 30 * 365 * DAY;

interface Window {
  readonly end: number;
  readonly span: number;
}

/** The window that opens on now: three months back, two weeks ahead (plans). */
export function windowOnNow(now: number): Window {
  return { end: now + 14 * DAY, span: 104 * DAY };
}

/** Zooms by `factor` (< 1 in, > 1 out) around the window's point at `at` (0 = left edge, 1 = right). */
export function zoomWindow(w: Window, factor: number, at = 0.5): Window {
  const span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, w.span * factor));
  const pivot = w.end - w.span * (1 - at);
  return { end: Math.round(pivot + span * (1 - at)), span: Math.round(span) };
}

export function TimelineTab() {
  const [view, setView] = useState<Window>(() => windowOnNow(Date.now()));
  const from = view.end - view.span;
  const inProject = useProjectFilter();
  const { project } = inProject;
  const cells = useEngineQuery((q) => q.timelineCells(from, view.end, project));
  const oldest = useEngineQuery((q) => q.memCells({ limit: 1, order: 'asc' }));
  // The plans lane follows the project filter like the episodes.
  const foresight = useEngineQuery((q) => q.foresightAll({ ...inProject, activeWithin: { from, to: view.end } }));
  const open = useUi((s) => s.openExplorer);
  const now = Date.now();
  const list = cells.data ?? [];
  const plans = foresight.data ?? [];

  const sizes = new Map<string, { title: string; n: number }>();
  for (const c of list)
    if (c.sceneId) sizes.set(c.sceneId, { title: c.sceneTitle ?? 'Untitled theme', n: (sizes.get(c.sceneId)?.n ?? 0) + 1 });
  const lanes = [...sizes.entries()]
    .sort((a, b) => b[1].n - a[1].n)
    .slice(0, LANES)
    .map(([id, v]) => ({ id, title: v.title }));
  const laneOf = (sceneId: string | null) => {
    const i = lanes.findIndex((l) => l.id === sceneId);
    return i >= 0 ? i : lanes.length; // "Other"
  };
  const rows = lanes.length + 2; // themes, Other, Plans ahead
  const min = from;
  const max = view.end;
  const W = 1000;
  const x = (t: number) => LEFT + ((t - min) / (max - min)) * (W - LEFT - 10);
  const height = rows * LANE_H + 24;
  const first = oldest.data?.items[0]?.startAt;
  const pan = (d: number) => setView((w) => ({ ...w, end: Math.round(w.end + d * w.span) }));

  if (oldest.data?.total === 0 && plans.length === 0)
    return <p className="muted">Nothing to draw yet: episodes appear here as conversations are organised.</p>;
  return (
    <figure className="timeline-picture" data-testid="explorer-timeline">
      <div className="buttons timeline-controls" role="group" aria-label="Timeline window">
        <button type="button" onClick={() => pan(-0.5)}>
          ← Earlier
        </button>
        <button type="button" onClick={() => pan(0.5)}>
          Later →
        </button>
        <button type="button" onClick={() => setView((w) => zoomWindow(w, 0.5))}>
          Zoom in
        </button>
        <button type="button" onClick={() => setView((w) => zoomWindow(w, 2))}>
          Zoom out
        </button>
        <button type="button" onClick={() => setView(windowOnNow(Date.now()))}>
          Now
        </button>
        {first !== undefined && (
          <button
            type="button"
            onClick={() => setView({ end: now + 14 * DAY, span: Math.min(MAX_SPAN, now + 14 * DAY - first + 7 * DAY) })}
          >
            All of it
          </button>
        )}
        <span className="muted" data-testid="timeline-range">
          {formatTime(min)} – {formatTime(max)} · {plural(list.length, 'episode')}
        </span>
      </div>
      <svg
        viewBox={`0 0 ${W} ${height}`}
        role="img"
        onWheel={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          const at = Math.min(1, Math.max(0, (e.clientX - r.left - (LEFT / W) * r.width) / ((r.width * (W - LEFT - 10)) / W)));
          setView((w) => zoomWindow(w, e.deltaY > 0 ? 1.25 : 0.8, at));
        }}
        aria-label={`Timeline of ${plural(list.length, 'episode')} and ${plural(plans.length, 'plan')} from ${formatTime(min)} to ${formatTime(max)}`}
      >
        {[...lanes.map((l) => l.title), 'Other', 'Plans ahead'].map((name, i) => (
          <g key={i}>
            <line x1={LEFT} x2={W - 10} y1={i * LANE_H + LANE_H / 2} y2={i * LANE_H + LANE_H / 2} className="lane" />
            <text x={LEFT - 6} y={i * LANE_H + LANE_H / 2 + 4} textAnchor="end" className="lane-name">
              {name.length > 18 ? `${name.slice(0, 17)}…` : name}
            </text>
          </g>
        ))}
        {list.map((c) => {
          const lane = laneOf(c.sceneId);
          return (
            <circle
              key={c.id}
              cx={x(c.startAt)}
              cy={lane * LANE_H + LANE_H / 2}
              r={Math.min(9, 3 + Math.sqrt(c.turnCount))}
              fill={lane < lanes.length ? COLOURS[lane % COLOURS.length] : '#888'}
              opacity={0.8}
              className="episode-dot"
              onClick={() => open('memcells', { kind: 'episode', id: c.id })}
            >
              <title>{`${episodeName(c)} · ${formatTime(c.startAt)} · ${plural(c.turnCount, 'message')}`}</title>
            </circle>
          );
        })}
        {plans.map((f) => {
          const a = x(Math.max(min, f.startAt ?? f.endAt!));
          const b = x(Math.min(max, f.endAt ?? f.startAt!));
          return (
            <rect key={f.id} x={a} y={(rows - 1) * LANE_H + 6} width={Math.max(6, b - a)} height={LANE_H - 12} rx={3} className="plan-bar">
              <title>{f.content}</title>
            </rect>
          );
        })}
        {now >= min && now <= max && (
          <>
            <line x1={x(now)} x2={x(now)} y1={0} y2={rows * LANE_H} className="now-line" />
            <text x={x(now)} y={rows * LANE_H + 16} textAnchor="middle" className="now-text">
              now
            </text>
          </>
        )}
        <text x={LEFT} y={rows * LANE_H + 16} className="axis-text">
          {new Date(min).toLocaleDateString(undefined, { month: 'short', year: 'numeric' })}
        </text>
        <text x={W - 10} y={rows * LANE_H + 16} textAnchor="end" className="axis-text">
          {new Date(max).toLocaleDateString(undefined, { month: 'short', year: 'numeric' })}
        </text>
      </svg>
      <figcaption className="muted">
        Each dot is an episode (size: how many messages), on the lane of its theme; bars on the last lane are plans ahead. Click a dot to
        open it; zoom with the buttons or the mouse wheel.
      </figcaption>
    </figure>
  );
}
