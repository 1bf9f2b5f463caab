import { useEngineMutation, useModelDownload, useEngineQuery, useModelStatus } from '../hooks';
import { queryKeys } from '../queries';
import { formatBytes } from '../format';
import { Dialog } from './Dialog';
import { ComputeBackend } from './ComputeBackend';
import { SwitchProgress } from './SwitchProgress';
import { languageNotice } from '../../core/base/language';
import { saveReranker } from '../modelChoices';
import { DeleteDownloadButton, DeletedDownloadNotice, useDeleteDownload } from './DeleteDownload';

/** Settings → Models: what embeds and reranks, explicit downloads with progress, re-embedding progress. */
export function ModelsPanel({ onClose }: { onClose: () => void }) {
  const list = useEngineQuery((q) => q.models());
  // Polled: models load lazily in their worker, which sends no events.
  const modelStatus = useModelStatus(1_000);
  const embedding = useEngineQuery((q) => q.embedding());
  const setEmbedder = useEngineMutation((c, id: string) => c.engine.indexing.setEmbedder(id));
  const setReranker = useEngineMutation(
    async (c, id: string | null) => {
      // Kept before the load finishes, so a reload right after still applies it; a choice that
      // fails to load is forgotten.
      saveReranker(id);
      return c.models.loadReranker(id).catch((err: unknown) => {
        saveReranker(null);
        throw err;
      });
    },
    { invalidate: [queryKeys.modelStatus] },
  );
  const download = useModelDownload();
  const progress = download.progress;
  const status = embedding.data;
  const switching = status && status.targetModel !== status.activeModel;
  const label = (id: string) => list.data?.find((m) => m.id === id && m.kind === 'embedder')?.label ?? id;
  const writing = useEngineQuery((q) => q.writingLanguage());
  const active = status ? list.data?.find((m) => m.kind === 'embedder' && m.id === status.targetModel) : undefined;
  const notice = languageNotice(writing.data ?? null, active, list.data ?? []);
  const remove = useDeleteDownload(
    (c, id) => c.models.deleteDownload(id),
    queryKeys.models,
    (id) => list.data?.find((m) => m.id === id)?.label ?? id,
  );

  return (
    <Dialog title="Models" onClose={onClose} wide>
      <p className="muted">
        Everything runs on this device. Downloads happen only when you press Download, and are kept by the browser for offline use.
      </p>

      <section aria-label="Embedding status" data-testid="embedding-status">
        {!status ? (
          <p className="muted">Search by meaning is not available yet.</p>
        ) : (
          <>
            <p>
              Search by meaning uses <strong>{label(status.activeModel)}</strong>.{' '}
              {switching ? `Re-embedding with ${label(status.targetModel)}: ` : 'Embedded: '}
              <span data-testid="embedded-count">{status.embedded}</span> / {status.total} {switching ? 'items' : 'turns'}
              {status.state === 'running' ? ' (working…)' : ''}
            </p>
            {(switching || status.state === 'running') && status.total > 0 && (
              <progress max={status.total} value={status.embedded} aria-label="Embedding progress" />
            )}
            {switching && status.kinds && <SwitchProgress kinds={status.kinds} />}
            {status.error && (
              <p className="error" role="alert">
                {status.state === 'error' ? 'Embedding stopped: ' : ''}
                {status.error.message}
              </p>
            )}
          </>
        )}
      </section>

      {notice && (
        <p className="notice" role="note" data-testid="language-notice">
          Most of what you write is in {notice.language}, which {active?.label ?? 'this model'} does not cover: search by meaning will miss
          much of it (search by words still finds it).{' '}
          {notice.suggestions.length > 0
            ? `A multilingual model covers it: ${notice.suggestions.map((m) => m.label).join(', ')}.`
            : 'No model in this list covers it yet.'}
        </p>
      )}

      <ComputeBackend />

      {(['embedder', 'reranker'] as const).map((kind) => (
        <section key={kind} aria-label={kind === 'embedder' ? 'Embedding models' : 'Rerankers'}>
          <h3>{kind === 'embedder' ? 'Embedding models' : 'Rerankers'}</h3>
          <ul className="model-list">
            {kind === 'reranker' && (
              <li>
                <div>
                  <strong>None</strong>
                  <div className="muted">Results are ordered without a reranking pass.</div>
                </div>
                <button type="button" disabled={modelStatus.data?.reranker.modelId == null} onClick={() => setReranker.mutate(null)}>
                  {modelStatus.data?.reranker.modelId == null ? 'In use' : 'Use'}
                </button>
              </li>
            )}
            {kind === 'reranker' && modelStatus.data?.reranker.error && (
              <li className="error" role="alert" data-testid="reranker-error">
                Reranker not loaded: {modelStatus.data.reranker.error.message}
              </li>
            )}
            {list.data
              ?.filter((m) => m.kind === kind)
              .map((m) => {
                const reranker = modelStatus.data?.reranker;
                const inUse = kind === 'embedder' ? status?.targetModel === m.id : reranker?.modelId === m.id && reranker.state !== 'error';
                // During a switch both the old and the new embedder are in use (search reads the old vectors).
                const blocked =
                  inUse || (kind === 'embedder' && status?.activeModel === m.id)
                    ? `In use: choose another ${kind === 'embedder' ? 'embedding model' : 'reranker'} before deleting its download.`
                    : null;
                const downloading = download.modelId === m.id;
                const stopped = download.stopped?.modelId === m.id ? download.stopped : null;
                return (
                  <li key={`${kind}:${m.id}`} data-testid={`model-${kind}-${m.id}`}>
                    <div>
                      <strong>{m.label}</strong>{' '}
                      <span className="muted">
                        {m.bundled ? 'bundled' : m.available ? 'downloaded' : `${formatBytes(m.approxBytes)} download`}
                      </span>
                      <div className="muted">{m.note}</div>
                      <div className="muted" data-testid="model-facts">
                        {[m.dim ? `${m.dim} dimensions` : null, m.languages, `licence ${m.licence}`].filter(Boolean).join(' · ')}
                      </div>
                      {downloading && (
                        <progress max={progress?.total || 1} value={progress?.loaded ?? 0} aria-label={`Downloading ${m.label}`}>
                          {formatBytes(progress?.loaded ?? 0)}
                        </progress>
                      )}
                      {!downloading && m.partial && !m.available && (
                        <div className="muted" data-testid="download-partial">
                          Partly downloaded: the download stopped before it finished. Finishing it fetches only the rest.
                        </div>
                      )}
                      <DeletedDownloadNotice notice={remove.deleted} modelId={m.id} />
                      {stopped && (
                        <div
                          className={stopped.cancelled ? 'muted' : 'error'}
                          role={stopped.cancelled ? 'status' : 'alert'}
                          data-testid="download-stopped"
                        >
                          {stopped.message}
                        </div>
                      )}
                    </div>
                    {m.available ? (
                      <span className="download-actions">
                        <button
                          type="button"
                          disabled={inUse}
                          onClick={() => (kind === 'embedder' ? setEmbedder.mutate(m.id) : setReranker.mutate(m.id))}
                        >
                          {inUse ? 'In use' : 'Use'}
                        </button>
                        {!m.bundled && (
                          <DeleteDownloadButton
                            label={m.label}
                            bytes={m.approxBytes}
                            blocked={blocked}
                            pending={remove.pendingId === m.id}
                            onConfirm={() => remove.remove(m.id)}
                          />
                        )}
                      </span>
                    ) : downloading ? (
                      <span className="download-actions">
                        <span className="muted" data-testid="download-percent">
                          {progress ? Math.round((100 * progress.loaded) / Math.max(progress.total, 1)) : 0}%
                        </span>{' '}
                        <button type="button" onClick={download.cancel}>
                          Cancel download
                        </button>
                      </span>
                    ) : (
                      <button type="button" disabled={download.modelId !== null} onClick={() => void download.start(m.id)}>
                        {m.partial ? `Finish download (${formatBytes(m.approxBytes)})` : `Download (${formatBytes(m.approxBytes)})`}
                      </button>
                    )}
                  </li>
                );
              })}
          </ul>
        </section>
      ))}
    </Dialog>
  );
}
