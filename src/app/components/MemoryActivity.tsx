/**
 * The quiet lines in the chat that say memory changed.
 *
 * Under a message that asked to be remembered ("remember that I'm vegetarian"), saved the moment it
 * was sent: "Memory updated · saved “I'm vegetarian”", with Undo (the profile delete: the memory
 * goes and stored answers' copies of it are redacted) and a link to Saved memories. After Undo the
 * line says so and takes the focus, so a keyboard user is not left on a button that went away.
 *
 * At the end of the chat: "Memory updated · 3 facts, 1 plan". It
 * compares what synthesis has written from this conversation's turns — the facts and plans of its
 * own episodes — with what there was when the conversation was opened (the counts refetch on every
 * memory-changed event), so it appears under the turns that caused it, and opens Saved memories,
 * where the new items are. Memory written from other conversations (an import's hundreds of
 * episodes being organised meanwhile) is not news here; the profile ("things about you") belongs to
 * no conversation and is shown in Memory → Profile.
 */
import { useEffect, useRef } from 'react';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';
import { useUi } from '../uiStore';
import { plural } from '../format';
import type { ConversationMemoryCounts, MessageMemory } from '../../core/explorer/explorer';

export function SavedFromMessage({
  memory,
  undone,
  onUndone,
}: {
  readonly memory: MessageMemory | undefined;
  /** What Undo removed from this message, if it was pressed. */
  readonly undone: string | undefined;
  readonly onUndone: (value: string) => void;
}) {
  const open = useUi((s) => s.openExplorer);
  const undo = useEngineMutation((c, m: MessageMemory) => c.engine.profile.delete(m.profileItemId), {
    invalidate: [queryKeys.explorer],
  });
  const undoneRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!memory && undone !== undefined) undoneRef.current?.focus();
  }, [memory, undone]);
  if (memory) {
    return (
      <p className="memory-saved" data-testid="memory-saved">
        <span>Memory updated · saved “{memory.value}”</span>
        <button
          type="button"
          className="link-button"
          aria-label={`Undo: forget “${memory.value}”`}
          disabled={undo.isPending}
          onClick={() => undo.mutate(memory, { onSuccess: () => onUndone(memory.value) })}
        >
          Undo
        </button>
        <button type="button" className="link-button" onClick={() => open('saved')}>
          Saved memories
        </button>
      </p>
    );
  }
  if (undone === undefined) return null;
  return (
    <p className="memory-saved muted" data-testid="memory-undone" role="status" tabIndex={-1} ref={undoneRef}>
      Not kept · “{undone}” was removed from memory
    </p>
  );
}

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
      <button type="button" className="link-button" onClick={() => open('saved')}>
        Memory updated · {summary}
      </button>
    </li>
  );
}
