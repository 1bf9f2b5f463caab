import { useEngineQuery } from '../hooks';
import { formatBytes, plural } from '../format';
import { IndexingProgress } from '../history/IndexingProgress';
import { FailedSynthesis } from './FailedSynthesis';
import { useOpening } from './OwnershipBanner';
import { syncStatusText } from '../sync/syncStatusText';

/** " · Sync: synced just now" while sync is on (nothing while it is off, the default). */
function SyncIndicator() {
  const sync = useEngineQuery((q) => q.syncStatus());
  if (!sync.data || sync.data.state === 'off') return null;
  return <span data-testid="sync-indicator"> · Sync: {syncStatusText(sync.data)}</span>;
}

export function StatusLine() {
  const stats = useEngineQuery((q) => q.stats());
  // Inert while the memory opens: only the message box is usable then (OwnershipBanner.tsx).
  const opening = useOpening();
  if (!stats.data)
    return (
      <footer className="status" aria-live="polite" inert={opening}>
        Opening memory…
      </footer>
    );
  const s = stats.data;
  return (
    <footer className="status" aria-live="polite" data-testid="status" inert={opening}>
      Stored on this device · {formatBytes(s.databaseBytes)} · <span data-testid="message-count">{s.messageCount}</span>{' '}
      {s.messageCount === 1 ? 'message' : 'messages'} · {plural(s.conversationCount, 'conversation')}
      {/* After a history import (and after a reload that interrupted its indexing). */}
      <IndexingProgress prefix=" · " minBacklog={50} />
      <FailedSynthesis place="status" />
      <SyncIndicator />
    </footer>
  );
}
