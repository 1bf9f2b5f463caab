/**
 * The explorer's project filter: All, each project, or No project. The choice lives in the UI
 * store and the address (#/memory/<tab>?project=<id>); the tabs pass it to the engine's queries
 * (`project` in MemCellQuery, FactQuery, MemorySearchFilters), which apply it in SQL.
 */
import { useEngineQuery } from '../hooks';
import { useUi, type ExplorerProject, type ExplorerTab } from '../uiStore';
import type { ProjectFilter } from '../../core/explorer/explorer';

/** The engine's filter for a picker value: nothing for All, null for No project, else the id. */
export function projectFilterOf(key: ExplorerProject): { readonly project?: ProjectFilter } {
  return key === 'all' ? {} : { project: key === 'none' ? null : key };
}

/** The filter the explorer's tabs read with now. */
export function useProjectFilter(): { readonly project?: ProjectFilter } {
  return projectFilterOf(useUi((s) => s.explorerProject));
}

export function ProjectPicker() {
  const projects = useEngineQuery((q) => q.projects()).data ?? [];
  const value = useUi((s) => s.explorerProject);
  const set = useUi((s) => s.setExplorerProject);
  // Nothing to choose between until a project exists (and a stale address names none of them).
  if (projects.length === 0 && value === 'all') return null;
  const known = value === 'all' || value === 'none' || projects.some((p) => p.id === value);
  return (
    <label className="project-picker">
      Project{' '}
      <select value={value} onChange={(e) => set(e.target.value)} data-testid="explorer-project">
        <option value="all">All</option>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
            {p.memory === 'project-only' ? ' (project-only)' : ''}
          </option>
        ))}
        <option value="none">No project</option>
        {!known && <option value={value}>A project no longer here</option>}
      </select>
    </label>
  );
}

/** Tabs that show the whole memory whatever the picker says (themes and the profile span every chat). */
const WHOLE_MEMORY_TABS: Partial<Record<ExplorerTab, string>> = {
  summary: 'The summary',
  overview: 'The overview',
  scenes: 'Themes',
  profile: 'The profile',
};

/** Under a project filter, says plainly that this tab is not filtered (rather than seeming to be). */
export function WholeMemoryNote({ tab }: { readonly tab: ExplorerTab }) {
  const value = useUi((s) => s.explorerProject);
  const what = WHOLE_MEMORY_TABS[tab];
  if (value === 'all' || !what) return null;
  return (
    <p className="muted" data-testid="whole-memory-note">
      {what} covers all your memory: the project filter applies to Saved memories, Timeline, Search, Episodes, Foresight and Forget.
    </p>
  );
}
