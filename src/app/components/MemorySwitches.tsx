/**
 * The two memory switches of a conversation (in its header) and their defaults for new
 * conversations (in Settings). What they do is decided in the engine
 * (core/engine/conversationMemory.ts); the help lines here say it in plain words, and change with
 * the switch so they always describe what happens now and what turning it over would do.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';
import type { Conversation, ConversationMemory } from '../../core/base/types';

export const USE_MEMORY_LABEL = 'Use memory in answers';
export const REMEMBER_LABEL = 'Remember this conversation';

function useMemoryHelp(on: boolean): string {
  return on ? 'Answers here can draw on everything Recollect remembers.' : "Answers here see only this conversation's recent messages.";
}

function rememberHelp(on: boolean): string {
  return on
    ? 'What you say here becomes memory. Turning this off keeps what was already remembered until you delete it in Memory.'
    : 'Kept and searchable here, but never used as memory. Turning this on remembers the whole conversation.';
}

/** The switches in a conversation's header: keyboard reachable checkboxes, each with its help line. */
export function ConversationMemorySwitches({ conversation }: { conversation: Conversation }) {
  const qc = useQueryClient();
  const mutation = useEngineMutation((c, patch: Partial<ConversationMemory>) => c.engine.conversations.setMemory(conversation.id, patch), {
    invalidate: [queryKeys.conversations],
  });
  // The box follows the click at once; the engine's answer (or a failure) refetches the list.
  const set = {
    mutate: (patch: Partial<ConversationMemory>) => {
      qc.setQueryData<Conversation[]>(queryKeys.conversations, (list) =>
        list?.map((c) => (c.id === conversation.id ? { ...c, ...patch } : c)),
      );
      mutation.mutate(patch, { onError: () => void qc.invalidateQueries({ queryKey: queryKeys.conversations }) });
    },
  };
  const id = `memory-${conversation.id}`;
  return (
    <div className="memory-switches" role="group" aria-label="Memory for this conversation" data-testid="memory-switches">
      <label className="switch">
        <input
          type="checkbox"
          checked={conversation.useMemory}
          aria-describedby={`${id}-use`}
          onChange={(e) => set.mutate({ useMemory: e.target.checked })}
        />
        {USE_MEMORY_LABEL}
      </label>
      <label className="switch">
        <input
          type="checkbox"
          checked={conversation.remember}
          aria-describedby={`${id}-remember`}
          onChange={(e) => set.mutate({ remember: e.target.checked })}
        />
        {REMEMBER_LABEL}
      </label>
      <p className="switch-help muted">
        <span id={`${id}-use`}>{useMemoryHelp(conversation.useMemory)}</span>{' '}
        <span id={`${id}-remember`}>{rememberHelp(conversation.remember)}</span>
      </p>
    </div>
  );
}

/** Settings → "New conversations": the switches a new conversation starts with. */
export function MemoryDefaultsSection() {
  const qc = useQueryClient();
  const defaults = useEngineQuery((q) => q.memoryDefaults());
  const mutation = useEngineMutation((c, patch: Partial<ConversationMemory>) => c.engine.settings.setMemoryDefaults(patch), {
    onSuccess: (v) => qc.setQueryData(queryKeys.memoryDefaults, v),
  });
  const set = {
    mutate: (patch: Partial<ConversationMemory>) => {
      qc.setQueryData<ConversationMemory>(queryKeys.memoryDefaults, (d) => (d ? { ...d, ...patch } : d));
      mutation.mutate(patch, { onError: () => void qc.invalidateQueries({ queryKey: queryKeys.memoryDefaults }) });
    },
  };
  const d = defaults.data;
  return (
    <section aria-label="New conversations">
      <h3>New conversations</h3>
      <p className="muted">
        How a new conversation starts. Each conversation can change these in its header. A temporary chat is different: it stores nothing at
        all.
      </p>
      <label className="radio">
        <input type="checkbox" checked={d?.useMemory ?? true} disabled={!d} onChange={(e) => set.mutate({ useMemory: e.target.checked })} />
        <span>
          <strong>{USE_MEMORY_LABEL}</strong> <span className="muted">Off: answers see only the conversation's own recent messages.</span>
        </span>
      </label>
      <label className="radio">
        <input type="checkbox" checked={d?.remember ?? true} disabled={!d} onChange={(e) => set.mutate({ remember: e.target.checked })} />
        <span>
          <strong>{REMEMBER_LABEL}</strong>{' '}
          <span className="muted">Off: messages are kept and searchable in their conversation but never become memory.</span>
        </span>
      </label>
    </section>
  );
}
