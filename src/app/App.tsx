import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useEngineLifecycle } from './hooks';
import { useUi } from './uiStore';
import { ConversationList, TITLE_SEARCH_ID } from './components/ConversationList';
import { ChatView } from './components/ChatView';
import { ProjectView } from './components/ProjectView';
import { TemporaryChat } from './components/TemporaryChat';
import { SearchResults } from './components/SearchResults';
import { DataActions } from './components/DataActions';
import { MenuItem, MoreMenu } from './components/MoreMenu';
import { PartialImportNotice } from './history/PartialImportNotice';
import { StatusLine } from './components/StatusLine';
import { OwnershipBanner } from './components/OwnershipBanner';
import { TemporarySessionBanner } from './components/TemporarySessionBanner';
import { Notices } from './components/Notices';
import { ModelsPanel } from './components/ModelsPanel';
import { SettingsPanel } from './components/SettingsPanel';
import { MemoryExplorer } from './explorer/MemoryExplorer';
import { FirstRun } from './components/FirstRun';
import { useStartConversation } from './components/ConversationList';
import { ViewBoundary } from './components/ViewBoundary';
import { useOpening } from './components/OwnershipBanner';
import { focusMessageBox, isMessageBoxShortcut, isSearchShortcut, isTitleSearchShortcut } from './keyboard';
import { useHashRoute } from './router';

export function App() {
  const queryClient = useQueryClient();
  const startConversation = useStartConversation();
  useEngineLifecycle(queryClient);
  useHashRoute();
  const selected = useUi((s) => s.selectedConversationId);
  const selectedProject = useUi((s) => s.selectedProjectId);
  const startingConversation = useUi((s) => s.startingConversation);
  const searchText = useUi((s) => s.searchText);
  const setSearchText = useUi((s) => s.setSearchText);
  const searchRef = useRef<HTMLInputElement>(null);
  const panel = useUi((s) => s.panel);
  const ownership = useUi((s) => s.ownership);
  const setPanel = useUi((s) => s.setPanel);
  const temporaryChat = useUi((s) => s.temporaryChat);
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  const sidebarOpen = useUi((s) => s.sidebarOpen);
  const setSidebarOpen = useUi((s) => s.setSidebarOpen);
  const temporarySession = useUi((s) => s.temporarySession);
  // While the memory opens, everything but the open conversation's message box is inert
  // (OwnershipBanner.tsx says why); the other states' dialogs are modal and make all of it inert.
  const opening = useOpening();
  const chatShown = !searchText.trim() && view !== 'memory' && !temporaryChat && !startingConversation && selected !== null;

  useEffect(() => {
    // "/" or Ctrl/Cmd+K focuses search (Escape clears it); Alt+M the message box; Alt+C the title search.
    const onKey = (e: KeyboardEvent) => {
      if (isSearchShortcut(e)) {
        e.preventDefault();
        searchRef.current?.focus();
      } else if (isMessageBoxShortcut(e) && focusMessageBox()) e.preventDefault();
      else if (isTitleSearchShortcut(e)) {
        // On a phone the list is a drawer: open it first, then focus once it is drawn.
        e.preventDefault();
        setSidebarOpen(true);
        requestAnimationFrame(() => document.getElementById(TITLE_SEARCH_ID)?.focus());
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setSidebarOpen]);

  return (
    <div className={`app${sidebarOpen ? ' sidebar-open' : ''}${temporarySession ? ' with-session-note' : ''}`}>
      <a
        className="skip-link"
        href="#main"
        inert={opening}
        onClick={(e) => {
          if (focusMessageBox()) e.preventDefault();
        }}
      >
        Skip to the message box
      </a>
      <TemporarySessionBanner />
      {/* Each control, not the header: the page keeps its heading while the memory opens. */}
      <header className="topbar">
        <button
          type="button"
          className="phone-only"
          inert={opening}
          aria-expanded={sidebarOpen}
          aria-controls="conversation-list"
          onClick={() => setSidebarOpen(!sidebarOpen)}
        >
          Chats
        </button>
        <h1>Recollect</h1>
        <input
          ref={searchRef}
          type="search"
          className="search"
          inert={opening}
          aria-label="Search memory"
          placeholder="Search everything you have said (/)"
          value={searchText}
          onChange={(e) => setSearchText(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && setSearchText('')}
        />
        <button
          type="button"
          inert={opening}
          aria-pressed={view === 'memory'}
          onClick={() => setView(view === 'memory' ? 'chat' : 'memory')}
        >
          Memory
        </button>
        <button type="button" inert={opening} onClick={() => setPanel('settings')}>
          Settings
        </button>
        <PartialImportNotice />
        {/* The rest, used now and then, behind one button (MoreMenu.tsx). */}
        <MoreMenu inert={opening}>
          <MenuItem onClick={() => setPanel('models')}>Models</MenuItem>
          <ViewBoundary name="Data">
            <DataActions />
          </ViewBoundary>
        </MoreMenu>
      </header>
      <ViewBoundary name="The conversation list">
        <ConversationList />
      </ViewBoundary>
      <main id="main" tabIndex={-1}>
        {/* Its content, not the landmark itself: the page keeps its main region while the memory opens. */}
        <div className="contents" inert={opening && !chatShown}>
          {searchText.trim() ? (
            <ViewBoundary name="The search results" resetKey={searchText}>
              <SearchResults text={searchText} />
            </ViewBoundary>
          ) : view === 'memory' ? (
            <MemoryExplorer />
          ) : temporaryChat ? (
            <ViewBoundary name="The temporary chat">
              <TemporaryChat />
            </ViewBoundary>
          ) : startingConversation ? (
            <p className="muted" role="status" data-testid="starting-conversation">
              Starting a new conversation…
            </p>
          ) : selected ? (
            <ViewBoundary name="This conversation" resetKey={selected}>
              <ChatView key={selected} conversationId={selected} />
            </ViewBoundary>
          ) : selectedProject ? (
            <ViewBoundary name="This project" resetKey={selectedProject}>
              <ProjectView projectId={selectedProject} />
            </ViewBoundary>
          ) : (
            <ViewBoundary name="The first steps">
              <FirstRun onStart={() => void startConversation()} />
            </ViewBoundary>
          )}
        </div>
      </main>
      <ViewBoundary name="The status line">
        <StatusLine />
      </ViewBoundary>
      <ViewBoundary name="The memory’s state" advice="Your memory is unchanged. Reload the page.">
        <OwnershipBanner />
      </ViewBoundary>
      {/* Panels wait for the database: a modal <dialog> sits above the "Opening your memory…" overlay. */}
      {panel === 'models' && ownership !== 'connecting' && (
        <ViewBoundary name="Models" onDismiss={() => setPanel(null)}>
          <ModelsPanel onClose={() => setPanel(null)} />
        </ViewBoundary>
      )}
      {panel === 'settings' && ownership !== 'connecting' && (
        <ViewBoundary name="Settings" onDismiss={() => setPanel(null)}>
          <SettingsPanel onClose={() => setPanel(null)} onOpenModels={() => setPanel('models')} />
        </ViewBoundary>
      )}
      <ViewBoundary name="The notices">
        <Notices />
      </ViewBoundary>
    </div>
  );
}
