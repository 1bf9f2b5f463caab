/**
 * The chat of one stored conversation: its turns, the streamed answer (state in useAnswerStream),
 * citations, "what was sent", editing any of your messages and regenerating an answer. An edit or
 * a regenerated answer keeps what it replaces as an earlier version (‹ 1/2 ›, VersionSwitcher.tsx);
 * nothing changes until the new text is sent.
 */
import { useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useAnswerer, useEngineMutation, useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { useOpening } from './OwnershipBanner';
import { formatTime, isoTime } from '../format';
import { STAGE_LABEL, useAnswerStream } from '../useAnswerStream';
import { Markdown } from './Markdown';
import { SentRequestView, sentProjectOf, sentRecalledOf, type SentProject, type SentRecalled } from './SentRequestView';
import { ViewBoundary } from './ViewBoundary';
import { Dialog } from './Dialog';
import { MemoryActivity, SavedFromMessage } from './MemoryActivity';
import { useNarrowScreen } from '../useNarrowScreen';
import { ConversationMemorySwitches } from './MemorySwitches';
import { ConversationModelPicker } from './ConversationModelPicker';
import { BrokenTextMark, CutOffMark, PartialMark } from './AnswerCutMarks';
import type { Message } from '../../core/base/types';
import type { SendRequest } from '../../core/protocol';
import type { Citation } from '../../core/recall/answerContext';
import type { AnswerMetadata, SentRequest } from '../../core/recall/answer';
import { ConfirmButton } from './ConfirmButton';
import { LanguageNotice } from './LanguageNotice';
import { formatCount } from '../../core/base/numbers';
import { VersionSwitcher } from './VersionSwitcher';

/** An answer's metadata as read back from storage: any field may be missing (older or imported memories). */
type AnswerMeta = Partial<AnswerMetadata>;

function tokensOf(meta: AnswerMeta): number {
  return Object.values(meta.usage ?? {}).reduce((a, u) => a + u.promptTokens + u.completionTokens, 0);
}

/** How close to the bottom (px) still counts as "reading the newest", so streaming keeps following. */
const FOLLOW_SLACK = 80;
/**
 * Turns drawn at once: the newest ones, with "Show earlier" adding a page. A 100,000-turn
 * conversation once put every turn in the page and read all of them from the engine (minutes to
 * open); the engine now sends a window (listMessageWindow) and the page holds only that.
 */
const WINDOW = 200;

export function ChatView({ conversationId }: { conversationId: string }) {
  const conversations = useEngineQuery((q) => q.conversations());
  // An endpoint, or a model on this device (Settings → This device), answers; unknown while the memory opens.
  const answerer = useAnswerer();
  const sendTurn = useEngineMutation((c, request: SendRequest) => c.engine.conversations.send(request), { report: false });
  const remove = useEngineMutation((c, id: string) => c.engine.conversations.deleteMessage(id));
  const regenerate = useEngineMutation((c, answerId: string) => c.engine.conversations.regenerate(answerId));
  const answers = useAnswerStream();
  const notify = useUi((s) => s.notify);
  // While the memory opens only the composer is usable (OwnershipBanner.tsx): a message typed
  // then waits for the open and goes through; the rest of the view is inert.
  const opening = useOpening();
  const openSettings = useUi((s) => s.setPanel);
  const openExplorer = useUi((s) => s.openExplorer);
  const selectConversation = useUi((s) => s.selectConversation);
  const focusMessageId = useUi((s) => s.focusMessageId);
  const [draft, setDraft] = useState('');
  /**
   * The id of a send whose reply never came (the engine died after storing it, or before): pressing
   * Enter again on the same draft re-sends under the same id, and the engine's send is idempotent by
   * id, so a message stored before its reply was lost is not stored twice. Cleared once a send is
   * acknowledged; a changed draft, edit or conversation gets a new id.
   */
  const unacknowledged = useRef<{
    readonly id: string;
    readonly content: string;
    readonly conversationId: string;
    readonly replaces: string | null;
  } | null>(null);
  const [editing, setEditing] = useState<Message | null>(null);
  const [sent, setSent] = useState<{
    requests: readonly SentRequest[];
    memoryOff: boolean;
    onDevice: string | null;
    keywordsOnly: boolean;
    project: SentProject | null;
    recalled: readonly SentRecalled[];
    model: string | null;
  } | null>(null);
  const [highlight, setHighlight] = useState<string | null>(focusMessageId);
  // Memories saved from messages that asked for them, by message; and what Undo removed here.
  const fromMessages = useEngineQuery((q) => q.messageMemories()).data;
  const savedBy = new Map((fromMessages ?? []).map((x) => [x.messageId, x]));
  const [undone, setUndone] = useState<ReadonlyMap<string, string>>(new Map());
  const [shown, setShown] = useState<Citation | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const following = useRef(true);
  const configured = answerer.configured;
  // On a phone the keyboard hints go (no Shift+Enter or ↑ there): the long text wrapped to three lines.
  const narrow = useNarrowScreen();
  const willAnswer = configured || !answerer.known;
  const placeholder = narrow
    ? willAnswer
      ? 'Ask or tell me something…'
      : 'Write a message…'
    : willAnswer
      ? 'Ask or tell me something… (Enter sends, Shift+Enter new line, ↑ edits your last message)'
      : 'Write a message… it is stored and searchable (Enter sends)';
  const stream = answers.stream;
  const conversation = conversations.data?.find((c) => c.id === conversationId);

  const [windowSize, setWindowSize] = useState(WINDOW);
  // The newest turns; editing, retrying and following new turns act on these.
  const newest = useEngineQuery((q) => q.messageWindow(conversationId, windowSize));
  const list = newest.data?.messages ?? [];
  const total = newest.data?.total ?? 0;
  // A turn to show (a citation, a search hit) further back than the newest window: a window around it.
  const wantedFarBack = highlight !== null && newest.isSuccess && !newest.isPlaceholderData && !list.some((m) => m.id === highlight);
  const around = useEngineQuery((q) => ({ ...q.messageWindow(conversationId, WINDOW, highlight), enabled: wantedFarBack }));
  const anchored = wantedFarBack && (around.data?.messages.some((m) => m.id === highlight) ?? false);
  const onScreen = anchored ? around.data! : newest.data;
  const visible = onScreen?.messages ?? [];
  const from = onScreen?.offset ?? 0;
  const to = from + visible.length;
  const fromBottom = useRef<number | null>(null);
  const lastUser = [...list].reverse().find((m) => m.role === 'user');
  // The positions with versions, by the turn before them ('' = the start of the conversation).
  const versions = new Map((useEngineQuery((q) => q.turnVersions(conversationId)).data ?? []).map((p) => [p.afterId, p]));

  // Newest at the bottom, always in view: on open, on every new turn, when an answer starts,
  // fails or finishes; while text streams only if the reader has not scrolled up to read.
  const toBottom = () => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    following.current = true;
  };
  useLayoutEffect(() => {
    if (highlight && visible.some((m) => m.id === highlight)) {
      document.querySelector(`[data-message-id="${CSS.escape(highlight)}"]`)?.scrollIntoView({ block: 'center' });
      return;
    }
    toBottom();
  }, [total, stream?.answerId, stream?.error, anchored]);
  useLayoutEffect(() => {
    if (following.current) toBottom();
  }, [stream?.text]);
  // Earlier turns arrived above: keep the reader's place (once the larger window is on screen).
  useLayoutEffect(() => {
    const el = listRef.current;
    if (newest.isPlaceholderData || fromBottom.current === null) return;
    if (el) el.scrollTop = el.scrollHeight - fromBottom.current;
    fromBottom.current = null;
  }, [newest.data, newest.isPlaceholderData]);

  const answer = async (userMessageId: string) => {
    await answers.ask({ conversationId, userMessageId });
  };

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const content = draft;
    if (!content.trim() || sendTurn.isPending || answers.busy) return;
    let stored: Message;
    const replaces = editing?.id ?? null;
    const prior = unacknowledged.current;
    const same = prior !== null && prior.content === content && prior.conversationId === conversationId && prior.replaces === replaces;
    const id = same ? prior.id : crypto.randomUUID();
    unacknowledged.current = { id, content, conversationId, replaces };
    try {
      // One engine call stores the message, replaces an edited one and what followed it, and titles
      // a new conversation, all in one transaction. The id is generated here and kept with the
      // draft until acknowledged, so a retry after a lost reply cannot store the message twice.
      stored = await sendTurn.mutateAsync({ id, conversationId, content, ...(replaces !== null ? { replaces } : {}) });
      if (unacknowledged.current?.id === id) unacknowledged.current = null;
      setDraft((d) => (d === content ? '' : d));
      setEditing(null);
    } catch (err) {
      notify('error', err instanceof Error ? err.message : String(err)); // the draft and the edited message stay: nothing is lost
      return;
    }
    if (answers.stream?.error) answers.dismiss();
    // Read now, not from this render: a message sent while the memory opened was stored only once
    // it was open, and the settings were not known when Enter was pressed.
    if (await answerer.whenKnown().catch(() => false)) await answer(stored.id);
  };

  // The answer (and what followed it) stays as an earlier version; a new answer is asked for.
  const regenerateAnswer = async (answerId: string) => {
    if (answers.busy) return;
    const { userMessageId } = await regenerate.mutateAsync(answerId);
    await answer(userMessageId);
  };

  const startEdit = (message: Message | undefined = lastUser) => {
    if (!message || answers.busy) return;
    setEditing(message);
    setDraft(message.content);
    inputRef.current?.focus();
  };
  const cancelEdit = () => {
    setEditing(null);
    setDraft('');
  };

  const openCitation = (meta: AnswerMeta, n: number) => {
    const c = meta.citations?.find((x) => x.id === n);
    if (!c) return;
    if (c.kind === 'turn' && visible.some((m) => m.id === c.ref)) {
      setHighlight(c.ref);
      document.querySelector(`[data-message-id="${CSS.escape(c.ref)}"]`)?.scrollIntoView({ block: 'center' });
    } else if (c.kind === 'turn' && c.conversationId === conversationId)
      setHighlight(c.ref); // further back: a window around it
    else if (c.kind === 'turn' && c.conversationId && c.conversationId !== conversationId) selectConversation(c.conversationId, c.ref);
    else if (c.kind === 'episode' || c.kind === 'fact') openExplorer('memcells', { kind: c.kind, id: c.ref });
    else if (c.kind === 'profile') openExplorer('profile', { kind: 'profile', id: c.ref });
    else if (c.kind === 'foresight') openExplorer('foresight', { kind: 'foresight', id: c.ref });
    else setShown(c);
  };

  useEffect(() => {
    if (editing && !list.some((m) => m.id === editing.id)) setEditing(null); // deleted meanwhile
  }, [list, editing]);

  return (
    <section className="conversation-view" aria-label="Conversation">
      {conversation && (
        <div className="conversation-head" inert={opening}>
          <h2>{conversation.title}</h2>
          <ConversationModelPicker conversation={conversation} />
          <ConversationMemorySwitches conversation={conversation} />
        </div>
      )}
      {answerer.known && !configured && (
        <div className="banner" role="status" data-testid="no-endpoint" inert={opening}>
          No AI endpoint is connected: your messages are stored, organised and searchable, but nobody answers yet.{' '}
          <button type="button" className="link-button" onClick={() => openSettings('settings')}>
            Connect one
          </button>
        </div>
      )}
      <ol
        className="messages"
        ref={listRef}
        tabIndex={0}
        aria-label="Messages"
        data-testid="messages"
        inert={opening}
        onScroll={(e) => {
          const el = e.currentTarget;
          following.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK;
        }}
      >
        {newest.isSuccess && total === 0 && !stream && (
          <li className="empty">No messages yet. Type below; every message is stored on this device.</li>
        )}
        {from > 0 && !anchored && (
          <li className="earlier">
            <button
              type="button"
              className="link-button"
              data-testid="show-earlier"
              onClick={() => {
                // Keep the reader's place: earlier turns appear above what they were looking at.
                const el = listRef.current;
                fromBottom.current = el ? el.scrollHeight - el.scrollTop : null;
                setWindowSize(total - from + WINDOW);
              }}
            >
              Show {formatCount(Math.min(WINDOW, from))} earlier messages ({formatCount(from)} not shown)
            </button>
          </li>
        )}
        {visible.map((m, i) => {
          const meta = m.metadata as AnswerMeta;
          const position = i > 0 ? versions.get(visible[i - 1]!.id) : from === 0 ? versions.get('') : undefined;
          const cls = `message ${m.role}${highlight === m.id ? ' highlight' : ''}${editing && m.seq >= editing.seq ? ' editing' : ''}`;
          return (
            <li key={m.id} className={cls} data-testid="message" data-message-id={m.id}>
              <div className="message-head">
                <strong>{m.speaker}</strong> <time dateTime={isoTime(m.occurredAt)}>{formatTime(m.occurredAt)}</time>
                <ConfirmButton
                  className="link"
                  aria-label="Delete message"
                  title="Delete message"
                  confirmLabel="Delete message"
                  message="Delete this message from memory? It is taken out of search, recall and what answers keep of it. This cannot be undone."
                  onConfirm={() => remove.mutateAsync(m.id)}
                  busyLabel="Deleting…"
                >
                  delete
                </ConfirmButton>
              </div>
              {m.role === 'assistant' ? <Markdown text={m.content} onCite={(n) => openCitation(meta, n)} /> : <p>{m.content}</p>}
              {position && position.count > 1 && (
                <VersionSwitcher conversationId={conversationId} position={position} disabled={answers.busy || editing !== null} />
              )}
              {m.role === 'user' && (
                <button
                  type="button"
                  className="link"
                  aria-label="Edit message"
                  disabled={answers.busy || sendTurn.isPending}
                  onClick={() => startEdit(m)}
                >
                  edit
                </button>
              )}
              {m.role === 'user' && (
                <SavedFromMessage
                  memory={savedBy.get(m.id)}
                  undone={undone.get(m.id)}
                  onUndone={(value) => setUndone((u) => new Map(u).set(m.id, value))}
                />
              )}
              {m.role === 'assistant' && (
                <div className="answer-meta">
                  {meta.citations && meta.citations.length > 0 && (
                    <span className="sources" data-testid="citations">
                      Sources:{' '}
                      {meta.citations.map((c) => (
                        <button key={c.id} type="button" className="source" onClick={() => openCitation(meta, c.id)} title={c.label}>
                          [{c.id}] {c.label}
                        </button>
                      ))}
                    </span>
                  )}
                  {meta.stopped && <span className="muted">stopped</span>}
                  <CutOffMark metadata={m.metadata} />
                  <BrokenTextMark metadata={m.metadata} />
                  {meta.usage && (
                    <span className="muted" data-testid="answer-tokens">
                      {formatCount(tokensOf(meta))} tokens
                    </span>
                  )}
                  <button type="button" className="link" onClick={() => void navigator.clipboard?.writeText(m.content)}>
                    copy
                  </button>
                  {meta.memoryOff && (
                    <span className="muted" data-testid="memory-off-mark">
                      memory off
                    </span>
                  )}
                  {meta.requests && (
                    <button
                      type="button"
                      className="link"
                      onClick={() =>
                        setSent({
                          requests: meta.requests!,
                          memoryOff: meta.memoryOff === true,
                          onDevice: meta.onDevice ?? null,
                          keywordsOnly: meta.recall === 'keywords',
                          project: sentProjectOf(meta.project),
                          recalled: sentRecalledOf(meta.recalled),
                          model: typeof meta.model === 'string' && meta.model ? meta.model : null,
                        })
                      }
                    >
                      what was sent
                    </button>
                  )}
                  {i > 0 && visible[i - 1]!.role === 'user' && configured && !answers.busy && (
                    <button
                      type="button"
                      className="link"
                      aria-label="Regenerate answer"
                      disabled={regenerate.isPending}
                      onClick={() => void regenerateAnswer(m.id)}
                    >
                      regenerate
                    </button>
                  )}
                </div>
              )}
            </li>
          );
        })}
        {anchored && (
          <li className="earlier">
            <button type="button" className="link-button" data-testid="show-newest" onClick={() => setHighlight(null)}>
              Back to the newest messages ({formatCount(total - to)} later messages not shown)
            </button>
          </li>
        )}
        {stream && (
          <li className="message assistant pending" data-testid="streaming-answer" aria-live="polite">
            <div className="message-head">
              <strong>Assistant</strong>{' '}
              <span className="muted">{stream.error ? 'failed' : (STAGE_LABEL[stream.stage] ?? 'Answering…')}</span>
            </div>
            {stream.text && <Markdown text={stream.text} live />}
            <PartialMark text={stream.text} error={stream.error} />
            {stream.error ? (
              <div className="error" role="alert">
                The answer failed: {stream.error} Your message is saved.
                <div className="buttons">
                  <button type="button" onClick={() => void answers.retry()}>
                    Try again
                  </button>
                  <button type="button" onClick={answers.dismiss}>
                    Dismiss
                  </button>
                </div>
              </div>
            ) : (
              <button type="button" onClick={answers.stop}>
                Stop (Esc)
              </button>
            )}
          </li>
        )}
        <MemoryActivity conversationId={conversationId} />
      </ol>
      {editing && (
        <div className="editing-note" role="status" data-testid="editing-note" inert={opening}>
          Editing {editing.id === lastUser?.id ? 'your last message' : 'an earlier message'}. Send stores the new text as a new version; the
          old message and what followed it stay as an earlier version, reachable with ‹ ›. Until then nothing changes.{' '}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              cancelEdit();
              inputRef.current?.focus();
            }}
          >
            Cancel edit
          </button>
        </div>
      )}
      <LanguageNotice draft={draft} />
      <form className="composer" onSubmit={(e) => void send(e)}>
        <textarea
          ref={inputRef}
          autoFocus
          aria-label="Message"
          placeholder={placeholder}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) void send(e);
            if (e.key === 'ArrowUp' && !draft && lastUser && !editing && !answers.busy) {
              e.preventDefault();
              startEdit();
            }
            if (e.key === 'Escape' && editing) {
              e.preventDefault();
              cancelEdit();
            }
          }}
          rows={3}
        />
        <button type="submit" className="primary" disabled={!draft.trim() || sendTurn.isPending || answers.busy}>
          {editing ? 'Send edit' : 'Send'}
        </button>
      </form>
      {sent && (
        <ViewBoundary name="What was sent" resetKey={sent} onDismiss={() => setSent(null)}>
          <SentRequestView
            requests={sent.requests}
            memoryOff={sent.memoryOff}
            onDevice={sent.onDevice}
            keywordsOnly={sent.keywordsOnly}
            project={sent.project}
            recalled={sent.recalled}
            model={sent.model}
            onClose={() => setSent(null)}
          />
        </ViewBoundary>
      )}
      {shown && (
        <Dialog title={`Cited ${shown.kind}`} onClose={() => setShown(null)}>
          <p>{shown.label}</p>
        </Dialog>
      )}
    </section>
  );
}
