/**
 * Beside the message box: when the person writes in a language the embedder in use does not
 * cover (Chinese with the bundled English model), a short notice says so and offers, in one click,
 * to download the model that covers it and use it (the same download and switch as Settings →
 * Models). Dismissed per language and remembered in this browser; gone once the covering model is
 * in use. Offline, with the model not yet downloaded, it says that instead of offering a download.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useEngineMutation, useEngineQuery, useModelDownload } from '../hooks';
import { queryKeys } from '../queries';
import { formatBytes } from '../format';
import { useDismissedLanguages } from '../dismissedLanguages';
import { composerLanguageNotice, draftLanguage, type LanguageCode } from '../../core/base/language';
import type { ModelInfo } from '../../core/protocol';

/** Waits this long after the last keystroke before reading the draft's language. */
const SETTLE_MS = 300;

function subscribeOnline(onChange: () => void): () => void {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

const useOnline = () => useSyncExternalStore(subscribeOnline, () => navigator.onLine);

export function LanguageNotice({ draft }: { draft: string }) {
  // The last language the draft was clearly in: kept after Send empties the box.
  const [language, setLanguage] = useState<LanguageCode | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => {
      const found = draftLanguage(draft);
      if (found) setLanguage(found);
    }, SETTLE_MS);
    return () => clearTimeout(timer);
  }, [draft]);
  const models = useEngineQuery((q) => q.models());
  const embedding = useEngineQuery((q) => q.embedding());
  const download = useModelDownload();
  const useModel = useEngineMutation((c, id: string) => c.engine.indexing.setEmbedder(id), { invalidate: [queryKeys.embedding] });
  const queryClient = useQueryClient();
  const [dismissed, dismiss] = useDismissedLanguages();
  const online = useOnline();

  const status = embedding.data;
  const active = status ? models.data?.find((m) => m.kind === 'embedder' && m.id === status.targetModel) : undefined;
  const notice = composerLanguageNotice(language, active, models.data ?? [], dismissed);
  if (!notice) return null;
  const model = notice.model;
  const downloading = model !== null && download.modelId === model.id;
  const stopped = model && download.stopped?.modelId === model.id ? download.stopped : null;

  const downloadAndUse = async (m: ModelInfo) => {
    if (!m.available) {
      await download.start(m.id);
      // start() reports a failure itself (stopped); use the model only if it arrived whole.
      const after = queryClient.getQueryData<ModelInfo[]>(queryKeys.models)?.find((x) => x.kind === 'embedder' && x.id === m.id);
      if (!after?.available) return;
    }
    useModel.mutate(m.id);
  };

  return (
    <div className="composer-notice" role="note" aria-label={`${notice.name} and search by meaning`} data-testid="composer-language-notice">
      <p>
        You are writing in {notice.name}. Search by meaning uses {active?.label ?? 'a model'}, which does not cover it: memories in{' '}
        {notice.name} are found by their words only.{' '}
        {!model
          ? 'No model in Settings → Models covers it yet.'
          : model.available
            ? `${model.label} covers it and is already on this device.`
            : online
              ? `${model.label} covers it (${formatBytes(model.approxBytes)} download, kept for offline use).`
              : `${model.label} covers it, but you are offline: it can be downloaded once you are back online.`}
      </p>
      {downloading && (
        <p className="composer-notice-progress">
          <progress max={download.progress?.total || 1} value={download.progress?.loaded ?? 0} aria-label={`Downloading ${model.label}`} />{' '}
          <span className="muted" data-testid="composer-download-percent">
            {download.progress ? Math.round((100 * download.progress.loaded) / Math.max(download.progress.total, 1)) : 0}%
          </span>
        </p>
      )}
      {useModel.isPending && (
        <p className="muted" role="status">
          Switching to {model?.label}…
        </p>
      )}
      {stopped && (
        <p className={stopped.cancelled ? 'muted' : 'error'} role={stopped.cancelled ? 'status' : 'alert'}>
          {stopped.message}
        </p>
      )}
      <div className="buttons">
        {model && downloading && (
          <button type="button" onClick={download.cancel}>
            Cancel download
          </button>
        )}
        {model && !downloading && (model.available || online) && (
          <button
            type="button"
            className="primary"
            disabled={download.modelId !== null || useModel.isPending}
            onClick={() => void downloadAndUse(model)}
          >
            {model.available ? `Use ${model.label}` : `Download ${model.label} and use it`}
          </button>
        )}
        <button type="button" onClick={() => dismiss(notice.language)} disabled={downloading}>
          Dismiss<span className="visually-hidden"> this notice for {notice.name} (in this browser)</span>
        </button>
      </div>
    </div>
  );
}
