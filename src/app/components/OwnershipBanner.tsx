/**
 * The memory's state when this tab cannot simply use it: opening, open in another tab, or failed.
 *
 * "Open in another tab" and the two failures are modal like every dialog of the app (Dialog.tsx,
 * the platform's modal <dialog> as an alertdialog named by its heading): the app behind is inert,
 * Tab stays inside, and they cannot be dismissed — there is nothing usable behind them.
 *
 * "Opening your memory…" is deliberately not a modal dialog. The last conversation shows at once
 * on a page load, and a message typed and sent in the first seconds must go through: calls wait
 * for the open (engineClient.ts), and e2e/askOnOpen*.spec.ts hold that promise. A modal dialog
 * would make the message box inert too. So this one is a named status card, and the app marks
 * everything else inert while it shows (App.tsx, ChatView.tsx, `useOpening`): the composer — the
 * box and Send — is the one thing usable, and notices stay readable (an engine restart's notice
 * shows while the memory reopens).
 */
import { useEngineClient, useStartTemporarySession } from '../hooks';
import { useUi } from '../uiStore';
import { formatCount } from '../../core/base/numbers';
import { Dialog } from './Dialog';

/** Whether the memory is opening: everything but the message box is inert meanwhile (see the header). */
export const useOpening = () => useUi((s) => s.ownership === 'connecting');

export function OwnershipBanner() {
  const ownership = useUi((s) => s.ownership);
  const error = useUi((s) => s.ownershipError);
  const upgrade = useUi((s) => s.upgrade);
  const client = useEngineClient();
  const startTemporary = useStartTemporarySession();
  if (ownership === 'owner') return null;
  if (ownership === 'connecting') {
    return (
      <div className="overlay opening">
        <div className="card" role="status" aria-label="Opening your memory">
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
      <Dialog title="This window cannot keep a memory" role="alertdialog" testId="storage-unavailable">
        <p>{error.message}</p>
        <p>
          Or use a temporary session here: everything works, nothing is kept after this window closes, and Export saves a copy you can
          import in a normal window.
        </p>
        <button type="button" className="primary" data-autofocus onClick={() => void startTemporary()}>
          Use a temporary session
        </button>
      </Dialog>
    );
  }
  if (ownership === 'failed') {
    return (
      <Dialog title="Recollect could not open its memory" role="alertdialog" testId="open-failed">
        <p>{error?.message ?? 'Unknown error.'}</p>
        <p>
          Your data has not been changed. Try reloading the page; if it keeps failing, export from a working tab or check that this browser
          supports the Origin Private File System.
        </p>
        <button type="button" data-autofocus onClick={() => window.location.reload()}>
          Reload
        </button>
      </Dialog>
    );
  }
  return (
    <Dialog title="Recollect is open in another tab" role="alertdialog" testId="open-elsewhere">
      <p>
        Only one tab at a time can use your memory, so nothing is ever written twice. This tab takes over automatically when the other one
        closes.
      </p>
      <button type="button" className="primary" data-autofocus onClick={() => void client.requestTakeover()}>
        Use Recollect here
      </button>
    </Dialog>
  );
}
