/**
 * The quiet line in the chat that says memory changed: "Memory updated · 3 facts, 1 plan". It
 * compares what synthesis has written from this conversation's turns — the facts and plans of its
 * own episodes — with what there was when the conversation was opened (the counts refetch on every
 * memory-changed event), so it appears under the turns that caused it, and opens Saved memories,
 * where the new items are. Memory written from other conversations (an import's hundreds of
 * episodes being organised meanwhile) is not news here; the profile ("things about you") belongs to
 * no conversation and is shown in Memory → Profile.
 */
import { useEffect, useRef } from 'react';
import { useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { plural } from '../format';
import type { ConversationMemoryCounts } from '../../core/explorer/explorer';

export function activitySummary(before: ConversationMemoryCounts, after: ConversationMemoryCounts): string | null {
  const parts: string[] = [];
  const facts = after.facts - before.facts;
  const plans = after.foresight - before.foresight;
  if (facts > 0) parts.push(plural(facts, 'fact'));
  if (plans > 0) parts.push(plural(plans, 'plan'));
  return parts.length > 0 ? parts.join(', ') : null;
}

export function MemoryActivity({ conversationId }: { readonly conversationId: string }) {
  const counts = useEngineQuery((q) => q.conversationCounts(conversationId)).data ?? null;
  const open = useUi((s) => s.openExplorer);
  const baseline = useRef<ConversationMemoryCounts | null>(null);
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
