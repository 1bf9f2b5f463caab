/**
 * The quiet line in the chat that says memory changed: "Memory updated · 3 facts, 1 plan". It
 * compares the memory counts with those seen when the conversation was opened (the counts refetch
 * on every memory-changed event), so it appears when synthesis writes something, and opens Saved
 * memories, where the new items are.
 */
import { useEffect, useRef } from 'react';
import { useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { plural } from '../format';
import type { MemoryCounts } from '../../core/explorer/explorer';

type Tracked = Pick<MemoryCounts, 'facts' | 'foresight' | 'profileItems'>;

export function activitySummary(before: Tracked, after: Tracked): string | null {
  const parts: string[] = [];
  const facts = after.facts - before.facts;
  const plans = after.foresight - before.foresight;
  const about = after.profileItems - before.profileItems;
  if (facts > 0) parts.push(plural(facts, 'fact'));
  if (plans > 0) parts.push(plural(plans, 'plan'));
  if (about > 0) parts.push(plural(about, 'thing about you', 'things about you'));
  return parts.length > 0 ? parts.join(', ') : null;
}

export function MemoryActivity() {
  const overview = useEngineQuery((q) => q.overview());
  const open = useUi((s) => s.openExplorer);
  const baseline = useRef<Tracked | null>(null);
  const counts = overview.data?.counts ?? null;
  useEffect(() => {
    if (counts && !baseline.current) baseline.current = counts;
  }, [counts]);
  const summary = counts && baseline.current ? activitySummary(baseline.current, counts) : null;
  if (!summary) return null;
  return (
    <li className="memory-activity" data-testid="memory-activity">
      <button type="button" className="link-button" onClick={() => open('saved')}>Memory updated · {summary}</button>
    </li>
  );
}
