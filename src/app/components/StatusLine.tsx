import { useEngineQuery } from '../hooks';
import { formatBytes, plural } from '../format';
import { IndexingProgress } from '../history/IndexingProgress';
import { FailedSynthesis } from './FailedSynthesis';

export function StatusLine() {
  const stats = useEngineQuery((q) => q.stats());
  if (!stats.data) return <footer className="status" aria-live="polite">Opening memory…</footer>;
  const s = stats.data;
  return (
    <footer className="status" aria-live="polite" data-testid="status">
      Stored on this device · {formatBytes(s.databaseBytes)} · <span data-testid="message-count">{s.messageCount}</span> {s.messageCount === 1 ? 'message' : 'messages'} ·{' '}
      {plural(s.conversationCount, 'conversation')}
      {/* After a history import (and after a reload that interrupted its indexing). */}
      <IndexingProgress prefix=" · " minBacklog={50} />
      <FailedSynthesis place="status" />
    </footer>
  );
}
