/**
 * "3 episodes could not be summarised — Retry": synthesis that failed (the endpoint sent replies
 * that could not be used, or something else went wrong), and the person's Retry, which puts all of
 * it back in the queue at once. Work that failed for the endpoint's sake also comes back by itself
 * once the endpoint replies properly (core/synthesis/synthesisRecovery.ts); the overview says so.
 * In the status line it shows only when something failed; the overview has an empty state.
 */
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';
import { useUi } from '../uiStore';
import { plural } from '../format';
import type { SynthesisFailures } from '../../core/protocol';

/** "3 episodes and 1 theme could not be summarised", or null when nothing failed. */
export function failedSynthesisText(f: Pick<SynthesisFailures, 'episodes' | 'themes' | 'profileUpdates'>): string | null {
  const parts = [...(f.episodes > 0 ? [plural(f.episodes, 'episode')] : []), ...(f.themes > 0 ? [plural(f.themes, 'theme')] : [])];
  if (parts.length === 0) return f.profileUpdates > 0 ? 'Your profile could not be updated' : null;
  return `${parts.join(' and ')} could not be summarised${f.profileUpdates > 0 ? ', nor your profile updated' : ''}`;
}

function useRetryFailedSynthesis() {
  const notify = useUi((s) => s.notify);
  return useEngineMutation((c, _: void) => c.engine.synthesis.retryFailed(), {
    invalidate: [queryKeys.consolidation, queryKeys.explorer],
    onSuccess: (n) =>
      notify('info', n > 0 ? `Trying again: ${plural(n, 'summary', 'summaries')} back in the queue.` : 'Nothing left to retry.'),
  });
}

export function FailedSynthesis({ place }: { readonly place: 'status' | 'overview' }) {
  const { data: f } = useEngineQuery((q) => q.synthesisFailures());
  const retry = useRetryFailedSynthesis();
  const text = f ? failedSynthesisText(f) : null;
  if (!f) return null;
  if (!text)
    return place === 'overview' ? (
      <p className="muted" data-testid="failed-synthesis-none">
        No summaries have failed.
      </p>
    ) : null;
  const button = f.canRetry ? (
    <button type="button" className="link-button" aria-label={`Retry: ${text}`} disabled={retry.isPending} onClick={() => retry.mutate()}>
      {retry.isPending ? 'Retrying…' : 'Retry'}
    </button>
  ) : (
    <span>(synthesis is off in Settings)</span>
  );
  if (place === 'status') {
    return (
      <span data-testid="failed-synthesis">
        {' '}
        · {text} — {button}
      </span>
    );
  }
  const next = f.nextCheckAt !== null ? new Date(f.nextCheckAt).toLocaleTimeString(undefined, { timeStyle: 'short' }) : null;
  return (
    <div data-testid="failed-synthesis">
      <p>
        {text} — {button}
      </p>
      {f.retryingByThemselves > 0 && f.canRetry && (
        <p className="muted">
          Their messages stay searchable. Recollect tries again by itself once the endpoint replies properly
          {next ? ` (next check ${next})` : ''}.
        </p>
      )}
    </div>
  );
}
