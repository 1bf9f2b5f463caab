/**
 * Runs the chosen language model on this device, in the device-LLM worker (its own worker, so
 * generation never blocks the engine or the page): lists the catalog with what this device can
 * run, downloads a model into the browser cache on the person's action (progress, cancel; files
 * already cached are not fetched again, so a cancelled or cut download resumes), loads it on WebGPU
 * when the adapter can hold it, else on WASM when the model is small enough, and generates.
 *
 * Invariants: nothing reaches the network except inside `downloadModel`; a model that fails to
 * load leaves the state 'error' with the reason, and every generate() then fails with
 * LLM_NOT_CONFIGURED carrying that reason (the engine keeps storing turns; answers say why).
 */
import { RecollectError, toErrorInfo } from '../core/base/errors';
import type {
  DeletedDownload,
  DeviceGenerationRequest,
  DeviceGenerationResult,
  DeviceLlmInfo,
  DeviceLlmStatus,
  DeviceLlmWorkerApi,
  ProgressListener,
  TextListener,
} from '../core/protocol';
import { LlmError } from '../llm/llmErrors';
import {
  DEVICE_LLM_CATALOG,
  chooseRuntime,
  deviceLlmFiles,
  type DeviceLlmDtype,
  type DeviceLlmEntry,
  type GpuCapabilities,
  type Runtime,
} from './deviceLlmCatalog';
import { TransformersTextGenerator, type TextGeneratorLoadOptions } from './TransformersTextGenerator';
import { ModelDownloads } from './ModelDownloads';
import { withEnv } from './transformersEnv';

export interface DeviceLlmPlatform {
  /** The WebGPU adapter's limits, or null when there is none. */
  gpu(): Promise<GpuCapabilities | null>;
  /** Every file of `id` is in the browser cache. */
  cached(id: string, files: readonly string[]): Promise<boolean>;
  /** Drops a model's cached files (a failed download's, or one the person deletes); resolves to the bytes removed, where known. */
  forget?(id: string, files: readonly string[]): Promise<number>;
  setModelHub?(url: string | null): string;
  /** Loads a model (tests pass a counting or failing loader). */
  load?(id: string, options: TextGeneratorLoadOptions): Promise<TransformersTextGenerator>;
}

const NONE: DeviceLlmStatus = { modelId: null, state: 'none', device: null, notice: null, error: null };

export class DeviceLlmService implements DeviceLlmWorkerApi {
  readonly #platform: DeviceLlmPlatform;
  readonly #catalog: readonly DeviceLlmEntry[];
  #status: DeviceLlmStatus = NONE;
  #generator: TransformersTextGenerator | null = null;
  #loading: Promise<DeviceLlmStatus> | null = null;
  readonly #downloads = new ModelDownloads();
  /** Generations running now: their model's files must not go from under them. */
  #generating = 0;

  constructor(platform: DeviceLlmPlatform, catalog: readonly DeviceLlmEntry[] = DEVICE_LLM_CATALOG) {
    this.#platform = platform;
    this.#catalog = catalog;
  }

  status(): DeviceLlmStatus {
    return this.#status;
  }

  async setModelHub(url: string | null): Promise<string> {
    try {
      return this.#platform.setModelHub?.(url) ?? '';
    } catch (err) {
      throw new RecollectError('INVALID_INPUT', err instanceof Error ? err.message : String(err));
    }
  }

  async listModels(): Promise<DeviceLlmInfo[]> {
    const gpu = await this.#platform.gpu();
    return Promise.all(
      this.#catalog.map(async (entry) => {
        const runtime = chooseRuntime(entry, gpu);
        const dtype = runtime.ok ? runtime.dtype : 'q4';
        return {
          id: entry.id,
          label: entry.label,
          approxBytes: entry.bytes[dtype],
          languages: entry.languages,
          licence: entry.licence,
          speed: entry.speed,
          note: runtime.ok && runtime.notice ? `${entry.note} ${runtime.notice}` : entry.note,
          cached: await this.#platform.cached(entry.id, deviceLlmFiles(dtype)),
          unusable: runtime.ok ? null : runtime.reason,
        };
      }),
    );
  }

  /** The person's download action: the files this device will load, into the browser cache (src/models/ModelDownloads.ts). */
  async downloadModel(id: string, onProgress?: ProgressListener): Promise<DeviceLlmInfo[]> {
    const entry = this.#entry(id);
    const runtime = chooseRuntime(entry, await this.#platform.gpu());
    if (!runtime.ok) throw new RecollectError('MODEL_UNAVAILABLE', runtime.reason);
    const files = deviceLlmFiles(runtime.dtype);
    await this.#downloads.run({
      modelId: entry.id,
      label: entry.label,
      expectedBytes: entry.bytes[runtime.dtype],
      onProgress,
      forget: async () => void (await this.#platform.forget?.(entry.id, files)),
      fetchFiles: (onInfo) =>
        withEnv({ allowRemoteModels: true, allowLocalModels: false }, async () => {
          // Loading is the library's way to fetch (and cache) every file; WASM checks the files, not speed.
          const generator = await this.#loader(entry.id, { device: 'wasm', dtype: runtime.dtype, progress_callback: onInfo });
          await generator.dispose();
        }),
    });
    return this.listModels();
  }

  cancelDownload(): void {
    this.#downloads.cancel();
  }

  /**
   * The person's "Delete download": removes every precision's files of `id` from the cache (a
   * model downloaded on one adapter may have been fetched in the other precision elsewhere). This
   * worker does not know which model the person chose: the page disables the control for the
   * chosen one, and a model still loaded after the choice moved away is unloaded first. A model
   * that is loading or generating is refused.
   */
  async deleteDownload(id: string): Promise<DeletedDownload<DeviceLlmInfo>> {
    const entry = this.#entry(id);
    const busy = this.#status.modelId === id && (this.#status.state === 'loading' || this.#generating > 0);
    if (busy)
      throw new RecollectError(
        'MODEL_IN_USE',
        `${entry.label} is in use: it is answering on this device. Choose another way to answer first, then delete it.`,
      );
    if (this.#status.modelId === id) {
      const generator = this.#generator;
      this.#generator = null;
      this.#status = NONE;
      await generator?.dispose().catch(() => undefined);
    }
    if (this.#downloads.current === id)
      throw new RecollectError('MODEL_IN_USE', `${entry.label} is downloading: cancel the download first.`);
    const dtypes = Object.keys(entry.bytes) as DeviceLlmDtype[];
    const cached = await Promise.all(dtypes.map(async (d) => ((await this.#platform.cached(id, deviceLlmFiles(d))) ? entry.bytes[d] : 0)));
    const files = [...new Set(dtypes.flatMap((d) => deviceLlmFiles(d)))];
    const removed = (await this.#platform.forget?.(id, files)) ?? 0;
    const expected = cached.reduce((a, b) => a + b, 0);
    if (removed === 0 && expected === 0) throw new RecollectError('NOT_FOUND', `${entry.label} is not downloaded on this device.`);
    return { modelId: id, freedBytes: removed > 0 ? removed : expected, models: await this.listModels() };
  }

  /** Loads `id` from the cache (never the network) on the best device it can run on here. */
  load(id: string): Promise<DeviceLlmStatus> {
    const entry = this.#entry(id);
    if (this.#status.modelId === id && this.#status.state === 'ready') return Promise.resolve(this.#status);
    const loading = this.#load(entry);
    this.#loading = loading;
    return loading;
  }

  async #load(entry: DeviceLlmEntry): Promise<DeviceLlmStatus> {
    const old = this.#generator;
    this.#generator = null;
    if (old) await old.dispose().catch(() => undefined);
    this.#status = { ...NONE, modelId: entry.id, state: 'loading' };
    const gpu = await this.#platform.gpu();
    let runtime: Runtime = chooseRuntime(entry, gpu);
    try {
      if (!runtime.ok) throw new RecollectError('MODEL_UNAVAILABLE', runtime.reason);
      if (!(await this.#platform.cached(entry.id, deviceLlmFiles(runtime.dtype)))) {
        throw new RecollectError(
          'MODEL_UNAVAILABLE',
          `${entry.label} is not downloaded on this device. Download it in Settings → Answers on this device.`,
        );
      }
      let notice = runtime.notice;
      let generator: TransformersTextGenerator;
      try {
        generator = await this.#loadFromCache(entry.id, runtime);
      } catch (err) {
        // WebGPU can fail at session creation (driver, memory); the tiny model then tries WASM.
        const fallback = runtime.device === 'webgpu' ? chooseRuntime(entry, gpu, true) : null;
        if (!fallback?.ok || !(await this.#platform.cached(entry.id, deviceLlmFiles(fallback.dtype)))) throw err;
        runtime = fallback;
        notice = `WebGPU failed (${err instanceof Error ? err.message.slice(0, 120) : String(err)}); running on the processor (WASM).`;
        generator = await this.#loadFromCache(entry.id, fallback);
      }
      this.#generator = generator;
      this.#status = { modelId: entry.id, state: 'ready', device: runtime.ok ? runtime.device : null, notice, error: null };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const error =
        err instanceof RecollectError
          ? err
          : new RecollectError('MODEL_ERROR', `${entry.label} failed to load on this device: ${message.slice(0, 300)}`);
      this.#status = { modelId: entry.id, state: 'error', device: null, notice: null, error: toErrorInfo(error) };
    }
    return this.#status;
  }

  #loadFromCache(id: string, runtime: Extract<Runtime, { ok: true }>): Promise<TransformersTextGenerator> {
    // Cached files load with local models on and remote off (transformers.js refuses with both off).
    return withEnv({ allowRemoteModels: false, allowLocalModels: true }, () =>
      this.#loader(id, { device: runtime.device, dtype: runtime.dtype }),
    );
  }

  async generate(request: DeviceGenerationRequest, onText?: TextListener): Promise<DeviceGenerationResult> {
    if (this.#loading) await this.#loading;
    const generator = this.#generator;
    if (!generator) {
      const why = this.#status.error?.message ?? 'No model on this device is loaded. Choose one in Settings.';
      throw new LlmError('LLM_NOT_CONFIGURED', why);
    }
    this.#generating++;
    try {
      return await generator.generate(request, onText);
    } finally {
      this.#generating--;
    }
  }

  cancel(requestId: string): void {
    this.#generator?.cancel(requestId);
  }

  #loader(id: string, options: TextGeneratorLoadOptions): Promise<TransformersTextGenerator> {
    return this.#platform.load ? this.#platform.load(id, options) : TransformersTextGenerator.load(id, options);
  }

  #entry(id: string): DeviceLlmEntry {
    const entry = this.#catalog.find((m) => m.id === id);
    if (!entry) throw new RecollectError('INVALID_INPUT', `"${id}" is not a model Recollect can run on this device.`);
    return entry;
  }
}
