import { useEffect, useState } from 'react';
import { useEngineQuery, useMemoryMutation } from '../hooks';
import { formatTime } from '../format';
import { useUi } from '../uiStore';
import { SCENE_MAP_BOUND, type SceneView } from '../../core/explorer/explorer';
import { formatCount } from '../../core/base/numbers';

const COLOURS = ['#3856d8', '#d8572a', '#2a9d8f', '#c2185b', '#8e6c00', '#6a4c93', '#1b998b', '#e76f51', '#457b9d', '#9c6644'];

export function ScenesTab() {
  const scenes = useEngineQuery((q) => q.scenes());
  const map = useEngineQuery((q) => q.sceneMap());
  const focus = useUi((s) => s.explorerFocus);
  const open = useUi((s) => s.openExplorer);
  const [selected, setSelected] = useState<string | null>(focus?.kind === 'scene' ? focus.id : null);
  useEffect(() => {
    if (focus?.kind === 'scene') setSelected(focus.id);
  }, [focus]);
  const list = scenes.data ?? [];
  const points = map.data?.points ?? [];
  const colour = new Map(list.map((s, i) => [s.id, COLOURS[i % COLOURS.length]!]));
  const maxHeat = Math.max(1e-9, ...list.map((s) => s.heat));
  const scene = list.find((s) => s.id === selected) ?? null;
  return (
    <div className="scenes">
      <figure className="scene-map" data-testid="scene-map">
        <svg viewBox="-1.15 -1.15 2.3 2.3" role="img" aria-label={`Map of ${points.length} episodes coloured by theme`}>
          <rect x="-1.15" y="-1.15" width="2.3" height="2.3" className="map-bg" />
          {points.map((p) => (
            <circle
              key={p.memcellId}
              cx={p.x}
              cy={-p.y}
              r={p.sceneId === selected ? 0.06 : 0.04}
              fill={p.sceneId ? (colour.get(p.sceneId) ?? '#999') : '#999'}
              opacity={selected && p.sceneId !== selected ? 0.35 : 0.9}
              onClick={() => open('memcells', { kind: 'episode', id: p.memcellId })}
            >
              <title>
                {p.title ?? 'Untitled episode'} · {formatTime(p.startAt)}
              </title>
            </circle>
          ))}
        </svg>
        <figcaption className="muted">
          Each dot is an episode, placed by meaning (2-D projection of its vector) and coloured by scene. Click a dot to open it.
        </figcaption>
        {/* The map is bounded (SCENE_MAP_BOUND says why): say so when the memory has more episodes. */}
        {map.data && points.length < map.data.episodes && points.length >= SCENE_MAP_BOUND && (
          <p className="notice" role="note" data-testid="scene-map-bound">
            The map shows the newest {formatCount(points.length)} of {formatCount(map.data.episodes)} episodes; older ones are in Episodes,
            the Timeline and each theme’s members.
          </p>
        )}
      </figure>
      <div className="scene-list">
        <ul className="plain" aria-label="Themes">
          {list.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                className={`scene-row${selected === s.id ? ' active' : ''}`}
                aria-current={selected === s.id}
                onClick={() => setSelected(s.id)}
                data-testid="scene-row"
              >
                <span className="swatch" style={{ background: colour.get(s.id) }} />
                <span className="grow">{s.title ?? 'Untitled theme'}</span>
                <span className="muted">{s.memberCount} ep.</span>
                <span className="heat" title={`heat ${s.heat.toFixed(2)}`} style={{ width: `${Math.round((s.heat / maxHeat) * 40)}px` }} />
              </button>
            </li>
          ))}
        </ul>
        {list.length === 0 && (
          <p className="muted">No themes yet: they form as episodes close. A theme groups episodes about the same subject.</p>
        )}
      </div>
      {scene && (
        <SceneDetail key={scene.id} scene={scene} others={list.filter((s) => s.id !== scene.id)} onGone={() => setSelected(null)} />
      )}
    </div>
  );
}

function SceneDetail({ scene, others, onGone }: { scene: SceneView; others: readonly SceneView[]; onGone: () => void }) {
  const open = useUi((s) => s.openExplorer);
  const [title, setTitle] = useState(scene.title ?? '');
  const [mergeIds, setMergeIds] = useState<string[]>([]);
  const [splitIds, setSplitIds] = useState<string[]>([]);
  const rename = useMemoryMutation((e, t: string) => e.memory.renameScene(scene.id, t));
  const merge = useMemoryMutation((e, ids: string[]) => e.memory.mergeScenes(scene.id, ids));
  const split = useMemoryMutation((e, ids: string[]) => e.memory.splitScene(scene.id, ids));
  const first = scene.members[0]?.startAt ?? 0;
  const last = scene.members[scene.members.length - 1]?.endAt ?? first;
  const span = Math.max(1, last - first);
  return (
    <section className="scene-detail" aria-label="Theme detail" data-testid="scene-detail">
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate(title);
        }}
      >
        <input aria-label="Theme name" value={title} onChange={(e) => setTitle(e.target.value)} />
        <button type="submit">Rename</button>
      </form>
      <p>{scene.summary ?? <span className="muted">No summary yet.</span>}</p>
      <p className="muted">
        Heat {scene.heat.toFixed(2)} · last active {scene.lastActivityAt ? formatTime(scene.lastActivityAt) : '—'}
      </p>
      <svg className="members-time" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label="Members over time">
        <line x1="0" y1="3" x2="100" y2="3" className="axis" />
        {scene.members.map((m) => (
          <rect key={m.id} x={((m.startAt - first) / span) * 98} y="1" width="2" height="4" className="member-tick" />
        ))}
      </svg>
      <h3>Members</h3>
      <ul className="plain">
        {scene.members.map((m) => (
          <li key={m.id}>
            <label>
              <input
                type="checkbox"
                aria-label={`Select ${m.title ?? 'episode'} to split`}
                checked={splitIds.includes(m.id)}
                onChange={(e) => setSplitIds(e.target.checked ? [...splitIds, m.id] : splitIds.filter((x) => x !== m.id))}
              />
            </label>{' '}
            <button type="button" className="link-button" onClick={() => open('memcells', { kind: 'episode', id: m.id })}>
              {m.title ?? 'Untitled episode'}
            </button>
            <span className="muted"> {formatTime(m.startAt)}</span>
          </li>
        ))}
      </ul>
      <button
        type="button"
        disabled={splitIds.length === 0 || split.isPending}
        onClick={() => split.mutate(splitIds, { onSuccess: () => setSplitIds([]) })}
      >
        Split selected into a new theme
      </button>
      {others.length > 0 && (
        <>
          <h3>Merge other themes into this one</h3>
          <ul className="plain">
            {others.map((o) => (
              <li key={o.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={mergeIds.includes(o.id)}
                    onChange={(e) => setMergeIds(e.target.checked ? [...mergeIds, o.id] : mergeIds.filter((x) => x !== o.id))}
                  />{' '}
                  {o.title ?? 'Untitled theme'} <span className="muted">({o.memberCount})</span>
                </label>
              </li>
            ))}
          </ul>
          <button
            type="button"
            disabled={mergeIds.length === 0 || merge.isPending}
            onClick={() => merge.mutate(mergeIds, { onSuccess: () => setMergeIds([]) })}
          >
            Merge
          </button>
        </>
      )}
      <button type="button" className="link" onClick={onGone}>
        close
      </button>
    </section>
  );
}
