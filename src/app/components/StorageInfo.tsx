import { useCallback, useEffect, useState } from 'react';
import { formatBytes } from '../format';

/**
 * The "Storage" section: asks the browser to keep Recollect's data (navigator.storage.persist()),
 * shows whether it agreed, and shows space used / available where the browser reports it.
 * Browsers decide persistence themselves (Chromium grants it to installed or often-used sites
 * without a prompt; Firefox shows a permission prompt, and has no install on the desktop), and estimate() is approximate — headless Chromium reports
 * unreliable numbers — so nothing here is a promise, only what the browser says.
 */
/**
 * What persistence is, said for every browser: Firefox shows the person a permission prompt;
 * Chromium decides by itself (installed or often-used sites) and never asks; Firefox on the desktop
 * cannot install a web app at all, so "install it" is no advice there.
 */
export const PERSISTENCE_HELP =
  'Your memory lives only in this browser. Unless storage is persistent, the browser may delete it when the disk runs low. ' +
  'Firefox asks you whether to allow it; Chrome and Edge decide by themselves, usually yes for an installed app or a site you use often. ' +
  'Export a backup from time to time either way.';
export const PERSISTENCE_REFUSED =
  "The browser declined for now. In Firefox, allow persistent storage in the site's permissions (the icon left of the address); " +
  'Chrome and Edge may agree once Recollect is installed or used more.';

export interface StorageStatus {
  /** false where navigator.storage (or persist()) is missing, e.g. an insecure origin. */
  readonly supported: boolean;
  /** null until known. */
  readonly persisted: boolean | null;
  readonly usage: number | null;
  readonly quota: number | null;
  /** The last request was refused (the browser may grant it later, e.g. once installed). */
  readonly refused: boolean;
}

export function useStorageStatus(): { status: StorageStatus; requestPersistence: () => Promise<void> } {
  const storage = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  const supported = !!storage && typeof storage.persist === 'function';
  const [status, setStatus] = useState<StorageStatus>({ supported, persisted: null, usage: null, quota: null, refused: false });

  const refresh = useCallback(async () => {
    if (!storage) return;
    const [persisted, estimate] = await Promise.all([
      storage.persisted?.().catch(() => null) ?? null,
      storage.estimate?.().catch(() => null) ?? null,
    ]);
    setStatus((s) => ({ ...s, persisted, usage: estimate?.usage ?? null, quota: estimate?.quota ?? null }));
  }, [storage]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const requestPersistence = useCallback(async () => {
    if (!supported) return;
    const granted = await storage.persist().catch(() => false);
    setStatus((s) => ({ ...s, persisted: granted, refused: !granted }));
    await refresh();
  }, [storage, supported, refresh]);

  return { status, requestPersistence };
}

export function StorageInfo() {
  const { status, requestPersistence } = useStorageStatus();
  return (
    <section aria-label="Storage" data-testid="storage-info">
      <h3>Storage</h3>
      {!status.supported ? (
        <p className="muted">This browser does not let Recollect ask to keep its data (a secure origin is required).</p>
      ) : (
        <>
          <p className="muted">{PERSISTENCE_HELP}</p>
          <p data-testid="storage-persisted">
            {status.persisted === null
              ? 'Checking whether storage is persistent…'
              : status.persisted
                ? '✓ Persistent: the browser will not clear your memory on its own.'
                : 'Not persistent: the browser may clear your memory under storage pressure.'}
          </p>
          {status.persisted === false && (
            <p>
              <button type="button" onClick={() => void requestPersistence()}>
                Keep my memory (ask for persistent storage)
              </button>
              {status.refused && <span className="muted"> {PERSISTENCE_REFUSED}</span>}
            </p>
          )}
          <p className="muted" data-testid="storage-estimate">
            {status.usage !== null && status.quota !== null
              ? `Using ${formatBytes(status.usage)} of about ${formatBytes(status.quota)} available to this site (the browser's estimate).`
              : 'This browser does not report how much space is used.'}
          </p>
        </>
      )}
    </section>
  );
}
