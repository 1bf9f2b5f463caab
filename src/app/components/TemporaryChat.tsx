import { useState, type FormEvent } from 'react';
import * as Comlink from 'comlink';
import { useEngineClient, useLlmSettings } from '../hooks';
import { useUi } from '../uiStore';
import { Markdown } from './Markdown';
import type { AskEvent } from '../../core/protocol';

interface TempTurn {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** Temporary chat: nothing is stored, and memory is neither read nor written. Closing it forgets it. */
export function TemporaryChat() {
  const { engine } = useEngineClient();
  const settings = useLlmSettings();
  const setPanel = useUi((s) => s.setPanel);
  const [turns, setTurns] = useState<TempTurn[]>([]);
  const [draft, setDraft] = useState('');
  const [pending, setPending] = useState<{ id: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const question = draft.trim();
    if (!question || pending) return;
    const history = turns;
    setTurns([...history, { role: 'user', content: question }]);
    setDraft('');
    setError(null);
    const id = crypto.randomUUID();
    setPending({ id, text: '' });
    try {
      const result = await engine.ask({ conversationId: 'temporary', temporary: true, question, history, answerId: id }, Comlink.proxy((ev: AskEvent) => {
        if (ev.type === 'delta') setPending((p) => (p && p.id === id ? { ...p, text: p.text + ev.text } : p));
      }) as unknown as (ev: AskEvent) => void);
      setTurns((t) => [...t, { role: 'assistant', content: result.answer.answer }]);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(null);
    }
  };

  return (
    <section className="conversation-view temporary" aria-label="Temporary chat">
      <div className="banner" role="status" data-testid="temporary-banner">
        Temporary chat: nothing here is stored, and your memory is not used. It is gone when you leave.
      </div>
      {!settings.data?.configured && (
        <div className="banner">A temporary chat needs an LLM endpoint. <button type="button" className="link-button" onClick={() => setPanel('settings')}>Open settings</button></div>
      )}
      <ol className="messages">
        {turns.map((t, i) => (
          <li key={i} className={`message ${t.role}`} data-testid="temp-message">
            <header><strong>{t.role === 'user' ? 'You' : 'Assistant'}</strong></header>
            {t.role === 'assistant' ? <Markdown text={t.content} /> : <p>{t.content}</p>}
          </li>
        ))}
        {pending && (
          <li className="message assistant pending" data-testid="streaming-answer">
            <header><strong>Assistant</strong></header>
            <Markdown text={pending.text || '…'} />
            <button type="button" onClick={() => void engine.stopAnswer(pending.id)}>Stop (Esc)</button>
          </li>
        )}
        {error && <li className="error" role="alert">The answer failed: {error}</li>}
      </ol>
      <form className="composer" onSubmit={(e) => void send(e)}>
        <textarea aria-label="Message" rows={3} value={draft} placeholder="Ask anything — this chat is not remembered"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) void send(e); }} />
        <button type="submit" className="primary" disabled={!draft.trim() || !!pending}>Send</button>
      </form>
    </section>
  );
}
