/**
 * The memory's fingerprint in Settings → Sync: a short form of the hash over everything this device
 * holds of the synced memory (engine.sync.stateHash). Two devices showing the same fingerprint hold
 * the same memory, which is how a person checks that sync has caught up everywhere.
 *
 * Shown only while the status is `synced`: the hash covers the whole memory, and while syncing (a
 * first download sends a status per batch) it would be both expensive to read on every status and
 * out of date the moment it was shown — a person comparing devices would compare a moving value.
 * hooks.ts drops the value when the state leaves `synced`, so an old one is never shown as current.
 */
import { useEngineQuery } from '../hooks';
import type { SyncStatus } from '../../core/protocol/sync';

/** "3f9a 12c0 88be": the first 12 hex digits, in groups of four. */
export function fingerprintText(hash: string): string {
  return (hash.slice(0, 12).match(/.{1,4}/g) ?? []).join(' ');
}

/** What stands in for the fingerprint while it is not shown. */
export const FINGERPRINT_WHEN_SYNCED = 'shown once this device is synced, to compare with your other devices.';

export function SyncFingerprint({ status }: { status: SyncStatus }) {
  const hash = useEngineQuery((q) => q.syncFingerprint(status)).data;
  const synced = status.state === 'synced';
  return (
    <p className="muted" data-testid="sync-fingerprint-line">
      Memory fingerprint:{' '}
      {synced && hash ? (
        <>
          <code data-testid="sync-fingerprint">{fingerprintText(hash)}</code> — the same on every device that holds the same memory.
        </>
      ) : synced ? (
        'working it out…'
      ) : (
        FINGERPRINT_WHEN_SYNCED
      )}
    </p>
  );
}
