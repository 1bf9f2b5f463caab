/**
 * Marks for answers that did not end normally: a stored answer the token limit ended
 * (`metadata.cutOff === 'length'`), and a streamed answer whose connection broke, whose text stays
 * on screen marked as partial next to "Try again". Kept apart from ChatView so the chat can be
 * refactored without touching this.
 */
import { MAX_ANSWER_CHARS } from '../../core/recall/answer';
import { formatCount } from '../../core/base/numbers';

export function CutOffMark({ metadata }: { readonly metadata: Readonly<Record<string, unknown>> }) {
  if (metadata.cutOff === 'size') {
    return (
      <span
        className="muted warning"
        data-testid="answer-cut-off"
        title="The reply was longer than Recollect keeps; the rest was not received or stored."
      >
        cut off (longer than {formatCount(MAX_ANSWER_CHARS)} characters)
      </span>
    );
  }
  if (metadata.cutOff !== 'length') return null;
  return (
    <span className="muted warning" data-testid="answer-cut-off" title="The endpoint stopped at its token limit; the answer is incomplete.">
      cut off (token limit)
    </span>
  );
}

export function PartialMark({ text, error }: { readonly text: string; readonly error: string | null }) {
  if (!error || !text) return null;
  return (
    <p className="muted warning" data-testid="answer-partial">
      Partial answer: only what arrived before it stopped is shown above, and it was not saved.
    </p>
  );
}

/** A model's broken characters (U+FFFD from bytes that were not text) were left out of the stored answer. */
export function BrokenTextMark({ metadata }: { readonly metadata: Readonly<Record<string, unknown>> }) {
  const n = metadata.brokenChars;
  if (typeof n !== 'number' || n <= 0) return null;
  return (
    <span
      className="muted"
      data-testid="answer-broken-chars"
      title="The model wrote bytes that are not text (small models often do). They were left out of its answer; your own messages are always stored exactly as you wrote them."
    >
      {formatCount(n)} broken character{n === 1 ? '' : 's'} left out
    </span>
  );
}
