import { useEngineClient, useStartTemporarySession } from '../hooks';
import { useUi } from '../uiStore';
import { formatCount } from '../../core/base/numbers';

/** Shown while another tab owns the database: this tab never opens a second writer. */
export function OwnershipBanner() {
  const ownership = useUi((s) => s.ownership);
  const error = useUi((s) => s.ownershipError);
  const upgrade = useUi((s) => s.upgrade);
  const client = useEngineClient();
  const startTemporary = useStartTemporarySession();
  if (ownership === 'owner') return null;
  if (ownership === 'connecting') {
    return (
      <div className="overlay" role="status">
        <div className="card">
          Opening your memory…
          {upgrade && (
            <p data-testid="memory-upgrade">
              Updating the search index for this version: {formatCount(upgrade.done)} / {formatCount(upgrade.total)}
              <progress max={upgrade.total} value={upgrade.done} aria-label="Search index update" />
            </p>
          )}
        </div>
      </div>
    );
  }
  if (ownership === 'failed' && error?.code === 'STORAGE_UNAVAILABLE') {
    // Reloading or exporting cannot help here: this window keeps no files (a Firefox private window,
    // or a browser without OPFS); the message says which.
    return (
      <div className="overlay" role="alert" data-testid="storage-unavailable">
        <div className="card">
          <h2>This window cannot keep a memory</h2>
          <p>{error.message}</p>
          <p>Or use a temporary session here: everything works, nothing is kept after this window closes, and Export saves a copy you can import in a normal window.</p>
          <button type="button" className="primary" onClick={() => void startTemporary()}>Use a temporary session</button>
        </div>
      </div>
    );
  }
  if (ownership === 'failed') {
    return (
      <div className="overlay" role="alert">
        <div className="card">
          <h2>Recollect could not open its memory</h2>
          <p>{error?.message ?? 'Unknown error.'}</p>
          <p>Your data has not been changed. Try reloading the page; if it keeps failing, export from a working tab or check that this browser supports the Origin Private File System.</p>
          <button type="button" onClick={() => window.location.reload()}>Reload</button>
        </div>
      </div>
    );
  }
  return (
    <div className="overlay" role="alert" data-testid="open-elsewhere">
      <div className="card">
        <h2>Recollect is open in another tab</h2>
        <p>Only one tab at a time can use your memory, so nothing is ever written twice. This tab takes over automatically when the other one closes.</p>
        <button type="button" className="primary" onClick={() => void client.requestTakeover()}>Use Recollect here</button>
      </div>
    </div>
  );
}
