import { useEffect, useRef, useState, type FormEvent } from 'react';
import * as Comlink from 'comlink';
import { useAppendTurn, useDeleteMessage, useEngineClient, useLlmSettings, useMessages } from '../hooks';
import { useUi } from '../uiStore';
import { formatTime } from '../format';
import { Markdown } from './Markdown';
import { SentRequestView } from './SentRequestView';
import { CutOffMark, PartialMark } from './AnswerCutMarks';
import type { Message } from '../../core/base/types';
import type { Citation } from '../../core/recall/answerContext';
import type { SentRequest } from '../../core/recall/answer';
import type { AskEvent } from '../../core/protocol';

interface AnswerMeta {
  readonly citations?: readonly Citation[];
  readonly requests?: readonly SentRequest[];
  readonly usage?: Readonly<Record<string, { promptTokens: number; completionTokens: number }>>;
  readonly stopped?: boolean;
  readonly answerTo?: string | null;
}

export interface Streaming {
  readonly answerId: string;
  readonly text: string;
  readonly stage: string;
  readonly error: string | null;
  readonly forMessageId: string | null;
}

const STAGE_LABEL: Record<string, string> = { retrieval: 'Recalling…', sufficiency: 'Checking what memory holds…', 'follow-up': 'Looking further…', answer: 'Answering…' };

function tokensOf(meta: AnswerMeta): number {
  return Object.values(meta.usage ?? {}).reduce((a, u) => a + u.promptTokens + u.completionTokens, 0);
}

/** The chat: stored turns, streamed answers composed from memory, citations and "what was sent". */
export function ChatView({ conversationId }: { conversationId: string }) {
  const { engine } = useEngineClient();
  const messages = useMessages(conversationId);
  const settings = useLlmSettings();
  const append = useAppendTurn();
  const remove = useDeleteMessage();
  const notify = useUi((s) => s.notify);
  const openSettings = useUi((s) => s.setPanel);
  const openExplorer = useUi((s) => s.openExplorer);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState<Streaming | null>(null);
  const [sent, setSent] = useState<readonly SentRequest[] | null>(null);
  const [highlight, setHighlight] = useState<string | null>(null);
  const [shown, setShown] = useState<Citation | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const configured = settings.data?.configured ?? false;

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [messages.data?.length, streaming?.text]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && streaming && !streaming.error) void engine.stopAnswer(streaming.answerId);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [engine, streaming]);

  const answer = async (userMessageId: string) => {
    const answerId = crypto.randomUUID();
    setStreaming({ answerId, text: '', stage: 'retrieval', error: null, forMessageId: userMessageId });
    try {
      await engine.ask({ conversationId, userMessageId, answerId }, Comlink.proxy((e: AskEvent) => {
        setStreaming((s) => (s && s.answerId === answerId ? (e.type === 'delta' ? { ...s, text: s.text + e.text, stage: 'answer' } : { ...s, stage: e.stage }) : s));
      }) as unknown as (e: AskEvent) => void);
      setStreaming(null);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      setStreaming((s) => (s && s.answerId === answerId ? { ...s, error: message } : s));
    }
  };

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const content = draft;
    if (!content.trim() || append.isPending || (streaming && !streaming.error)) return;
    let stored: Message;
    try {
      // The id is generated here, so a retry after a lost reply cannot store the turn twice.
      stored = (await append.mutateAsync({ id: crypto.randomUUID(), conversationId, role: 'user', speaker: 'You', content })).message;
      setDraft((d) => (d === content ? '' : d));
    } catch (err) {
      notify('error', err instanceof Error ? err.message : String(err)); // the draft stays: nothing is lost
      return;
    }
    if (configured) await answer(stored.id);
  };

  const list = messages.data ?? [];
  const lastUser = [...list].reverse().find((m) => m.role === 'user');
  const lastAnswer = list.length > 0 && list[list.length - 1]!.role === 'assistant' ? list[list.length - 1]! : null;

  const retry = async () => {
    if (!lastUser) return;
    if (lastAnswer && (lastAnswer.metadata as AnswerMeta).answerTo === lastUser.id) await remove.mutateAsync(lastAnswer.id);
    await answer(lastUser.id);
  };

  const editLast = async () => {
    if (!lastUser || streaming) return;
    const after = list.filter((m) => m.seq > lastUser.seq);
    for (const m of after) await remove.mutateAsync(m.id);
    await remove.mutateAsync(lastUser.id);
    setDraft(lastUser.content);
    inputRef.current?.focus();
  };

  const openCitation = (meta: AnswerMeta, n: number) => {
    const c = meta.citations?.find((x) => x.id === n);
    if (!c) return;
    if (c.kind === 'turn' && list.some((m) => m.id === c.ref)) {
      setHighlight(c.ref);
      document.querySelector(`[data-message-id="${CSS.escape(c.ref)}"]`)?.scrollIntoView({ block: 'center' });
    } else if (c.kind === 'episode' || c.kind === 'fact') openExplorer('memcells', { kind: c.kind, id: c.ref });
    else if (c.kind === 'profile') openExplorer('profile', { kind: 'profile', id: c.ref });
    else if (c.kind === 'foresight') openExplorer('foresight', { kind: 'foresight', id: c.ref });
    else setShown(c);
  };

  return (
    <section className="conversation-view" aria-label="Conversation">
      {!configured && (
        <div className="banner" role="status" data-testid="no-endpoint">
          No LLM endpoint is configured: your messages are stored, organised and searchable, but nobody answers yet.{' '}
          <button type="button" className="link-button" onClick={() => openSettings('settings')}>Open settings</button>
        </div>
      )}
      <ol className="messages">
        {list.length === 0 && !streaming && <li className="empty">No turns yet. Type below; every turn is stored on this device.</li>}
        {list.map((m) => {
          const meta = m.metadata as AnswerMeta;
          return (
            <li key={m.id} className={`message ${m.role}${highlight === m.id ? ' highlight' : ''}`} data-testid="message" data-message-id={m.id}>
              <header>
                <strong>{m.speaker}</strong> <time dateTime={new Date(m.occurredAt).toISOString()}>{formatTime(m.occurredAt)}</time>
                <button type="button" className="link" aria-label="Delete message" onClick={() => window.confirm('Delete this turn from memory?') && remove.mutate(m.id)}>delete</button>
              </header>
              {m.role === 'assistant' ? <Markdown text={m.content} onCite={(n) => openCitation(meta, n)} /> : <p>{m.content}</p>}
              {m.role === 'assistant' && (
                <footer className="answer-meta">
                  {meta.citations && meta.citations.length > 0 && (
                    <span className="sources" data-testid="citations">
                      Sources:{' '}
                      {meta.citations.map((c) => (
                        <button key={c.id} type="button" className="source" onClick={() => openCitation(meta, c.id)} title={`${c.kind}: ${c.label}`}>
                          [{c.id}] {c.label}
                        </button>
                      ))}
                    </span>
                  )}
                  {meta.stopped && <span className="muted">stopped</span>}
                  <CutOffMark metadata={m.metadata} />
                  {meta.usage && <span className="muted" data-testid="answer-tokens">{tokensOf(meta).toLocaleString()} tokens</span>}
                  <button type="button" className="link" onClick={() => void navigator.clipboard?.writeText(m.content)}>copy</button>
                  {meta.requests && <button type="button" className="link" onClick={() => setSent(meta.requests!)}>what was sent</button>}
                  {m.id === lastAnswer?.id && configured && <button type="button" className="link" onClick={() => void retry()}>retry</button>}
                </footer>
              )}
            </li>
          );
        })}
        {streaming && (
          <li className="message assistant pending" data-testid="streaming-answer" aria-live="polite">
            <header><strong>Assistant</strong> <span className="muted">{streaming.error ? 'failed' : STAGE_LABEL[streaming.stage] ?? 'Answering…'}</span></header>
            {streaming.text && <Markdown text={streaming.text} />}
            <PartialMark text={streaming.text} error={streaming.error} />
            {streaming.error ? (
              <div className="error" role="alert">
                The answer failed: {streaming.error} Your message is saved.
                <div className="buttons">
                  <button type="button" onClick={() => streaming.forMessageId && void answer(streaming.forMessageId)}>Try again</button>
                  <button type="button" onClick={() => setStreaming(null)}>Dismiss</button>
                </div>
              </div>
            ) : (
              <button type="button" onClick={() => void engine.stopAnswer(streaming.answerId)}>Stop (Esc)</button>
            )}
          </li>
        )}
      </ol>
      <div ref={endRef} />
      <form className="composer" onSubmit={(e) => void send(e)}>
        <textarea
          ref={inputRef}
          aria-label="Message"
          placeholder={configured ? 'Ask or tell me something… (Enter to send, Shift+Enter new line, ↑ edits your last message)' : 'Write a message… it is stored and searchable (Enter to send)'}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) void send(e);
            if (e.key === 'ArrowUp' && !draft && lastUser && lastAnswer) {
              e.preventDefault();
              void editLast();
            }
          }}
          rows={3}
        />
        <button type="submit" className="primary" disabled={!draft.trim() || append.isPending || (!!streaming && !streaming.error)}>Send</button>
      </form>
      {sent && <SentRequestView requests={sent} onClose={() => setSent(null)} />}
      {shown && (
        <div className="overlay" role="dialog" aria-label="Cited memory" onClick={() => setShown(null)}>
          <div className="card">
            <h3>Cited {shown.kind}</h3>
            <p>{shown.label}</p>
            <p className="muted">The memory explorer will open this item; for now it is shown here.</p>
            <button type="button" onClick={() => setShown(null)} autoFocus>Close</button>
          </div>
        </div>
      )}
    </section>
  );
}
