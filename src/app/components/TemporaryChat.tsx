import { useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useAnswerer } from '../hooks';
import { useAnswerStream } from '../useAnswerStream';
import { useUi } from '../uiStore';
import { Markdown } from './Markdown';
import type { ChatRole, Message } from '../../core/base/types';

/** What a temporary chat keeps of a turn, in memory only. */
interface TempTurn extends Pick<Message, 'content'> {
  readonly role: ChatRole;
}

/** Temporary chat: nothing is stored, and memory is neither read nor written. Closing it forgets it. */
export function TemporaryChat() {
  const answers = useAnswerStream();
  const answerer = useAnswerer();
  const setPanel = useUi((s) => s.setPanel);
  const setTemporaryChat = useUi((s) => s.setTemporaryChat);
  const temporaryAt = useUi((s) => s.temporaryChatAt);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [turns, setTurns] = useState<TempTurn[]>([]);
  const [draft, setDraft] = useState('');
  const stream = answers.stream;

  // The message box takes focus before the next keystroke: typing right after clicking
  // "Temporary chat" must land here, not on the button (where Space would press it). A layout
  // effect runs before the browser handles the next event; it runs again on every click of the
  // button (temporaryAt), which may come while this chat is already open.
  useLayoutEffect(() => {
    inputRef.current?.focus();
  }, [temporaryAt]);

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const question = draft.trim();
    if (!question || answers.busy) return;
    const history = turns;
    setTurns([...history, { role: 'user', content: question }]);
    setDraft('');
    // Esc stops it (useAnswerStream listens while an answer is coming).
    const result = await answers.ask({ conversationId: 'temporary', temporary: true, question, history });
    if (result) setTurns((t) => [...t, { role: 'assistant', content: result.answer.answer }]);
  };

  return (
    <section className="conversation-view temporary" aria-label="Temporary chat">
      <div className="banner" role="status" data-testid="temporary-banner">
        Temporary chat: nothing here is stored, and your memory is not used. It is gone when you leave.{' '}
        <button type="button" className="link-button" onClick={() => setTemporaryChat(false)}>
          Leave
        </button>
      </div>
      {answerer.known && !answerer.configured && (
        <div className="banner">
          A temporary chat needs an LLM endpoint.{' '}
          <button type="button" className="link-button" onClick={() => setPanel('settings')}>
            Open settings
          </button>
        </div>
      )}
      <ol className="messages">
        {turns.map((t, i) => (
          <li key={i} className={`message ${t.role}`} data-testid="temp-message">
            <div className="message-head">
              <strong>{t.role === 'user' ? 'You' : 'Assistant'}</strong>
            </div>
            {t.role === 'assistant' ? <Markdown text={t.content} /> : <p>{t.content}</p>}
          </li>
        ))}
        {stream && !stream.error && (
          <li className="message assistant pending" data-testid="streaming-answer">
            <div className="message-head">
              <strong>Assistant</strong>
            </div>
            <Markdown text={stream.text || '…'} live />
            <button type="button" onClick={answers.stop}>
              Stop (Esc)
            </button>
          </li>
        )}
        {stream?.error && (
          <li className="error" role="alert">
            The answer failed: {stream.error}
          </li>
        )}
      </ol>
      <form className="composer" onSubmit={(e) => void send(e)}>
        <textarea
          ref={inputRef}
          aria-label="Message"
          rows={3}
          value={draft}
          placeholder="Ask anything — this chat is not remembered"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) void send(e);
          }}
        />
        <button type="submit" className="primary" disabled={!draft.trim() || answers.busy}>
          Send
        </button>
      </form>
    </section>
  );
}
