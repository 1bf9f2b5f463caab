import { Dialog } from './Dialog';
import type { SentRequest } from '../../core/recall/answer';

export interface SentProject {
  readonly name: string;
  readonly memory: 'shared' | 'project-only';
}

/** The project a stored answer names (stored metadata may hold anything: an imported file). */
export function sentProjectOf(value: unknown): SentProject | null {
  if (typeof value !== 'object' || value === null) return null;
  const { name, memory } = value as Record<string, unknown>;
  return typeof name === 'string' && (memory === 'shared' || memory === 'project-only') ? { name, memory } : null;
}

/** One recalled item of a stored answer, with where it came from. */
export interface SentRecalled {
  readonly id: number;
  readonly kind: string;
  readonly label: string;
  readonly from: 'project' | 'shared' | 'profile' | null;
}

const FROM_TEXT: Record<'project' | 'shared' | 'profile', string> = {
  project: 'from this project',
  shared: 'shared memory',
  profile: 'profile',
};

/** The recalled items a stored answer lists (its metadata may hold anything: checked item by item). */
export function sentRecalledOf(value: unknown): SentRecalled[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v): SentRecalled[] => {
    if (typeof v !== 'object' || v === null) return [];
    const { id, kind, label, from } = v as Record<string, unknown>;
    if (typeof id !== 'number' || typeof kind !== 'string' || typeof label !== 'string') return [];
    return [{ id, kind, label, from: from === 'project' || from === 'shared' || from === 'profile' ? from : null }];
  });
}

/** "What was sent": the exact messages of every LLM call behind an answer (never the API key). */
export function SentRequestView({
  requests,
  memoryOff = false,
  onDevice = null,
  keywordsOnly = false,
  project = null,
  recalled = [],
  onClose,
}: {
  requests: readonly SentRequest[];
  memoryOff?: boolean;
  onDevice?: string | null;
  keywordsOnly?: boolean;
  project?: SentProject | null;
  recalled?: readonly SentRecalled[];
  onClose: () => void;
}) {
  return (
    <Dialog title="What was sent" onClose={onClose} wide>
      {onDevice ? (
        <>
          <p className="note" data-testid="on-device-note">
            This answer came from a model running on this device: {onDevice}. These requests were given to it inside this browser; nothing
            was sent over the network.
          </p>
          <p className="muted" data-testid="on-device-quality">
            A small model on a device answers less reliably than a large hosted one: check anything that matters against the sources. Unless
            you chose a memory budget, it is given less memory per question, to fit its small context window.
          </p>
        </>
      ) : (
        <p className="muted">
          The exact requests made to your endpoint for this answer. The API key is sent as a header and is never shown or stored.
        </p>
      )}
      {project && (
        <p className="note" data-testid="project-scope-note">
          Asked in the project “{project.name}”.{' '}
          {project.memory === 'project-only'
            ? 'Its memory is project-only: every recalled item below comes from this project’s chats (and your profile, if the project allows it).'
            : 'Its memory is shared: recalled items come from all chats outside project-only projects.'}
        </p>
      )}
      {recalled.length > 0 && (
        <section aria-labelledby="sent-recalled">
          <h3 id="sent-recalled">Recalled from memory</h3>
          <ol className="sent-recalled" data-testid="sent-recalled">
            {recalled.map((r) => (
              <li key={r.id} data-from={r.from ?? ''}>
                [{r.id}] {r.kind}: {r.label}
                {r.from && <span className="muted"> — {FROM_TEXT[r.from]}</span>}
              </li>
            ))}
          </ol>
        </section>
      )}
      {memoryOff && (
        <p className="note" data-testid="memory-off-note">
          Memory was off for this answer: nothing was looked up in memory. Only the instructions, this conversation's recent messages and
          the question were sent.
        </p>
      )}
      {keywordsOnly && (
        <p className="note" data-testid="keywords-only-note">
          Memory was recalled by its words only: the on-device model for search by meaning was still loading, and the answer did not wait
          for it.
        </p>
      )}
      {requests.map((r, i) => (
        <section key={i} aria-label={`Request ${i + 1}`}>
          <h3>
            {i + 1}. {r.stage}{' '}
            <span className="muted">
              (max {r.maxTokens} tokens{r.json ? ', JSON' : ''})
            </span>
          </h3>
          {r.messages.map((m, j) => (
            // Long requests scroll: each message is a named region that takes focus, so keys can scroll it.
            // Its name carries its position: a request holds several user messages, and regions need unique names.
            <div key={j} className="sent-message">
              <div className="muted">{m.role}</div>
              <pre
                data-testid="sent-content"
                tabIndex={0}
                role="region"
                aria-label={`Request ${i + 1}, message ${j + 1} of ${r.messages.length} (${m.role})`}
              >
                {m.content}
              </pre>
            </div>
          ))}
        </section>
      ))}
    </Dialog>
  );
}
