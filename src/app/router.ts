/**
 * Addresses for what the user looks at, in the URL's hash (so they work offline: the service
 * worker serves the same app shell whatever the hash, and nothing is asked of a server):
 *
 *   #/c/<conversation>            a conversation
 *   #/p/<project>                 a project's page (its chats, instructions and memory mode)
 *   #/memory/<tab>                a tab of the memory explorer
 *   #/memory/memcells/<episode>   an opened episode
 *   #/memory/<tab>?project=<id>   a tab listing one project's memory (`none`: chats in no project)
 *   #/                            the start screen
 *
 * The UI store stays the one source of truth: each change of what is shown pushes a history entry
 * (so Back and Forward move between conversations, tabs and episodes), Back/Forward and edited
 * addresses are applied to the store, and the last address is kept so opening the app without
 * one reopens where the user was.
 */
import { useEffect } from 'react';
import { useUi, type ExplorerProject, type ExplorerTab } from './uiStore';

const LAST_ROUTE = 'recollect.lastRoute';
const TABS: readonly ExplorerTab[] = [
  'summary',
  'saved',
  'overview',
  'timeline',
  'search',
  'memcells',
  'scenes',
  'profile',
  'foresight',
  'forget',
];

export type Route =
  | { readonly kind: 'home' }
  | { readonly kind: 'conversation'; readonly id: string }
  | { readonly kind: 'project'; readonly id: string }
  | { readonly kind: 'memory'; readonly tab: ExplorerTab; readonly episode: string | null; readonly project?: ExplorerProject };

export function parseRoute(hash: string): Route | null {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        // a stray % typed into the address: take the part as written
        return p;
      }
    });
  if (parts.length === 0) return { kind: 'home' };
  if (parts[0] === 'c' && parts[1]) return { kind: 'conversation', id: parts[1] };
  if (parts[0] === 'p' && parts[1]) return { kind: 'project', id: parts[1] };
  if (parts[0] === 'memory') {
    const tab = TABS.find((t) => t === parts[1]) ?? 'overview';
    const project = new URLSearchParams(search).get('project');
    return { kind: 'memory', tab, episode: tab === 'memcells' && parts[2] ? parts[2] : null, ...(project ? { project } : {}) };
  }
  return null;
}

export function formatRoute(route: Route): string {
  switch (route.kind) {
    case 'home':
      return '#/';
    case 'conversation':
      return `#/c/${encodeURIComponent(route.id)}`;
    case 'project':
      return `#/p/${encodeURIComponent(route.id)}`;
    case 'memory':
      return `#/memory/${route.tab}${route.episode ? `/${encodeURIComponent(route.episode)}` : ''}${
        route.project && route.project !== 'all' ? `?project=${encodeURIComponent(route.project)}` : ''
      }`;
  }
}

type UiSnapshot = ReturnType<typeof useUi.getState>;

/** The address of what the store shows (search and the temporary chat have none: they are transient). */
export function routeOfState(
  s: Pick<UiSnapshot, 'view' | 'explorerTab' | 'explorerFocus' | 'explorerProject' | 'selectedConversationId' | 'selectedProjectId'>,
): Route {
  if (s.view === 'memory') {
    const episode = s.explorerTab === 'memcells' && s.explorerFocus?.kind === 'episode' ? s.explorerFocus.id : null;
    return { kind: 'memory', tab: s.explorerTab, episode, project: s.explorerProject };
  }
  if (s.selectedConversationId) return { kind: 'conversation', id: s.selectedConversationId };
  return s.selectedProjectId ? { kind: 'project', id: s.selectedProjectId } : { kind: 'home' };
}

function applyRoute(route: Route): void {
  const ui = useUi.getState();
  if (route.kind === 'home') ui.selectConversation(null);
  else if (route.kind === 'conversation') ui.selectConversation(route.id);
  else if (route.kind === 'project') ui.selectProject(route.id);
  else ui.openExplorer(route.tab, route.episode ? { kind: 'episode', id: route.episode } : null, route.project ?? 'all');
}

function remember(hash: string): void {
  try {
    localStorage.setItem(LAST_ROUTE, hash);
  } catch {
    /* storage full or blocked: the address still works, it is just not reopened next time */
  }
}

/** Keeps the address bar and the UI store in step; mount once, in App. */
export function useHashRoute(): void {
  useEffect(() => {
    const initial = parseRoute(location.hash) ?? { kind: 'home' };
    const last = location.hash ? null : parseRoute(localStorage.getItem(LAST_ROUTE) ?? '');
    const start = last ?? initial;
    applyRoute(start);
    history.replaceState(history.state, '', formatRoute(start));
    const onNavigate = () => {
      const route = parseRoute(location.hash);
      if (route && formatRoute(route) !== formatRoute(routeOfState(useUi.getState()))) applyRoute(route);
      remember(location.hash);
    };
    window.addEventListener('popstate', onNavigate);
    window.addEventListener('hashchange', onNavigate);
    const off = useUi.subscribe((s) => {
      const hash = formatRoute(routeOfState(s));
      if (hash === location.hash) return;
      history.pushState(null, '', hash);
      remember(hash);
    });
    return () => {
      off();
      window.removeEventListener('popstate', onNavigate);
      window.removeEventListener('hashchange', onNavigate);
    };
  }, []);
}
