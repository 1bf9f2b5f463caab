import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { EngineContext } from './hooks';
import { createEngineClient } from './engineClient';
import './styles.css';

const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false, refetchOnWindowFocus: false } } });
const engineClient = createEngineClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <EngineContext.Provider value={engineClient}>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </EngineContext.Provider>
  </StrictMode>,
);
