import { useState } from 'react';
import { useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { formatTime, snippetParts } from '../format';

/** The project picker's value: every chat, one project's, or those in no project. */
type ProjectChoice = { readonly kind: 'all' } | { readonly kind: 'one'; readonly id: string | null };
const ALL: ProjectChoice = { kind: 'all' };

export function SearchResults({ text }: { text: string }) {
  const [choice, setChoice] = useState<ProjectChoice>(ALL);
  const project = choice.kind === 'all' ? undefined : choice.id;
  const search = useEngineQuery((q) => q.search(text.trim(), project));
  const semantic = useEngineQuery((q) => q.vectorSearch(text.trim()));
  const lexicalIds = new Set(search.data?.map((h) => h.message.id));
  // Which conversation each hit is in, by name (the list the sidebar already holds).
  const conversations = useEngineQuery((q) => q.conversations());
  const projects = useEngineQuery((q) => q.projects());
  const titles = new Map(conversations.data?.map((c) => [c.id, c.title]));
  const projectOf = new Map(conversations.data?.map((c) => [c.id, c.projectId]));
  // Meaning search ranks over all memory; under a project its hits are kept to that project's chats.
  const inChoice = (conversationId: string) => project === undefined || (projectOf.get(conversationId) ?? null) === project;
  const where = (id: string) => {
    const title = titles.get(id);
    return title ? (
      <>
        {' '}
        · in{' '}
        <span className="hit-conversation" data-testid="hit-conversation">
          “{title}”
        </span>
      </>
    ) : null;
  };
  const select = useUi((s) => s.selectConversation);
  const setSearchText = useUi((s) => s.setSearchText);
  return (
    <section className="search-results" aria-label="Search results">
      <h2>Results for “{text.trim()}”</h2>
      {(projects.data?.length ?? 0) > 0 && (
        <label className="search-project">
          Project{' '}
          <select
            value={choice.kind === 'all' ? 'all' : (choice.id ?? 'none')}
            onChange={(e) => {
              const v = e.target.value;
              setChoice(v === 'all' ? ALL : { kind: 'one', id: v === 'none' ? null : v });
            }}
          >
            <option value="all">All chats</option>
            {projects.data?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
            <option value="none">No project</option>
          </select>
        </label>
      )}
      {search.isPending && <p className="empty">Searching…</p>}
      {search.data?.length === 0 && <p className="empty">Nothing stored matches these words.</p>}
      <ol>
        {search.data?.map((hit) => (
          <li key={hit.message.id} data-testid="search-hit">
            <button
              type="button"
              className="hit"
              onClick={() => {
                select(hit.message.conversationId, hit.message.id);
                setSearchText('');
              }}
            >
              <span className="meta">
                <strong>{hit.message.speaker}</strong>
                {where(hit.message.conversationId)} · {formatTime(hit.message.occurredAt)}
              </span>
              <span className="snippet">
                {snippetParts(hit.snippet).map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
              </span>
            </button>
          </li>
        ))}
      </ol>
      <h3>Similar in meaning</h3>
      {semantic.isError && <p className="empty">Search by meaning is unavailable: {semantic.error.message}</p>}
      {semantic.data?.filter((h) => !lexicalIds.has(h.message.id) && inChoice(h.message.conversationId)).length === 0 && (
        <p className="empty">No other messages are close in meaning.</p>
      )}
      <ol>
        {semantic.data
          ?.filter((h) => !lexicalIds.has(h.message.id) && inChoice(h.message.conversationId))
          .map((hit) => (
            <li key={hit.message.id} data-testid="semantic-hit">
              <button
                type="button"
                className="hit"
                onClick={() => {
                  select(hit.message.conversationId, hit.message.id);
                  setSearchText('');
                }}
              >
                <span className="meta">
                  <strong>{hit.message.speaker}</strong>
                  {where(hit.message.conversationId)} · {formatTime(hit.message.occurredAt)}
                </span>
                <span className="snippet">{hit.snippet}</span>
              </button>
            </li>
          ))}
      </ol>
    </section>
  );
}
