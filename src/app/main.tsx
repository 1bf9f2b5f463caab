import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { EngineContext } from './hooks';
import { createEngineClient } from './engineClient';
import { noServiceWorker, registerServiceWorker } from './serviceWorkerUpdates';
import { UpdateBanner } from './components/UpdateBanner';
import './styles.css';

const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false, refetchOnWindowFocus: false } } });
const engineClient = createEngineClient();
// Offline use and the update prompt (workers/sw.ts); the dev server registers nothing.
const updates = 'serviceWorker' in navigator ? registerServiceWorker() : noServiceWorker;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <EngineContext.Provider value={engineClient}>
      <QueryClientProvider client={queryClient}>
        <App />
        <UpdateBanner updates={updates} />
      </QueryClientProvider>
    </EngineContext.Provider>
  </StrictMode>,
);
