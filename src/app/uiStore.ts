/** UI-only state (zustand). Engine data lives in react-query, never here. */
import { create } from 'zustand';
import type { ErrorInfo } from '../core/base/errors';

export type OwnershipState = 'connecting' | 'owner' | 'elsewhere' | 'failed';

export interface Notice {
  readonly id: number;
  readonly kind: 'error' | 'info';
  readonly text: string;
}

export type Panel = 'settings' | 'models' | null;

/** What the main area shows: the chat, or the memory explorer. */
export type MainView = 'chat' | 'memory';
export type ExplorerTab =
  'summary' | 'saved' | 'overview' | 'timeline' | 'search' | 'memcells' | 'scenes' | 'profile' | 'foresight' | 'forget';
/** The explorer's project filter: every project, chats in no project, or one project's id. */
export type ExplorerProject = 'all' | 'none' | (string & {});

/** An item the explorer should open (a citation, a search hit). */
export interface ExplorerFocus {
  readonly kind: 'episode' | 'fact' | 'profile' | 'foresight' | 'scene';
  readonly id: string;
}

interface UiState {
  view: MainView;
  explorerTab: ExplorerTab;
  explorerFocus: ExplorerFocus | null;
  setView(view: MainView): void;
  /** `project`: the explorer's project filter to open with (ExplorerProject); default: the one in use. */
  openExplorer(tab: ExplorerTab, focus?: ExplorerFocus | null, project?: ExplorerProject): void;
  /** Which project's memory the explorer lists ('all', 'none' or a project id); kept in the address. */
  explorerProject: ExplorerProject;
  setExplorerProject(project: ExplorerProject): void;
  /** The project-only project whose page is open: the explorer opened from there defaults to it. */
  projectPageDefault: string | null;
  setProjectPageDefault(id: string | null): void;
  /** The conversation a citation left for the explorer, so the explorer can offer the way back. */
  explorerReturnTo: string | null;
  /** A turn the chat should scroll to and highlight when it opens (a citation into another conversation). */
  focusMessageId: string | null;
  panel: Panel;
  /** Phone layout: the conversation list is a drawer, closed unless asked for. */
  sidebarOpen: boolean;
  setSidebarOpen(open: boolean): void;
  temporaryChat: boolean;
  /** When temporary chat was last asked for (its message box takes focus each time). */
  temporaryChatAt: number;
  setPanel(panel: Panel): void;
  /** Opens Settings, optionally with an endpoint preset filled in (the first-run checklist). */
  openSettings(presetId?: string): void;
  settingsPreset: string | null;
  setTemporaryChat(on: boolean): void;
  ownership: OwnershipState;
  ownershipError: ErrorInfo | null;
  /** The open memory keeps nothing (a window without OPFS chose a temporary session). */
  temporarySession: boolean;
  /** A migration rebuilding data while the memory opens (e.g. re-indexing for search), or null. */
  upgrade: { readonly done: number; readonly total: number } | null;
  setUpgrade(upgrade: { readonly done: number; readonly total: number } | null): void;
  selectedConversationId: string | null;
  /** A project's page (#/p/<id>) when no conversation is open. */
  selectedProjectId: string | null;
  selectProject(id: string | null): void;
  /** "+ New conversation" is waiting for the engine to create it: no conversation is shown meanwhile. */
  startingConversation: boolean;
  setStartingConversation(on: boolean): void;
  searchText: string;
  notices: readonly Notice[];
  setOwnership(state: OwnershipState, error?: ErrorInfo | null, temporary?: boolean): void;
  selectConversation(id: string | null, focusMessageId?: string | null): void;
  setSearchText(text: string): void;
  notify(kind: Notice['kind'], text: string): void;
  dismiss(id: number): void;
}

let nextNotice = 1;

export const useUi = create<UiState>((set) => ({
  view: 'chat',
  explorerTab: 'overview',
  explorerFocus: null,
  setView: (view) => set({ view, searchText: '', explorerReturnTo: null }),
  openExplorer: (explorerTab, explorerFocus = null, project) =>
    set((s) => ({
      view: 'memory',
      explorerTab,
      explorerFocus,
      explorerProject: project ?? (s.view === 'chat' && s.projectPageDefault ? s.projectPageDefault : s.explorerProject),
      searchText: '',
      // Only a jump from an open conversation has somewhere to return to; tab switches keep it.
      explorerReturnTo: s.view === 'chat' && explorerFocus ? s.selectedConversationId : s.view === 'memory' ? s.explorerReturnTo : null,
    })),
  explorerProject: 'all',
  setExplorerProject: (explorerProject) => set({ explorerProject }),
  projectPageDefault: null,
  setProjectPageDefault: (projectPageDefault) => set({ projectPageDefault }),
  explorerReturnTo: null,
  focusMessageId: null,
  panel: null,
  sidebarOpen: false,
  setSidebarOpen: (sidebarOpen) => set({ sidebarOpen }),
  temporaryChat: false,
  temporaryChatAt: 0,
  setPanel: (panel) => set({ panel, settingsPreset: null }),
  openSettings: (presetId) => set({ panel: 'settings', settingsPreset: presetId ?? null }),
  settingsPreset: null,
  setTemporaryChat: (temporaryChat) =>
    set((s) => ({
      temporaryChat,
      temporaryChatAt: temporaryChat ? s.temporaryChatAt + 1 : s.temporaryChatAt,
      searchText: '',
      view: 'chat',
      sidebarOpen: false,
    })),
  ownership: 'connecting',
  ownershipError: null,
  temporarySession: false,
  upgrade: null,
  setUpgrade: (upgrade) => set({ upgrade }),
  selectedConversationId: null,
  selectedProjectId: null,
  selectProject: (selectedProjectId) =>
    set({
      selectedProjectId,
      selectedConversationId: null,
      focusMessageId: null,
      startingConversation: false,
      temporaryChat: false,
      view: 'chat',
      explorerReturnTo: null,
      sidebarOpen: false,
      searchText: '',
    }),
  startingConversation: false,
  setStartingConversation: (startingConversation) => set({ startingConversation }),
  searchText: '',
  notices: [],
  setOwnership: (ownership, error = null, temporary) =>
    set({ ownership, ownershipError: error, ...(temporary === undefined ? {} : { temporarySession: temporary }) }),
  selectConversation: (selectedConversationId, focusMessageId = null) =>
    set({
      selectedConversationId,
      selectedProjectId: null,
      focusMessageId,
      startingConversation: false,
      temporaryChat: false,
      view: 'chat',
      explorerReturnTo: null,
      sidebarOpen: false,
    }),
  setSearchText: (searchText) => set({ searchText }),
  notify: (kind, text) => set((s) => ({ notices: [...s.notices.slice(-4), { id: nextNotice++, kind, text }] })),
  dismiss: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
}));
