import { useSyncExternalStore } from 'react';
import type { ServiceWorkerUpdates } from '../serviceWorkerUpdates';

/**
 * "Update available — reload": shown when a new version of Recollect is installed and waiting.
 * Nothing happens until the user clicks, so a reply being read or typed is never lost to a reload.
 */
export function UpdateBanner({ updates }: { readonly updates: ServiceWorkerUpdates }) {
  const state = useSyncExternalStore(updates.subscribe, updates.getState);
  if (state.kind === 'current') return null;
  return (
    <div className="notices update-banner" aria-live="polite">
      <div className="notice" role="status" data-testid="update-banner">
        {state.kind === 'activated-elsewhere' ? (
          <>
            <span>Recollect was updated in another tab. Reload to use the new version.</span>
            <button type="button" className="primary" onClick={updates.reload}>
              Reload
            </button>
          </>
        ) : (
          <>
            <span>Update available — reload to use the new version. Your memory is kept.</span>
            <button type="button" className="primary" disabled={state.kind === 'applying'} onClick={updates.applyUpdate}>
              {state.kind === 'applying' ? 'Reloading…' : 'Reload'}
            </button>
          </>
        )}
      </div>
    </div>
  );
}
