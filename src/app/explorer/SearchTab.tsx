import { useDeferredValue, useState } from 'react';
import { useEngineQuery } from '../hooks';
import { formatTime } from '../format';
import { useUi } from '../uiStore';
import { MEMORY_KINDS, type MemoryKind, type MemorySearchFilters, type MemorySearchHit } from '../../core/explorer/explorer';
import { VirtualList } from './VirtualList';
import { useProjectFilter } from './ProjectPicker';

const KIND_LABEL: Record<MemoryKind, string> = { turn: 'Messages', fact: 'Facts', episode: 'Episodes', scene: 'Themes' };
const day = (s: string, end: boolean): number | undefined => (s ? Date.parse(`${s}T${end ? '23:59:59.999' : '00:00:00'}`) : undefined);

export function SearchTab() {
  const [text, setText] = useState('');
  const [kinds, setKinds] = useState<MemoryKind[]>([...MEMORY_KINDS]);
  const [conversationId, setConversationId] = useState('');
  const [speaker, setSpeaker] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const query = useDeferredValue(text);
  const inProject = useProjectFilter();
  const filters: MemorySearchFilters = {
    ...inProject,
    kinds,
    limit: 100,
    ...(conversationId ? { conversationId } : {}),
    ...(speaker.trim() ? { speaker: speaker.trim() } : {}),
    ...(day(from, false) !== undefined ? { from: day(from, false)! } : {}),
    ...(day(to, true) !== undefined ? { to: day(to, true)! } : {}),
  };
  const results = useEngineQuery((q) => q.memorySearch(query.trim(), filters));
  const conversations = useEngineQuery((q) => q.conversations());
  const open = useUi((s) => s.openExplorer);
  const select = useUi((s) => s.selectConversation);
  const go = (h: MemorySearchHit) => {
    if (h.kind === 'scene') open('scenes', { kind: 'scene', id: h.id });
    else if (h.memcellId) open('memcells', { kind: 'episode', id: h.memcellId });
    else if (h.conversationId) select(h.conversationId);
  };
  return (
    <div className="explorer-search">
      <div className="filters">
        <input
          type="search"
          aria-label="Search all memory"
          placeholder="Search messages, facts, episodes and themes"
          value={text}
          onChange={(e) => setText(e.target.value)}
          autoFocus
        />
        <fieldset>
          <legend className="sr-only">Types</legend>
          {MEMORY_KINDS.map((k) => (
            <label key={k}>
              <input
                type="checkbox"
                checked={kinds.includes(k)}
                onChange={(e) => setKinds(e.target.checked ? [...kinds, k] : kinds.filter((x) => x !== k))}
              />{' '}
              {KIND_LABEL[k]}
            </label>
          ))}
        </fieldset>
        <label>
          Conversation{' '}
          <select value={conversationId} onChange={(e) => setConversationId(e.target.value)}>
            <option value="">All</option>
            {conversations.data?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.title}
              </option>
            ))}
          </select>
        </label>
        <label>
          Speaker <input value={speaker} onChange={(e) => setSpeaker(e.target.value)} size={10} />
        </label>
        <label>
          From <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </div>
      {results.error && (
        <p className="error" role="alert">
          {results.error.message}
        </p>
      )}
      {query.trim() && results.data && results.data.length === 0 && (
        <p className="muted">Nothing remembered matches. Try fewer or other words: search finds your words and what they mean.</p>
      )}
      {results.data && results.data.length > 0 && (
        <VirtualList
          label="Search results"
          items={results.data}
          rowHeight={96}
          height="calc(100vh - 260px)"
          render={(h) => (
            <button type="button" className="memory-hit" data-testid="memory-hit" data-kind={h.kind} onClick={() => go(h)}>
              <span className="meta">
                <span className={`kind ${h.kind}`}>{h.kind}</span> {h.title} {h.occurredAt !== null && <>· {formatTime(h.occurredAt)}</>}
              </span>
              <span className="text">{h.text}</span>
              <span className="reasons">Matched: {h.reasons.join('; ')}</span>
            </button>
          )}
        />
      )}
    </div>
  );
}
