import { Dialog } from './Dialog';
import type { SentRequest } from '../../core/recall/answer';

/** "What was sent": the exact messages of every LLM call behind an answer (never the API key). */
export function SentRequestView({ requests, onClose }: { requests: readonly SentRequest[]; onClose: () => void }) {
  return (
    <Dialog title="What was sent" onClose={onClose} wide>
        <p className="muted">The exact requests made to your endpoint for this answer. The API key is sent as a header and is never shown or stored.</p>
        {requests.map((r, i) => (
          <section key={i} aria-label={`Request ${i + 1}`}>
            <h3>{i + 1}. {r.stage} <span className="muted">(max {r.maxTokens} tokens{r.json ? ', JSON' : ''})</span></h3>
            {r.messages.map((m, j) => (
              <div key={j} className="sent-message">
                <div className="muted">{m.role}</div>
                <pre data-testid="sent-content">{m.content}</pre>
              </div>
            ))}
          </section>
        ))}
    </Dialog>
  );
}
