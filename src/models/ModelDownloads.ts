/**
 * One download at a time of a model's files into the transformers.js cache, shared by the model
 * worker (embedders, rerankers: ModelService) and the device-LLM worker (DeviceLlmService):
 * cancel, progress against the expected byte count, and a failure message that says what went
 * wrong (cancelled, offline, a file missing on the hub, a file that is not a model).
 *
 * Resume: transformers.js puts a file in its cache only once every byte has arrived, so the files
 * that arrived whole before a cancel, a cut connection or a reload stay cached, and the next
 * download fetches only the rest (`ModelInfo.partial` tells the Models panel to offer it). A
 * failure that says the files themselves are wrong (a 404, a file that does not load as a model)
 * drops them all instead, so nothing stale passes for a download.
 *
 * transformers.js has no cancel for downloads, but its fetch (`env.fetch`, one global) is ours to
 * wrap: the abort signal is added to every request made during the download. Callers keep other
 * transformers.js work from running meanwhile (ModelService's queue; the device-LLM worker loads
 * only from the cache).
 */
import { env, type ProgressInfo } from '@huggingface/transformers';
import { RecollectError } from '../core/base/errors';
import type { ModelProgress, ProgressListener } from '../core/protocol';
import { onnxCheckingStream } from './onnxCheck';

/** Why a download stopped; decides the message and whether the files that arrived are kept. */
export type DownloadFailure = 'cancelled' | 'offline' | 'unreachable' | 'missing' | 'refused' | 'invalid';

export interface DownloadJob {
  readonly modelId: string;
  /** The name people know the model by, for messages. */
  readonly label: string;
  /** The catalog's size of all files: the progress total until the files' own sizes are known. */
  readonly expectedBytes: number;
  readonly onProgress?: ProgressListener | undefined;
  /** Fetches (and caches) every file, passing transformers.js progress events to `onInfo`. */
  fetchFiles(onInfo: (info: ProgressInfo) => void): Promise<void>;
  /** Drops the model's cached files (after a failure that makes them untrustworthy). */
  forget?(): Promise<void>;
  /** Runs the fetch in the caller's queue (transformers.js `env` is global). */
  serialise?<T>(fn: () => Promise<T>): Promise<T>;
}

export class ModelDownloads {
  #current: { modelId: string; controller: AbortController } | null = null;

  /** The model downloading now, or null. */
  get current(): string | null {
    return this.#current?.modelId ?? null;
  }

  /** Stops the running download (if `modelId` is given, only that one); true when one was stopped. */
  cancel(modelId?: string): boolean {
    const run = this.#current;
    if (!run || (modelId !== undefined && run.modelId !== modelId)) return false;
    run.controller.abort();
    return true;
  }

  async run(job: DownloadJob): Promise<void> {
    if (this.#current) {
      throw new RecollectError('INVALID_INPUT', 'Another model is downloading; wait for it or cancel it first.');
    }
    const controller = new AbortController();
    const run = { modelId: job.modelId, controller };
    this.#current = run;
    const report = downloadProgress(job.modelId, job.expectedBytes, job.onProgress);
    const serialise = job.serialise ?? (<T>(fn: () => Promise<T>) => fn());
    try {
      await serialise(async () => {
        controller.signal.throwIfAborted();
        const base = env.fetch;
        env.fetch = abortable(base, controller.signal);
        try {
          await job.fetchFiles(report.onInfo);
        } finally {
          env.fetch = base;
        }
      });
    } catch (err) {
      const kind = downloadFailure(err, controller.signal.aborted);
      if (kind === 'missing' || kind === 'invalid') await job.forget?.().catch(() => undefined);
      throw downloadError(kind, job.label, err);
    } finally {
      if (this.#current === run) this.#current = null;
    }
    report.finish();
  }
}

/**
 * The download's fetch: every request carries the abort signal, and a model file's bytes pass
 * through the ONNX shape check (src/models/onnxCheck.ts), so a file that cannot be a model fails
 * the download before onnxruntime sees it.
 */
function abortable(base: typeof env.fetch, signal: AbortSignal): typeof env.fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const own = init?.signal;
    const both = own && typeof AbortSignal.any === 'function' ? AbortSignal.any([own, signal]) : signal;
    const res = await base(input as string, { ...init, signal: both });
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // Not the size probe (a Range request for the first byte) and not an error page.
    const probe = new Headers(init?.headers).has('range');
    if (res.status !== 200 || !res.body || probe || !new URL(url, 'http://x/').pathname.endsWith('.onnx')) return res;
    return new Response(res.body.pipeThrough(onnxCheckingStream()), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  }) as typeof env.fetch;
}

/** Sorts a failure from transformers.js / fetch into what the person can do about it. */
export function downloadFailure(err: unknown, cancelled: boolean): DownloadFailure {
  if (cancelled || (err as { name?: unknown } | null)?.name === 'AbortError') return 'cancelled';
  const message = err instanceof Error ? err.message : String(err);
  const status = (err as { status?: unknown } | null)?.status;
  if (status === 404 || /^Could not locate file/.test(message)) return 'missing';
  if (typeof status === 'number' || /occurred while trying to load file|access to file/.test(message)) return 'refused';
  // Chromium: "Failed to fetch" (no connection) and "network error" (cut mid-body); Firefox
  // "NetworkError when attempting to fetch resource"; Node's undici "fetch failed" / "terminated".
  if (err instanceof TypeError && /fetch|network|terminated/i.test(message)) return isOffline() ? 'offline' : 'unreachable';
  return 'invalid';
}

function isOffline(): boolean {
  return typeof navigator !== 'undefined' && navigator.onLine === false;
}

export function downloadError(kind: DownloadFailure, label: string, err: unknown): RecollectError {
  const detail = err instanceof Error ? err.message : String(err);
  const short = detail.length > 200 ? `${detail.slice(0, 200)}…` : detail;
  const failed = `Downloading "${label}" failed:`;
  const kept = 'the files that already arrived are kept, so it continues from there.';
  switch (kind) {
    case 'cancelled':
      return new RecollectError('MODEL_UNAVAILABLE', `Downloading "${label}" was cancelled. Press Download to continue: ${kept}`, detail);
    case 'offline':
      return new RecollectError(
        'MODEL_UNAVAILABLE',
        `${failed} this device is offline. Connect to the internet and press Download again; ${kept}`,
        detail,
      );
    case 'unreachable':
      return new RecollectError(
        'MODEL_UNAVAILABLE',
        `${failed} the model hub (${hubHost()}) could not be reached, or the connection dropped; this device may be offline. Check the connection and press Download again; ${kept}`,
        detail,
      );
    case 'missing':
      return new RecollectError(
        'MODEL_UNAVAILABLE',
        `${failed} the model hub has no file "${fileOf(detail)}" for it (HTTP 404). The model may have moved; try again later or pick another model.`,
        detail,
      );
    case 'refused':
      return new RecollectError('MODEL_UNAVAILABLE', `${failed} the model hub refused a file (${short}). Try again later.`, detail);
    case 'invalid':
      return new RecollectError(
        'MODEL_ERROR',
        `${failed} the downloaded files do not load as a model (${short}). They were removed; press Download to try again.`,
        detail,
      );
  }
}

function fileOf(detail: string): string {
  const url = /"([^"]+)"/.exec(detail)?.[1] ?? '';
  const at = url.indexOf('/resolve/');
  return at < 0 ? url || 'a file' : url.slice(url.indexOf('/', at + '/resolve/'.length) + 1);
}

function hubHost(): string {
  try {
    return new URL(env.remoteHost).host;
  } catch {
    // not an absolute URL: name it as configured
    return env.remoteHost;
  }
}

/**
 * Sums transformers.js' per-file progress into one throttled byte count. The total is the
 * expected size (the catalog's) until the files' own sizes add up to more, so the bar never jumps
 * back when a large file starts late; at the end it is what actually arrived.
 */
export function downloadProgress(modelId: string, expectedBytes: number, listener: ProgressListener | undefined, intervalMs = 100) {
  const files = new Map<string, { loaded: number; total: number }>();
  let last: string | null = null;
  let lastEmit = 0;
  const emit = (done: boolean) => {
    if (!listener) return;
    let loaded = 0;
    let total = 0;
    for (const f of files.values()) {
      loaded += f.loaded;
      total += f.total;
    }
    const progress: ModelProgress = { modelId, file: last, loaded, total: done ? total : Math.max(total, expectedBytes), done };
    // Fire and forget: a Comlink proxy returns a promise; a closed page must not break the download.
    Promise.resolve()
      .then(() => listener(progress))
      .catch(() => undefined);
  };
  return {
    onInfo: (info: ProgressInfo) => {
      if (info.status === 'progress') files.set(info.file, { loaded: info.loaded, total: info.total });
      else if (info.status === 'done') {
        const f = files.get(info.file);
        if (f) f.loaded = f.total;
      } else return;
      last = info.file;
      const now = Date.now();
      if (info.status === 'done' || now - lastEmit >= intervalMs) {
        lastEmit = now;
        emit(false);
      }
    },
    finish: () => emit(true),
  };
}
