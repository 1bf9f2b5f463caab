/**
 * ‹ 2/3 › under a turn that has versions (an edited message, a regenerated answer): the buttons
 * show the previous or next version of the branch from that turn on. The engine swaps the
 * branches (TurnVersions.ts), so search and recall follow what this shows; the chat refetches
 * through the messages-changed event.
 */
import { useEngineMutation } from '../hooks';
import type { TurnVersionPosition } from '../../core/base/store';

export function VersionSwitcher({
  conversationId,
  position,
  disabled,
}: {
  readonly conversationId: string;
  readonly position: TurnVersionPosition;
  readonly disabled?: boolean;
}) {
  const show = useEngineMutation((c, version: number) => c.engine.conversations.showVersion(conversationId, position.afterId, version));
  const { shown, count } = position;
  const busy = show.isPending || disabled === true;
  return (
    <div className="version-switcher" role="group" aria-label="Versions" data-testid="version-switcher">
      <button
        type="button"
        className="link"
        aria-label="Previous version"
        title="Previous version"
        disabled={busy || shown <= 1}
        onClick={() => show.mutate(shown - 1)}
      >
        ‹
      </button>
      <span className="muted" aria-live="polite">
        Version {shown} of {count}
      </span>
      <button
        type="button"
        className="link"
        aria-label="Next version"
        title="Next version"
        disabled={busy || shown >= count}
        onClick={() => show.mutate(shown + 1)}
      >
        ›
      </button>
    </div>
  );
}
