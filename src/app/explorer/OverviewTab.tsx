import { useEngineQuery } from '../hooks';
import { backendLabel, vectorIndexLabel } from '../components/ComputeBackend';
import { formatBytes, formatTime, plural } from '../format';
import { DataActions } from '../components/DataActions';
import { FailedSynthesis } from '../components/FailedSynthesis';
import { useUi } from '../uiStore';
import { formatCount } from '../../core/base/numbers';

export function OverviewTab() {
  const { data: o, error } = useEngineQuery((q) => q.overview());
  const models = useEngineQuery((q) => q.modelStatus(5_000));
  const open = useUi((s) => s.openExplorer);
  if (error)
    return (
      <p className="error" role="alert">
        {error.message}
      </p>
    );
  if (!o) return <p className="muted">Loading…</p>;
  const c = o.counts;
  const tiles: [string, number, (() => void)?][] = [
    ['Messages', c.turns],
    ['Episodes', c.memcells, () => open('memcells')],
    ['Themes', c.scenes, () => open('scenes')],
    ['Facts', c.facts, () => open('search')],
    ['Foresight', c.foresight, () => open('foresight')],
    ['Profile items', c.profileItems, () => open('profile')],
  ];
  return (
    <div className="overview" data-testid="explorer-overview">
      {o.backgroundErrors.length > 0 && (
        <div className="error" role="alert" data-testid="background-errors">
          <p>Background work is failing and will try again:</p>
          <ul>
            {o.backgroundErrors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        </div>
      )}
      <p className="muted help">
        An <strong>episode</strong> is a stretch of conversation about one thing, summarised with the facts it holds; a{' '}
        <strong>theme</strong> groups episodes about the same subject over time.
      </p>
      <ul className="tiles">
        {tiles.map(([label, n, go]) => (
          <li key={label}>
            {go ? (
              <button type="button" className="tile" onClick={go}>
                <strong>{formatCount(n)}</strong>
                <span>{label}</span>
              </button>
            ) : (
              <div className="tile">
                <strong>{formatCount(n)}</strong>
                <span>{label}</span>
              </div>
            )}
          </li>
        ))}
      </ul>
      <p className="muted">
        {c.rawMemcells > 0 ? `${plural(c.rawMemcells, 'episode')} not summarised yet (their messages are searchable). ` : ''}
        {c.profileConflicts > 0 ? (
          <button type="button" className="link-button" onClick={() => open('profile')}>
            {c.profileConflicts} profile {c.profileConflicts === 1 ? 'conflict' : 'conflicts'} to resolve.
          </button>
        ) : null}{' '}
        {c.tombstones > 0 ? `${plural(c.tombstones, 'forgotten item')} will stay forgotten.` : ''}
      </p>
      <div className="overview-grid">
        <section>
          <h3>Storage</h3>
          <p>
            {formatBytes(o.databaseBytes)} in {plural(c.conversations, 'conversation')}, on this device only.
          </p>
          <DataActions />
        </section>
        <section>
          <h3>Models</h3>
          <p>
            Embedder:{' '}
            {o.embedder ? `${o.embedder.modelId} (${o.embedder.state}, ${o.embedder.embedded}/${o.embedder.total} turns)` : 'none'}
          </p>
          {/* What the model worker has loaded and runs: the model, its vectors' dimension, the device. */}
          <p data-testid="overview-backends">
            Embedder runs on {backendLabel(models.data?.embedder.device)}
            {models.data?.embedder.modelId ? (
              <>
                {' '}
                (<span data-testid="overview-embedder-model">{models.data.embedder.modelId}</span>
                {models.data.embedder.dim ? (
                  <>
                    , <span data-testid="overview-embedder-dim">{models.data.embedder.dim}</span> dimensions
                  </>
                ) : null}
                )
              </>
            ) : null}{' '}
            · vector index: {vectorIndexLabel(o.vectorIndex)}
          </p>
          <p data-testid="overview-reranker">
            Reranker:{' '}
            {models.data?.reranker.modelId && models.data.reranker.state !== 'error' ? (
              <>
                <span data-testid="overview-reranker-model">{models.data.reranker.modelId}</span> on{' '}
                {backendLabel(models.data.reranker.device)}
              </>
            ) : (
              'none'
            )}
          </p>
          <p>
            LLM endpoint: {o.endpointConfigured ? 'configured' : 'not configured'} · policy: {o.policy}
          </p>
        </section>
        <section>
          <h3>LLM spend</h3>
          <p>
            {o.llm.calls} calls ({o.llm.failedCalls} failed), {formatCount(o.llm.promptTokens + o.llm.completionTokens)} tokens
          </p>
          <div className="table-scroll" tabIndex={0} role="region" aria-label="LLM spend by stage">
            <table className="usage">
              <thead>
                <tr>
                  <th>Stage</th>
                  <th>Calls</th>
                  <th>Prompt</th>
                  <th>Completion</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(o.llm.byStage).map(([stage, u]) => (
                  <tr key={stage}>
                    <td>{stage}</td>
                    <td>{u.calls}</td>
                    <td>{formatCount(u.promptTokens)}</td>
                    <td>{formatCount(u.completionTokens)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
        <section>
          <h3>Jobs</h3>
          <p data-testid="jobs-summary">
            {o.jobs.pending} pending · {o.jobs.running} running · {o.jobs.done} done · {o.jobs.failed} failed
            {o.jobs.scheduled > 0 ? ` · ${o.jobs.scheduled} scheduled for later` : ''}
          </p>
          <FailedSynthesis place="overview" />
          <ul className="plain">
            {o.recentJobs.map((j) => (
              <li key={j.id} className={`job ${j.status}`}>
                <span>{j.kind}</span>{' '}
                <span className="muted">
                  {j.status}
                  {j.attempts > 1 ? `, ${j.attempts} attempts` : ''} · {formatTime(j.updatedAt)}
                </span>
                {j.lastError && <div className="error">{j.lastError}</div>}
              </li>
            ))}
          </ul>
        </section>
      </div>
    </div>
  );
}
