/**
 * The memory's fingerprint in Settings → Sync: a short form of the hash over everything this device
 * holds of the synced memory (engine.sync.stateHash). Two devices showing the same fingerprint hold
 * the same memory, which is how a person checks that sync has caught up everywhere.
 */
import { useEngineQuery } from '../hooks';

/** "3f9a 12c0 88be": the first 12 hex digits, in groups of four. */
export function fingerprintText(hash: string): string {
  return (hash.slice(0, 12).match(/.{1,4}/g) ?? []).join(' ');
}

export function SyncFingerprint() {
  const hash = useEngineQuery((q) => q.syncFingerprint()).data;
  if (!hash) return null;
  return (
    <p className="muted">
      Memory fingerprint: <code data-testid="sync-fingerprint">{fingerprintText(hash)}</code> — the same on every device that holds the same
      memory.
    </p>
  );
}
