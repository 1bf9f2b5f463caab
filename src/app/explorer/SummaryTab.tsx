/**
 * Summary: what Recollect knows about the person, as a few short paragraphs by topic. Each sentence
 * links to the memory items behind it (they open in the explorer, as a citation does) and can be
 * edited in place: the new words are saved as a memory written by the person. The summary is kept
 * by the engine (opening the page calls no model); Refresh remakes it — with the endpoint, the model
 * on this device, or from the items — and says so while it works. Rendering only; data through hooks.
 */
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';
import { useUi } from '../uiStore';
import { formatTime } from '../format';
import type { MemorySummaryView, SummaryMaker, SummaryRef, SummarySentence } from '../../core/explorer/memorySummary';

const MADE_BY: Readonly<Record<SummaryMaker, string>> = {
  endpoint: 'your AI endpoint',
  device: 'the model on this device',
  items: 'your memories directly, without a model',
};
const KIND_LABEL: Readonly<Record<SummaryRef['kind'], string>> = { profile: 'about you', plan: 'plan', fact: 'fact' };

export function SummaryTab() {
  const view = useEngineQuery((q) => q.memorySummary());
  const make = useEngineMutation((c, _: void) => c.engine.profile.makeSummary(), {
    invalidate: [queryKeys.explorer],
    onSuccess: (result, client) => client.setQueryData(queryKeys.memorySummary, result),
  });
  const openExplorer = useUi((s) => s.openExplorer);
  const data = view.data;
  if (!data) return <p className="muted">{view.isError ? 'The summary could not be read.' : 'Reading the summary…'}</p>;
  const { summary } = data;
  const making = make.isPending;
  return (
    <div className="memory-summary" data-testid="memory-summary" aria-busy={making}>
      <div className="summary-head">
        <h3>What Recollect knows about you</h3>
        {data.items > 0 && (
          <button type="button" className={summary ? undefined : 'primary'} onClick={() => make.mutate()} disabled={making}>
            {summary ? 'Refresh' : 'Make summary'}
          </button>
        )}
      </div>
      {making && (
        <p role="status" className="summary-progress">
          Writing the summary with {MADE_BY[data.maker]}…
        </p>
      )}
      {data.items === 0 && !summary && (
        <p className="muted" data-testid="summary-empty">
          Nothing to summarise yet. Tell Recollect about yourself in a chat, or{' '}
          <button type="button" className="inline-link" onClick={() => openExplorer('saved')}>
            add a memory in Saved memories
          </button>
          .
        </p>
      )}
      {data.items > 0 && !summary && !making && (
        <p className="muted">
          No summary yet. Make one from your {data.items} {data.items === 1 ? 'memory' : 'memories'}
          {data.maker === 'items' ? ' (no model is connected, so it lists them by topic).' : ` with ${MADE_BY[data.maker]}.`}
        </p>
      )}
      {summary && (
        <>
          <p className="muted summary-meta" data-testid="summary-meta">
            Made by {MADE_BY[summary.madeBy]} · {formatTime(summary.madeAt)}
            {data.stale && <span data-testid="summary-stale"> · Your memories changed since: Refresh to bring it up to date.</span>}
          </p>
          {summary.note && (
            <p className="notice" data-testid="summary-note">
              {summary.note}
            </p>
          )}
          {summary.paragraphs.length === 0 && <p className="muted">Everything this summary said was deleted. Refresh to make a new one.</p>}
          {summary.paragraphs.map((p, i) => (
            <section key={`${i}:${p.topic}`} className="summary-paragraph" aria-labelledby={`summary-topic-${i}`}>
              <h4 id={`summary-topic-${i}`}>{p.topic}</h4>
              <p>
                {p.sentences.map((s, j) => (
                  <Sentence key={`${j}:${s.text}`} sentence={s} at={{ paragraph: i, sentence: j }} />
                ))}
              </p>
            </section>
          ))}
        </>
      )}
    </div>
  );
}

function Sentence({ sentence, at }: { sentence: SummarySentence; at: { paragraph: number; sentence: number } }) {
  const openExplorer = useUi((s) => s.openExplorer);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(sentence.text);
  const [error, setError] = useState<string | null>(null);
  const save = useEngineMutation((c, text: string) => c.engine.profile.editSummarySentence({ ...at, was: sentence.text }, text), {
    report: false,
    invalidate: [queryKeys.explorer],
    onSuccess: (result: MemorySummaryView, client) => client.setQueryData(queryKeys.memorySummary, result),
  });
  const open = (ref: SummaryRef) => {
    if (ref.kind === 'fact') openExplorer('memcells', { kind: 'fact', id: ref.id });
    else if (ref.kind === 'plan') openExplorer('foresight', { kind: 'foresight', id: ref.id });
    else openExplorer('profile', { kind: 'profile', id: ref.id });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await save.mutateAsync(draft);
      setEditing(false);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err)); // the words stay in the box
    }
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      setEditing(false);
    }
  };
  if (editing)
    return (
      <form className="summary-edit" onSubmit={(e) => void submit(e)}>
        <textarea
          aria-label="Edit this sentence"
          rows={2}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKey}
          autoFocus
        />
        <span className="buttons">
          <button type="submit" className="primary" disabled={save.isPending || !draft.trim()}>
            Save as my memory
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </span>
        {error && (
          <span className="error" role="alert">
            {error}
          </span>
        )}
      </form>
    );
  return (
    <span className="summary-sentence" data-testid="summary-sentence">
      <span className="summary-text">{sentence.text}</span>
      {sentence.items.map((ref) => (
        <button
          key={ref.id}
          type="button"
          className="summary-source"
          data-testid="summary-source"
          aria-label={`${KIND_LABEL[ref.kind]}: open the memory behind “${sentence.text.slice(0, 60)}”`}
          onClick={() => open(ref)}
        >
          {KIND_LABEL[ref.kind]}
        </button>
      ))}
      <button
        type="button"
        className="summary-edit-button"
        aria-label={`Edit “${sentence.text.slice(0, 60)}”`}
        onClick={() => {
          setDraft(sentence.text);
          setEditing(true);
        }}
      >
        Edit
      </button>{' '}
    </span>
  );
}
