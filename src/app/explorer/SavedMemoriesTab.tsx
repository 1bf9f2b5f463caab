/**
 * Saved memories: one list of what Recollect believes about the user — what it knows about them
 * (profile items), facts, and plans ahead (upcoming foresight) — with search, edit, delete and
 * "Add a memory" by hand. Facts are many, so they are listed by search; the other tabs keep depth.
 */
import { useDeferredValue, useState, type FormEvent } from 'react';
import { useEngineMutation, useEngineQuery, useMemoryMutation } from '../hooks';
import { queryKeys } from '../queries';
import { formatTime } from '../format';

/**
 * What stays in the "Add a memory" box once `sent` is stored: only the sent text goes, so anything
 * typed while it was being saved is kept (appended text stays; a box changed otherwise is left as is).
 */
export function remainingDraft(current: string, sent: string): string {
  if (current === sent) return '';
  return current.startsWith(sent) ? current.slice(sent.length).trimStart() : current;
}

function matches(text: string, q: string): boolean {
  return !q || text.toLowerCase().includes(q.toLowerCase());
}

export function SavedMemoriesTab() {
  const [text, setText] = useState('');
  const q = useDeferredValue(text.trim());
  const profile = useEngineQuery((x) => x.profile());
  const foresight = useEngineQuery((x) => x.foresight());
  const facts = useEngineQuery((x) => x.memorySearch(q, { kinds: ['fact'] }));
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = useEngineMutation((c, value: string) => c.engine.addMemory(value), { report: false, invalidate: [queryKeys.explorer] });
  const now = Date.now();
  const about = (profile.data ?? []).filter((p) => matches(`${p.key} ${p.value}`, q));
  const ahead = (foresight.data ?? []).filter((f) => f.status === 'active' && (f.endAt ?? f.startAt ?? now) >= now && matches(f.content, q));

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
      <form className="add-memory" onSubmit={(e) => void submit(e)}>
        <label htmlFor="add-memory">Add a memory</label>
        <textarea id="add-memory" rows={2} value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Something Recollect should always know, e.g. “I am vegetarian.”" />
        <button type="submit" className="primary" disabled={add.isPending || !draft.trim()}>Save memory</button>
        {error && <p className="error" role="alert">{error}</p>}
      </form>
      <input type="search" className="saved-search" aria-label="Search saved memories" placeholder="Search saved memories" value={text} onChange={(e) => setText(e.target.value)} />

      <h3>About you <span className="muted">({about.length})</span></h3>
      {about.length === 0 && <p className="muted">{q ? 'Nothing about you matches.' : 'Nothing yet. It is learned from your conversations, or add it above.'}</p>}
      <ul className="plain">{about.map((p) => (
        <SavedItem key={p.id} text={p.value} note={p.editedByUser ? 'written by you' : null}
          save={(e, v) => e.editProfileItem(p.id, v)} remove={(e) => e.deleteProfileItem(p.id)} />
      ))}</ul>

      <h3>Plans ahead <span className="muted">({ahead.length})</span></h3>
      {ahead.length === 0 && <p className="muted">No upcoming plans remembered.</p>}
      <ul className="plain">{ahead.map((f) => (
        <SavedItem key={f.id} text={f.content} note={f.startAt ? formatTime(f.startAt) : null}
          save={(e, v) => e.editForesight(f.id, { startAt: f.startAt, endAt: f.endAt, content: v })} remove={(e) => e.forget([{ kind: 'foresight', id: f.id }])} />
      ))}</ul>

      <h3>Facts</h3>
      {!q ? <p className="muted">Type in the search box to find facts taken from your conversations.</p>
        : facts.data?.length === 0 ? <p className="muted">No fact matches.</p> : null}
      <ul className="plain">{(q ? facts.data ?? [] : []).map((f) => (
        <SavedItem key={f.id} text={f.text} note={f.occurredAt ? formatTime(f.occurredAt) : null}
          save={(e, v) => e.editFact(f.id, { content: v })} remove={(e) => e.deleteFact(f.id)} />
      ))}</ul>
    </div>
  );
}

type Engine = Parameters<Parameters<typeof useMemoryMutation>[0]>[0];

function SavedItem({ text, note, save, remove }: { text: string; note: string | null; save: (e: Engine, v: string) => Promise<unknown>; remove: (e: Engine) => Promise<unknown> }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(text);
  const saver = useMemoryMutation((e, v: string) => save(e, v));
  const remover = useMemoryMutation((e, _: void) => remove(e));
  return (
    <li className="saved-item" data-testid="saved-item">
      {editing ? (
        <form className="inline-form" onSubmit={(ev) => { ev.preventDefault(); saver.mutate(value, { onSuccess: () => setEditing(false) }); }}>
          <input aria-label="Memory text" value={value} onChange={(ev) => setValue(ev.target.value)} autoFocus />
          <button type="submit" className="primary">Save</button>
          <button type="button" onClick={() => { setEditing(false); setValue(text); }}>Cancel</button>
        </form>
      ) : (
        <>
          <span className="grow">{text}</span>
          {note && <span className="muted">{note}</span>}
          <span className="buttons small">
            <button type="button" className="link" aria-label={`Edit “${text}”`} onClick={() => { setValue(text); setEditing(true); }}>edit</button>
            <button type="button" className="link" aria-label={`Delete “${text}”`} onClick={() => window.confirm('Forget this for good?') && remover.mutate()}>delete</button>
          </span>
        </>
      )}
    </li>
  );
}
