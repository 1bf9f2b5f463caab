/** The memory explorer: tabs over everything Recollect remembers. Rendering only; data through hooks. */
import { useRef, type KeyboardEvent } from 'react';
import { useUi, type ExplorerTab } from '../uiStore';
import { OverviewTab } from './OverviewTab';
import { SavedMemoriesTab } from './SavedMemoriesTab';
import { SummaryTab } from './SummaryTab';
import { TimelineTab } from './TimelineTab';
import { SearchTab } from './SearchTab';
import { MemCellsTab } from './MemCellsTab';
import { ScenesTab } from './ScenesTab';
import { ProfileTab } from './ProfileTab';
import { ForesightTab } from './ForesightTab';
import { ForgetTab } from './ForgetTab';
import { ViewBoundary } from '../components/ViewBoundary';
import { ProjectPicker, WholeMemoryNote } from './ProjectPicker';
import './explorer.css';

// Three groups, in this order: what it knows, how it is organised, tools. One tablist still (the
// arrows walk all of them); the group names are drawn for the eye, since a tablist may hold only tabs.
const GROUPS: readonly { label: string; tabs: readonly { id: ExplorerTab; label: string }[] }[] = [
  {
    label: 'What it knows',
    tabs: [
      { id: 'summary', label: 'Summary' },
      { id: 'saved', label: 'Saved memories' },
      { id: 'profile', label: 'Profile' },
      { id: 'foresight', label: 'Foresight' },
    ],
  },
  {
    label: 'How it is organised',
    tabs: [
      { id: 'overview', label: 'Overview' },
      { id: 'timeline', label: 'Timeline' },
      { id: 'memcells', label: 'Episodes' },
      { id: 'scenes', label: 'Themes' },
    ],
  },
  {
    label: 'Tools',
    tabs: [
      { id: 'search', label: 'Search' },
      { id: 'forget', label: 'Forget' },
    ],
  },
];
const TABS = GROUPS.flatMap((g) => g.tabs);

export function MemoryExplorer() {
  const tab = useUi((s) => s.explorerTab);
  const project = useUi((s) => s.explorerProject);
  const open = useUi((s) => s.openExplorer);
  const returnTo = useUi((s) => s.explorerReturnTo);
  const selectConversation = useUi((s) => s.selectConversation);
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  // Arrow keys move between tabs (WAI-ARIA tabs pattern).
  const onKey = (e: KeyboardEvent, i: number) => {
    const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!d) return;
    const next = (i + d + TABS.length) % TABS.length;
    open(TABS[next]!.id);
    refs.current[next]?.focus();
  };
  return (
    <section className="explorer" aria-label="Memory explorer">
      {/* The page's outline: h1 Recollect › h2 Memory › each tab's h3 sections. */}
      <h2 className="visually-hidden">Memory</h2>
      {returnTo && (
        <button type="button" className="back-to-chat" onClick={() => selectConversation(returnTo)}>
          ← Back to the conversation
        </button>
      )}
      <ProjectPicker />
      <div className="tabs" role="tablist" aria-label="Memory views">
        {GROUPS.map((g) => (
          <div key={g.label} className="tab-group" role="presentation">
            <span className="tab-group-label" aria-hidden="true">
              {g.label}
            </span>
            <div className="tab-group-tabs" role="presentation">
              {g.tabs.map((t) => {
                const i = TABS.indexOf(t);
                return (
                  <button
                    key={t.id}
                    ref={(el) => {
                      refs.current[i] = el;
                    }}
                    type="button"
                    role="tab"
                    id={`tab-${t.id}`}
                    aria-selected={tab === t.id}
                    aria-controls="explorer-panel"
                    tabIndex={tab === t.id ? 0 : -1}
                    onClick={() => open(t.id)}
                    onKeyDown={(e) => onKey(e, i)}
                  >
                    {t.label}
                  </button>
                );
              })}
            </div>
          </div>
        ))}
      </div>
      <div className="explorer-panel" id="explorer-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        <WholeMemoryNote tab={tab} />
        <ViewBoundary name={`The ${TABS.find((t) => t.id === tab)?.label ?? ''} tab`} resetKey={`${tab}:${project}`}>
          {tab === 'summary' && <SummaryTab />}
          {tab === 'saved' && <SavedMemoriesTab />}
          {tab === 'overview' && <OverviewTab />}
          {tab === 'timeline' && <TimelineTab />}
          {tab === 'search' && <SearchTab />}
          {tab === 'memcells' && <MemCellsTab />}
          {tab === 'scenes' && <ScenesTab />}
          {tab === 'profile' && <ProfileTab />}
          {tab === 'foresight' && <ForesightTab />}
          {tab === 'forget' && <ForgetTab />}
        </ViewBoundary>
      </div>
    </section>
  );
}
