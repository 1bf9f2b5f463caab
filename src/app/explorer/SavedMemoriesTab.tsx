/**
 * Saved memories: one list of what Recollect believes about the user — what it knows about them
 * (profile items), facts, and plans ahead (upcoming foresight) — with search, edit, delete and
 * "Add a memory" by hand; filters by kind and source; facts paged to the end of the list; "Delete
 * all" (what the filters show) after a confirmation; and the two switches over every answer.
 */
import { useDeferredValue, useState, type FormEvent } from 'react';
import { useEngineClient, useEngineMutation, useEngineQuery, useFactPages, useForesightPages, useMemoryMutation } from '../hooks';
import { Dialog } from '../components/Dialog';
import type { ForgetKind, ProfileItemView, ProjectFilter } from '../../core/explorer/explorer';
import { importedFrom } from '../../core/base/carriedMemory';
import { queryKeys } from '../queries';
import { formatTime } from '../format';
import { ConfirmButton } from '../components/ConfirmButton';
import { formatCount } from '../../core/base/numbers';
import { CarryMemoryButtons } from './CarryMemory';
import { useUi } from '../uiStore';
import { useProjectFilter } from './ProjectPicker';

/**
 * What stays in the "Add a memory" box once `sent` is stored: only the sent text goes, so anything
 * typed while it was being saved is kept (appended text stays; a box changed otherwise is left as is).
 */
export function remainingDraft(current: string, sent: string): string {
  if (current === sent) return '';
  return current.startsWith(sent) ? current.slice(sent.length).trimStart() : current;
}

/** "imported from Claude · 14 Mar 2025" for an imported memory, "written by you" for a typed one. */
function savedNote(p: ProfileItemView): string | null {
  if (!p.editedByUser) return null;
  const from = importedFrom(p.history.find((h) => h.op === 'add')?.reason ?? null);
  return from ? `imported from ${from.source} · ${formatTime(p.createdAt)}` : 'written by you';
}

function matches(text: string, q: string): boolean {
  return !q || text.toLowerCase().includes(q.toLowerCase());
}

type Kind = 'all' | 'about' | 'plans' | 'facts';
type Source = 'all' | 'user' | 'conversations';

export function SavedMemoriesTab() {
  const [text, setText] = useState('');
  const [kind, setKind] = useState<Kind>('all');
  const [source, setSource] = useState<Source>('all');
  const [confirmAll, setConfirmAll] = useState(false);
  const q = useDeferredValue(text.trim());
  const profile = useEngineQuery((x) => x.profile());
  // Plans still ahead when the tab opened, in pages (a stable time keeps the pages' key stable).
  const [openedAt] = useState(() => Date.now());
  const inProject = useProjectFilter();
  const planPages = useForesightPages({ ...inProject, limit: 100, activeAt: openedAt });
  const facts = useEngineQuery((x) => x.memorySearch(q, { ...inProject, kinds: ['fact'] }));
  const factPages = useFactPages(source === 'all' ? { ...inProject, limit: FACT_PAGE } : { ...inProject, limit: FACT_PAGE, source });
  const [loadingAll, setLoadingAll] = useState(false);
  // "Show all": every page to the end (1,467 facts were 14 clicks of 100).
  const showAllFacts = async () => {
    setLoadingAll(true);
    try {
      for (let more = factPages.hasNextPage; more;) more = (await factPages.fetchNextPage()).hasNextPage;
    } finally {
      setLoadingAll(false);
    }
  };
  // With a project chosen, its facts and plans are listed (they come from its chats); what is known
  // about you is kept for every chat, so it is not shown as if it were the project's.
  const byProject = inProject.project !== undefined;
  const show = (k: Kind) => (kind === 'all' || kind === k) && (!byProject || k !== 'about');
  const bySource = (byUser: boolean) => source === 'all' || (source === 'user') === byUser;
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const openExplorer = useUi((s) => s.openExplorer);
  const add = useEngineMutation((c, value: string) => c.engine.profile.addMemory(value), {
    report: false,
    invalidate: [queryKeys.explorer],
  });
  const about = show('about') ? (profile.data ?? []).filter((p) => bySource(p.editedByUser) && matches(`${p.key} ${p.value}`, q)) : [];
  const loadedPlans = planPages.data?.pages.flatMap((p) => p.items) ?? [];
  const planTotal = planPages.data?.pages[0]?.total ?? 0;
  const plansShown = show('plans') && bySource(false);
  const ahead = plansShown ? loadedPlans.filter((f) => matches(f.content, q)) : [];
  const listedFacts = factPages.data?.pages.flatMap((p) => p.items) ?? [];
  const factTotal = factPages.data?.pages[0]?.total ?? 0;
  const shownFacts = !show('facts')
    ? []
    : q
      ? (facts.data ?? []).map((f) => ({ id: f.id, text: f.text, at: f.occurredAt }))
      : listedFacts.map((f) => ({ id: f.id, text: f.content, at: f.occurredAt }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const sent = draft;
    try {
      await add.mutateAsync(sent);
      setDraft((current) => remainingDraft(current, sent));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err)); // the text stays in the box
    }
  };

  return (
    <div className="saved-memories" data-testid="saved-memories">
      <p className="muted">
        <button type="button" className="inline-link" onClick={() => openExplorer('summary')}>
          Read the summary
        </button>{' '}
        of what Recollect knows about you, in a few paragraphs.
      </p>
      <form className="add-memory" onSubmit={(e) => void submit(e)}>
        <label htmlFor="add-memory">Add a memory</label>
        <textarea
          id="add-memory"
          rows={2}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="Something Recollect should always know, e.g. “I am vegetarian.”"
        />
        <button type="submit" className="primary" disabled={add.isPending || !draft.trim()}>
          Save memory
        </button>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <div className="buttons carry-buttons">
        <CarryMemoryButtons />
      </div>
      <GlobalSwitches />
      {byProject && (
        <p className="muted" data-testid="saved-project-note">
          Showing the facts and plans remembered from this project’s chats. What is known about you is kept for every chat and listed under
          All.
        </p>
      )}
      <div className="saved-filters">
        <input
          type="search"
          className="saved-search"
          aria-label="Search saved memories"
          placeholder="Search saved memories"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <label>
          Kind{' '}
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="all">Everything</option>
            <option value="about">About you</option>
            <option value="plans">Plans ahead</option>
            <option value="facts">Facts</option>
          </select>
        </label>
        <label>
          Source{' '}
          <select value={source} onChange={(e) => setSource(e.target.value as Source)}>
            <option value="all">Any</option>
            <option value="user">Written by you</option>
            <option value="conversations">From conversations</option>
          </select>
        </label>
        <button type="button" className="danger" onClick={() => setConfirmAll(true)}>
          Delete all…
        </button>
      </div>
      {confirmAll && (
        <DeleteAllDialog
          q={q}
          kind={kind}
          source={source}
          about={about.map((p) => p.id)}
          plansAt={plansShown ? openedAt : null}
          searchedFacts={q ? shownFacts.map((f) => f.id) : null}
          factTotal={show('facts') ? factTotal : 0}
          inProject={inProject}
          onClose={() => setConfirmAll(false)}
        />
      )}

      {show('about') && (
        <>
          <h3>
            About you <span className="muted">({about.length})</span>
          </h3>
          {about.length === 0 && (
            <p className="muted">
              {q ? 'Nothing about you matches.' : 'Nothing yet. It is learned from your conversations, or add it above.'}
            </p>
          )}
          <ul className="plain">
            {about.map((p) => (
              <SavedItem
                key={p.id}
                text={p.value}
                note={savedNote(p)}
                save={(e, v) => e.profile.edit(p.id, v)}
                remove={(e) => e.profile.delete(p.id)}
              />
            ))}
          </ul>
        </>
      )}
      {show('plans') && (
        <>
          <h3>
            Plans ahead{' '}
            <span className="muted" data-testid="plan-count">
              ({q || !plansShown ? ahead.length : `${formatCount(loadedPlans.length)} of ${formatCount(planTotal)}`})
            </span>
          </h3>
          {ahead.length === 0 && <p className="muted">No upcoming plans remembered.</p>}
          <ul className="plain">
            {ahead.map((f) => (
              <SavedItem
                key={f.id}
                text={f.content}
                note={f.startAt ? formatTime(f.startAt) : null}
                save={(e, v) => e.plans.edit(f.id, { startAt: f.startAt, endAt: f.endAt, content: v })}
                remove={(e) => e.memory.forget([{ kind: 'foresight', id: f.id }])}
              />
            ))}
          </ul>
          {plansShown && planPages.hasNextPage && (
            <button type="button" onClick={() => void planPages.fetchNextPage()} disabled={planPages.isFetchingNextPage}>
              {planPages.isFetchingNextPage ? 'Loading…' : `Show more plans (${formatCount(planTotal - loadedPlans.length)} more)`}
            </button>
          )}
        </>
      )}
      {show('facts') && (
        <>
          <h3>
            Facts{' '}
            <span className="muted" data-testid="fact-count">
              ({q ? shownFacts.length : `${formatCount(listedFacts.length)} of ${formatCount(factTotal)}`})
            </span>
          </h3>
          {shownFacts.length === 0 && (
            <p className="muted">
              {q ? 'No fact matches.' : 'No facts yet: they are taken from your conversations as episodes are synthesised.'}
            </p>
          )}
          <ul className="plain">
            {shownFacts.map((f) => (
              <SavedItem
                key={f.id}
                text={f.text}
                note={f.at ? formatTime(f.at) : null}
                save={(e, v) => e.memory.editFact(f.id, { content: v })}
                remove={(e) => e.memory.deleteFact(f.id)}
              />
            ))}
          </ul>
          {!q && factPages.hasNextPage && (
            <div className="buttons">
              <button type="button" onClick={() => void factPages.fetchNextPage()} disabled={factPages.isFetchingNextPage || loadingAll}>
                {factPages.isFetchingNextPage && !loadingAll
                  ? 'Loading…'
                  : `Show ${formatCount(Math.min(FACT_PAGE, factTotal - listedFacts.length))} more facts`}
              </button>
              <button type="button" onClick={() => void showAllFacts()} disabled={factPages.isFetchingNextPage || loadingAll}>
                {loadingAll ? 'Loading…' : `Show all ${formatCount(factTotal)}`}
              </button>
            </div>
          )}
        </>
      )}
    </div>
  );
}

/** Facts per page: a day's reading, and few clicks to the end of a large memory ("Show all" for the rest). */
const FACT_PAGE = 250;

type Engine = Parameters<Parameters<typeof useMemoryMutation>[0]>[0];

function SavedItem({
  text,
  note,
  save,
  remove,
}: {
  text: string;
  note: string | null;
  save: (e: Engine, v: string) => Promise<unknown>;
  remove: (e: Engine) => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(text);
  const saver = useMemoryMutation((e, v: string) => save(e, v));
  const remover = useMemoryMutation((e, _: void) => remove(e));
  return (
    <li className="saved-item" data-testid="saved-item">
      {editing ? (
        <form
          className="inline-form"
          onSubmit={(ev) => {
            ev.preventDefault();
            saver.mutate(value, { onSuccess: () => setEditing(false) });
          }}
        >
          <input aria-label="Memory text" value={value} onChange={(ev) => setValue(ev.target.value)} autoFocus />
          <button type="submit" className="primary">
            Save
          </button>
          <button
            type="button"
            onClick={() => {
              setEditing(false);
              setValue(text);
            }}
          >
            Cancel
          </button>
        </form>
      ) : (
        <>
          <span className="grow">{text}</span>
          {note && <span className="muted">{note}</span>}
          <span className="buttons small">
            <button
              type="button"
              className="link"
              aria-label={`Edit “${text}”`}
              onClick={() => {
                setValue(text);
                setEditing(true);
              }}
            >
              edit
            </button>
            <ConfirmButton
              className="link"
              aria-label={`Delete “${text}”`}
              title="Delete saved memory"
              confirmLabel="Forget for good"
              message={<>Forget “{text}” for good? It is not recreated from your conversations.</>}
              onConfirm={() => remover.mutateAsync()}
              busyLabel="Forgetting…"
            >
              delete
            </ConfirmButton>
          </span>
        </>
      )}
    </li>
  );
}

/** "Use saved memories" and "use chat history": what every answer may draw on. */
function GlobalSwitches() {
  const switches = useEngineQuery((x) => x.globalMemory());
  const set = useEngineMutation(
    (c, patch: { useSavedMemories?: boolean; useChatHistory?: boolean }) => c.engine.settings.setGlobalMemory(patch),
    {
      onSuccess: (v, qc) => qc.setQueryData(queryKeys.globalMemory, v),
    },
  );
  const v = switches.data;
  return (
    <fieldset className="global-switches" data-testid="global-switches">
      <legend>In every answer</legend>
      <label>
        <input
          type="checkbox"
          checked={v?.useSavedMemories ?? true}
          disabled={!v}
          onChange={(e) => set.mutate({ useSavedMemories: e.target.checked })}
        />{' '}
        Use saved memories
      </label>
      <label>
        <input
          type="checkbox"
          checked={v?.useChatHistory ?? true}
          disabled={!v}
          onChange={(e) => set.mutate({ useChatHistory: e.target.checked })}
        />{' '}
        Use chat history
      </label>
      <p className="muted">Off, answers are sent none of it; nothing is deleted. Each conversation also has its own switches.</p>
    </fieldset>
  );
}

/** Deletes everything the filters show (every page of facts, not just the loaded ones), after a confirmation. */
function DeleteAllDialog(props: {
  q: string;
  kind: Kind;
  source: Source;
  about: string[];
  plansAt: number | null;
  searchedFacts: string[] | null;
  factTotal: number;
  /** The explorer's project filter: "Delete all" deletes only the facts and plans it lists. */
  inProject: { readonly project?: ProjectFilter };
  onClose: () => void;
}) {
  const { engine } = useEngineClient();
  // Every plan the filters show, not just the loaded pages: the count below is what is deleted.
  const plans = useEngineQuery((x) => x.foresightAll({ ...props.inProject, activeAt: props.plansAt ?? 0 }));
  const ahead = props.plansAt === null ? [] : (plans.data ?? []).filter((f) => matches(f.content, props.q)).map((f) => f.id);
  const forget = useMemoryMutation((e, items: { kind: ForgetKind; id: string }[]) => e.memory.forget(items));
  const [busy, setBusy] = useState(false);
  const factCount = props.searchedFacts?.length ?? props.factTotal;
  const total = props.about.length + ahead.length + factCount;
  const run = async () => {
    setBusy(true);
    try {
      const items: { kind: ForgetKind; id: string }[] = [
        ...props.about.map((id) => ({ kind: 'profile' as const, id })),
        ...ahead.map((id) => ({ kind: 'foresight' as const, id })),
      ];
      if (props.searchedFacts) items.push(...props.searchedFacts.map((id) => ({ kind: 'fact' as const, id })));
      else if (props.factTotal > 0) {
        let cursor: string | null = null;
        do {
          const page = await engine.memory.listFacts({
            ...props.inProject,
            limit: 500,
            cursor,
            ...(props.source === 'all' ? {} : { source: props.source }),
          });
          items.push(...page.items.map((f) => ({ kind: 'fact' as const, id: f.id })));
          cursor = page.nextCursor;
        } while (cursor);
      }
      for (let i = 0; i < items.length; i += 500) await forget.mutateAsync(items.slice(i, i + 500));
      props.onClose();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Delete all saved memories" role="alertdialog" onClose={props.onClose}>
      <p data-testid="delete-all-summary">
        Forget {formatCount(total)} saved {total === 1 ? 'memory' : 'memories'}
        {props.q ? ` matching “${props.q}”` : ''}: {props.about.length} about you, {ahead.length} plans ahead and {formatCount(factCount)}{' '}
        facts. They are not recreated from your conversations, which stay as they are. This cannot be undone.
      </p>
      <div className="buttons">
        <button
          type="button"
          className="danger"
          onClick={() => void run()}
          disabled={busy || total === 0 || (props.plansAt !== null && !plans.data)}
        >
          {busy ? 'Deleting…' : `Delete ${formatCount(total)}`}
        </button>
        <button type="button" data-autofocus onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
