/**
 * The indexing that trails a history import, in one line: "Indexing 4,200 of 17,000 turns…"
 * while the turn index with context, the vectors and the episodes catch up (every imported turn is
 * already found by its words), nothing once it is done. The engine resumes it after a reload, so
 * the status line shows it too; the import dialog shows the same line, and says when it is done.
 */
import { useEngineQuery } from '../hooks';
import { formatCount } from '../../core/base/numbers';

const n = (x: number) => formatCount(x);

/** `minBacklog`: stay silent while fewer turns wait (a typed turn's own vector takes a moment; that is no news). */
export function IndexingProgress({
  showDone = false,
  prefix = '',
  minBacklog = 0,
}: {
  readonly showDone?: boolean;
  readonly prefix?: string;
  readonly minBacklog?: number;
}) {
  const status = useEngineQuery((q) => q.indexing());
  const s = status.data;
  if (!s) return null;
  if (!showDone && !s.importing && s.total - s.indexed < minBacklog) return null;
  if (s.state === 'idle' || s.total === 0) {
    return showDone ? (
      <span data-testid="indexing-status" data-state="idle" data-indexed={s.indexed} data-total={s.total}>
        Indexing done: every turn is searchable by meaning too.
      </span>
    ) : null;
  }
  return (
    <span data-testid="indexing-status" data-state="running" data-indexed={s.indexed} data-total={s.total}>
      {prefix}
      {s.importing
        ? `Indexing waits for the import (${n(s.indexed)} of ${n(s.total)} turns)…`
        : `Indexing ${n(s.indexed)} of ${n(s.total)} turns…`}
    </span>
  );
}
