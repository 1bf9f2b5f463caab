import '../core/base/zodJitless'; // first: before any schema is built (see the module)
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { EngineContext } from './hooks';
import { createEngineClient } from './engineClient';
import { noServiceWorker, registerServiceWorker } from './serviceWorkerUpdates';
import { UpdateBanner } from './components/UpdateBanner';
import { ViewBoundary } from './components/ViewBoundary';
// Self-hosted Inter (OFL): Vite bundles its woff2 files, so the text face works offline.
import '@fontsource-variable/inter';
import './styles.css';

const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false, refetchOnWindowFocus: false } } });
const engineClient = createEngineClient();
// For the import benchmark's "does the app still answer while it imports" step: under automation
// only (navigator.webdriver), the engine the UI uses, so a search can be timed while the modal
// import dialog covers the search box. A user's browser never has it.
if (navigator.webdriver) Object.defineProperty(window, 'recollectEngine', { get: () => engineClient.engine });
// Offline use and the update prompt (workers/sw.ts); the dev server registers nothing.
const updates = 'serviceWorker' in navigator ? registerServiceWorker() : noServiceWorker;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <EngineContext.Provider value={engineClient}>
      <QueryClientProvider client={queryClient}>
        {/* The last line of defence: React unmounts the whole tree when a render error reaches the root. */}
        <ViewBoundary
          name="Recollect"
          advice="Your memory is unchanged. Reload the page; if this keeps happening, download your memory from a working tab."
        >
          <App />
        </ViewBoundary>
        <ViewBoundary name="The update notice">
          <UpdateBanner updates={updates} />
        </ViewBoundary>
      </QueryClientProvider>
    </EngineContext.Provider>
  </StrictMode>,
);
