/**
 * A message's text as sanitised Markdown (markdownTree.ts: elements built by React, never
 * innerHTML; raw HTML dropped; only http(s)/mailto links; no images fetched), within bounded time
 * and depth, so one message can lose its formatting but never blank its conversation or hold the
 * page:
 *  - within MARKDOWN_LIMITS (markdownBudget.ts) it is parsed here, once per text (not on every
 *    draw of the chat: typing re-draws it on each key);
 *  - past them it is shown as plain text with "Show formatted", which parses it in a worker under
 *    a deadline (formatOffThread.ts);
 *  - anything that still fails to draw falls back to plain text, for this message only.
 * Citation markers "[3]" become buttons that open the cited memory.
 */
import { Component, useId, useLayoutEffect, useMemo, useRef, useState, type ErrorInfo, type ReactNode } from 'react';
import { assessMarkdown, plainReasonText, type MarkdownVerdict } from '../markdown/markdownBudget';
import { MAX_NESTING, markdownTree, type MarkdownTree } from '../markdown/markdownTree';
import { renderMarkdownTree, type CiteHandler } from '../markdown/MarkdownContent';
import { formatOffThread } from '../markdown/formatOffThread';

interface Props {
  readonly text: string;
  readonly onCite?: (n: number) => void;
  /** The text is still arriving (a streamed answer): no "Show formatted" until it is complete. */
  readonly live?: boolean;
}

export function Markdown({ text, onCite, live = false }: Props) {
  const cite = useRef(onCite);
  useLayoutEffect(() => {
    cite.current = onCite;
  });
  const citations = onCite !== undefined;
  const verdict = useMemo(() => assessMarkdown(text), [text]);
  if (verdict.formatted) {
    return (
      <PlainOnError text={text}>
        <FormattedHere text={text} citations={citations} cite={cite} />
      </PlainOnError>
    );
  }
  return <PlainUntilAsked text={text} verdict={verdict} citations={citations} cite={cite} live={live} />;
}

function FormattedHere({ text, citations, cite }: { text: string; citations: boolean; cite: CiteHandler }) {
  const tree = useMemo(() => markdownTree(text, { citations }), [text, citations]);
  return <Formatted tree={tree} cite={cite} />;
}

function Formatted({ tree, cite, children }: { tree: MarkdownTree; cite: CiteHandler; children?: ReactNode }) {
  const content = useMemo(() => renderMarkdownTree(tree.root, cite), [tree, cite]);
  return (
    <div className="markdown" data-testid="markdown" data-shown="formatted">
      {children}
      {content}
      {tree.flattened && (
        <p className="format-note muted">Quotes and lists nested more than {MAX_NESTING} levels deep are shown as their text.</p>
      )}
    </div>
  );
}

function PlainText({ text, children }: { text: string; children?: ReactNode }) {
  return (
    <div className="markdown" data-testid="markdown" data-shown="plain">
      {children}
      <pre className="plain-message">{text}</pre>
    </div>
  );
}

type Shown =
  | { readonly state: 'plain' }
  | { readonly state: 'formatting' }
  | { readonly state: 'formatted'; readonly tree: MarkdownTree }
  | { readonly state: 'failed'; readonly why: string };

function PlainUntilAsked({
  text,
  verdict,
  citations,
  cite,
  live,
}: {
  text: string;
  verdict: Extract<MarkdownVerdict, { formatted: false }>;
  citations: boolean;
  cite: CiteHandler;
  live: boolean;
}) {
  const noteId = useId();
  // Remembered for the text it was asked for: another text starts plain again.
  const [shown, setShown] = useState<{ text: string; shown: Shown }>({ text, shown: { state: 'plain' } });
  const current: Shown = shown.text === text ? shown.shown : { state: 'plain' };
  const set = (next: Shown) => setShown({ text, shown: next });

  const format = async () => {
    set({ state: 'formatting' });
    const outcome = await formatOffThread(text, { citations });
    set(outcome.ok ? { state: 'formatted', tree: outcome.tree } : { state: 'failed', why: outcome.message });
  };

  if (current.state === 'formatted') {
    return (
      <PlainOnError text={text}>
        <Formatted tree={current.tree} cite={cite}>
          <p className="format-note muted">
            Formatted on request.{' '}
            <button type="button" className="link-button" onClick={() => set({ state: 'plain' })}>
              Show plain text
            </button>
          </p>
        </Formatted>
      </PlainOnError>
    );
  }
  return (
    <PlainText text={text}>
      <p className="format-note muted" id={noteId} role="status">
        {current.state === 'failed' ? `Shown as plain text: ${current.why}.` : `Shown as plain text: ${plainReasonText(verdict)}.`}{' '}
        {current.state === 'formatting' && 'Formatting…'}
        {current.state === 'plain' && !live && (
          <button type="button" className="link-button" aria-describedby={noteId} onClick={() => void format()}>
            Show formatted
          </button>
        )}
      </p>
    </PlainText>
  );
}

/**
 * A message that fails to draw formatted (a bug, or an input the limits missed) is shown as plain
 * text in its place; the rest of the conversation is unaffected. Reset when the text changes.
 */
export class PlainOnError extends Component<{ text: string; children: ReactNode }, { error: Error | null; text: string }> {
  override state = { error: null as Error | null, text: this.props.text };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: { text: string }, state: { text: string }) {
    return props.text === state.text ? null : { error: null, text: props.text };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('A message could not be formatted; it is shown as plain text', error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <PlainText text={this.props.text}>
        <p className="format-note muted" role="status">
          Shown as plain text: it could not be formatted ({error.message.slice(0, 120)}).
        </p>
      </PlainText>
    );
  }
}
