import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useAppendTurn, useDeleteMessage, useMessages } from '../hooks';
import { useUi } from '../uiStore';
import { formatTime } from '../format';

export function ConversationView({ conversationId }: { conversationId: string }) {
  const messages = useMessages(conversationId);
  const append = useAppendTurn();
  const remove = useDeleteMessage();
  const notify = useUi((s) => s.notify);
  const [draft, setDraft] = useState('');
  const endRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [messages.data?.length]);

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const content = draft;
    if (!content.trim() || append.isPending) return;
    try {
      // The id is generated here, so a retry after a lost reply cannot store the turn twice.
      await append.mutateAsync({ id: crypto.randomUUID(), conversationId, role: 'user', speaker: 'You', content });
      setDraft((d) => (d === content ? '' : d));
    } catch (err) {
      // The draft stays in the composer: nothing the user typed is lost.
      notify('error', err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <section className="conversation-view" aria-label="Conversation">
      <ol className="messages">
        {messages.data?.length === 0 && <li className="empty">No turns yet. Type below; every turn is stored on this device.</li>}
        {messages.data?.map((m) => (
          <li key={m.id} className={`message ${m.role}`} data-testid="message">
            <header>
              <strong>{m.speaker}</strong> <time dateTime={new Date(m.occurredAt).toISOString()}>{formatTime(m.occurredAt)}</time>
              <button type="button" className="link" aria-label="Delete message"
                onClick={() => window.confirm('Delete this turn from memory?') && remove.mutate(m.id)}>delete</button>
            </header>
            <p>{m.content}</p>
          </li>
        ))}
      </ol>
      <div ref={endRef} />
      <form className="composer" onSubmit={(e) => void send(e)}>
        <textarea
          aria-label="Message"
          placeholder="Write a message… (Enter to send, Shift+Enter for a new line)"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) void send(e);
          }}
          rows={3}
        />
        <button type="submit" className="primary" disabled={!draft.trim() || append.isPending}>Send</button>
      </form>
    </section>
  );
}
