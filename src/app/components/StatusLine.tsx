import { useEngineQuery } from '../hooks';
import { formatBytes, plural } from '../format';

export function StatusLine() {
  const stats = useEngineQuery((q) => q.stats());
  if (!stats.data) return <footer className="status" aria-live="polite">Opening memory…</footer>;
  const s = stats.data;
  return (
    <footer className="status" aria-live="polite" data-testid="status">
      Stored on this device · {formatBytes(s.databaseBytes)} · <span data-testid="message-count">{s.messageCount}</span> {s.messageCount === 1 ? 'message' : 'messages'} ·{' '}
      {plural(s.conversationCount, 'conversation')}
    </footer>
  );
}
