/**
 * An error boundary around one view (the chat, an explorer tab, a settings panel, "what was sent").
 * A value the view cannot draw — a damaged row in an imported memory, a date out of range — then
 * shows a notice in that view's place instead of unmounting the whole app (React removes the whole
 * tree when a render error reaches the root). Stored memory is untouched: only drawing failed.
 *
 * Reset by changing `resetKey` (another conversation, another tab) or with "Try again". What could
 * not be drawn may have come from a reply of the wrong shape still in react-query's cache, so Try
 * again first drops the cached engine data nothing on screen uses any more (the failed piece's
 * queries, unmounted with it): the piece then draws from a fresh fetch, not the same bad data.
 *
 * The same boundary wraps the whole app (main.tsx) and each piece outside the views (the
 * conversation list, the status line, notices, first run, the ownership overlays, Data's dialogs),
 * so no render error anywhere leaves a blank page.
 */
import { Component, type ContextType, type ErrorInfo, type ReactNode } from 'react';
import { QueryClientContext } from '@tanstack/react-query';

interface Props {
  /** What the view is, for the notice: "This conversation", "The Episodes tab". */
  readonly name: string;
  /** When it changes, the boundary forgets the error and draws the view again. */
  readonly resetKey?: unknown;
  /** For a view drawn over the app (a dialog): closes it, since "Try again" would draw the same data. */
  readonly onDismiss?: () => void;
  /** What to do instead; default: open another conversation or view. */
  readonly advice?: string;
  readonly children: ReactNode;
}

interface State {
  readonly error: Error | null;
  readonly resetKey: unknown;
}

export class ViewBoundary extends Component<Props, State> {
  static override contextType = QueryClientContext;
  declare context: ContextType<typeof QueryClientContext>;
  override state: State = { error: null, resetKey: this.props.resetKey };

  #tryAgain = () => {
    this.context?.removeQueries({ type: 'inactive' });
    this.setState({ error: null });
  };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return Object.is(props.resetKey, state.resetKey) ? null : { error: null, resetKey: props.resetKey };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    // A bug or damaged data: loud in the console for whoever debugs it, calm on the page.
    console.error(`${this.props.name} could not be shown`, error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="view-error" role="alert" data-testid="view-error">
        <p>
          <strong>{this.props.name} could not be shown.</strong> Something in it could not be drawn ({error.message.slice(0, 200)}).{' '}
          {this.props.advice ??
            'Your memory is unchanged, and the rest of Recollect works: open another conversation or view, or download your memory from Data.'}
        </p>
        <div className="buttons">
          <button type="button" onClick={this.#tryAgain}>
            Try again
          </button>
          {this.props.onDismiss && (
            <button type="button" onClick={this.props.onDismiss}>
              Close
            </button>
          )}
        </div>
      </div>
    );
  }
}
