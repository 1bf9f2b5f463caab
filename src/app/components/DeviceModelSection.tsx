import { useState } from 'react';
import * as Comlink from 'comlink';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';
import { formatBytes } from '../format';
import type { BuiltInAvailability, DeviceLlmInfo, ModelProgress } from '../../core/protocol';
import type { DeviceChoice } from '../deviceChoice';
import { formatCount } from '../../core/base/numbers';
import { DeleteDownloadButton, DeletedDownloadNotice, useDeleteDownload } from './DeleteDownload';

const BUILT_IN_ADVICE: Record<BuiltInAvailability, string> = {
  available: 'Ready. Recollect downloads nothing; the browser runs its own model.',
  downloadable:
    'The browser can download its built-in model (several GB, once; it needs about 22 GB of free disk and a GPU with more than 4 GB of memory, or 16 GB of RAM). Ask the browser to download it; it can be chosen once the browser has it.',
  downloading: 'The browser is downloading its built-in model; it can be chosen once the download has finished.',
  unavailable: 'This device cannot run the browser’s built-in model. Download a model below instead.',
  unsupported: 'This browser has no built-in model (desktop Chrome 148 or later has one). Download a model below instead.',
};

/**
 * Settings → "This device": answers, titles and synthesis from a language model in this browser
 * instead of an endpoint: the browser's built-in model, or a small model downloaded once into the
 * browser cache. Nothing is sent anywhere.
 */
export function DeviceModelSection() {
  const models = useEngineQuery((q) => q.deviceModels());
  const choice = useEngineQuery((q) => q.deviceChoice());
  const [builtInProgress, setBuiltInProgress] = useState<number | null>(null);
  // Polled while the browser downloads its model: it becomes choosable once it reports 'available'.
  const builtIn = useEngineQuery((q) => ({
    ...q.builtIn(),
    refetchInterval: (query: { state: { data?: BuiltInAvailability } }) => (query.state.data === 'downloading' ? 2_000 : false),
  }));
  const chosen = choice.data ?? null;
  // Polled while a model is chosen: it loads in its own worker, which sends no events.
  const status = useEngineQuery((q) => ({ ...q.deviceStatus(1_000), enabled: chosen?.provider === 'transformers' }));
  const [progress, setProgress] = useState<ModelProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const choose = useEngineMutation((c, next: DeviceChoice) => c.setDeviceChoice(next), {
    invalidate: [queryKeys.deviceChoice, queryKeys.deviceStatus, queryKeys.consolidation, queryKeys.answerSettings],
  });
  const download = useEngineMutation((c, id: string) => c.deviceLlm().downloadModel(id, Comlink.proxy(setProgress)), {
    report: false,
    onSuccess: (list, qc) => qc.setQueryData(queryKeys.deviceModels, list),
  });
  const cancel = useEngineMutation((c, _: void) => c.deviceLlm().cancelDownload());
  // The browser downloads its own model (Recollect does not): started from this click, as Chrome requires.
  const downloadBuiltIn = useEngineMutation((c, _: void) => c.downloadBuiltIn(setBuiltInProgress), {
    invalidate: [queryKeys.builtIn],
    onSuccess: () => setBuiltInProgress(null),
  });
  const remove = useDeleteDownload(
    (c, id) => c.deviceLlm().deleteDownload(id),
    queryKeys.deviceModels,
    (id) => models.data?.find((m) => m.id === id)?.label ?? id,
  );
  const start = async (m: DeviceLlmInfo) => {
    setError(null);
    setProgress(null);
    try {
      await download.mutateAsync(m.id);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setProgress(null);
    }
  };
  const availability = builtIn.data ?? 'unsupported';
  // Offered only once the browser has its model: choosing a model that is not there yet would
  // leave answers waiting on a download of several GB.
  const builtInUsable = availability === 'available';
  const s = status.data;

  return (
    <section aria-label="This device">
      <h3>This device</h3>
      <p className="muted">
        Answers with no server at all: a language model runs in this browser, and nothing you write is sent anywhere. A chosen model is used
        instead of the endpoint above.
      </p>
      <p className="note" data-testid="device-quality-notice">
        What to expect: these models are small (0.1–0.5 billion parameters; the browser’s own is a few billion). Answers are short and
        sometimes wrong or off-topic, they may mix up who said what, and synthesised memory (facts, summaries, profile) is rough and
        sometimes missing. Recollect sends them less memory per question and synthesises long episodes in parts, to fit their small context
        window. Your messages are always stored and searchable exactly as written, whatever the model does.
      </p>
      <div role="radiogroup" aria-label="Who answers">
        <label>
          <input type="radio" name="answers-by" checked={chosen === null} onChange={() => choose.mutate(null)} /> The endpoint above
        </label>
        <label>
          <input
            type="radio"
            name="answers-by"
            checked={chosen?.provider === 'prompt-api'}
            disabled={!builtInUsable}
            onChange={() => choose.mutate({ provider: 'prompt-api' })}
          />{' '}
          Built-in model (Chrome)
        </label>
        <p className="muted" data-testid="built-in-state">
          {BUILT_IN_ADVICE[availability]}
        </p>
        {availability === 'downloadable' &&
          (downloadBuiltIn.isPending ? (
            <progress max={1} value={builtInProgress ?? 0} aria-label="The browser is downloading its built-in model" />
          ) : (
            <button type="button" onClick={() => downloadBuiltIn.mutate()}>
              Ask the browser to download its model
            </button>
          ))}
      </div>
      {/* One card per model, not a table row: the notes, languages and speed are sentences, and six
          columns of them did not fit a 640 px dialog (let alone a phone's), which pushed Download
          off-screen. Here the facts wrap under the name and Download sits beside it, or below on a phone. */}
      <ul className="device-models" aria-label="Models to download">
        {(models.data ?? []).map((m) => (
          <li key={m.id} data-testid={`device-model-${m.id}`}>
            <div className="device-model-head">
              <label>
                <input
                  type="radio"
                  name="answers-by"
                  checked={chosen?.provider === 'transformers' && chosen.modelId === m.id}
                  disabled={!m.cached || m.unusable !== null}
                  onChange={() => choose.mutate({ provider: 'transformers', modelId: m.id, label: m.label })}
                />{' '}
                <strong>{m.label}</strong> <span className="muted device-model-size">· {formatBytes(m.approxBytes)}</span>
              </label>
              <div className="device-model-download">
                {m.cached ? (
                  <>
                    <span className="muted">Downloaded</span>
                    <DeleteDownloadButton
                      label={m.label}
                      bytes={m.approxBytes}
                      pending={remove.pendingId === m.id}
                      onConfirm={() => remove.remove(m.id)}
                      blocked={
                        chosen?.provider === 'transformers' && chosen.modelId === m.id
                          ? 'In use: answers come from it. Choose another way to answer before deleting its download.'
                          : null
                      }
                    />
                  </>
                ) : download.isPending && download.variables === m.id ? (
                  <>
                    <progress max={progress?.total ?? 1} value={progress?.loaded ?? 0} aria-label={`Downloading ${m.label}`} />
                    <button type="button" onClick={() => cancel.mutate()}>
                      Cancel
                    </button>
                  </>
                ) : (
                  <button type="button" disabled={m.unusable !== null || download.isPending} onClick={() => void start(m)}>
                    Download {m.label}
                  </button>
                )}
              </div>
            </div>
            <div className="muted">{m.unusable ?? m.note}</div>
            <DeletedDownloadNotice notice={remove.deleted} modelId={m.id} />
            <dl className="device-model-facts">
              <div>
                <dt>Languages</dt>
                <dd>{m.languages}</dd>
              </div>
              <div>
                <dt>Licence</dt>
                <dd>{m.licence}</dd>
              </div>
              <div>
                <dt>Speed</dt>
                <dd>{m.speed}</dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="muted" data-testid="device-llm-state">
        {chosen === null
          ? 'Answers come from the endpoint above.'
          : chosen.provider === 'prompt-api'
            ? `Answers come from the browser’s built-in model, on this device${chosen.contextTokens ? ` (it reports a window of ${formatCount(chosen.contextTokens)} tokens; prompts are sized for it)` : ''}.`
            : s?.state === 'ready' && s.modelId === chosen.modelId
              ? `In use: ${chosen.label} on this device (${s.device === 'webgpu' ? 'WebGPU' : 'WASM'}).${s.notice ? ` ${s.notice}` : ''}`
              : s?.state === 'error'
                ? ''
                : `Loading ${chosen.label}…`}
      </p>
      {chosen?.provider === 'transformers' && s?.state === 'error' && (
        <p className="error" role="alert" data-testid="device-llm-error">
          {s.error?.message} No answers until this is fixed: your messages are still stored, organised and searchable.
        </p>
      )}
    </section>
  );
}
