/**
 * The model worker's API: one embedder (default: the bundled offline model) and at most one
 * reranker, loaded lazily from the local model path / cache, plus the explicit download action.
 *
 * Invariants:
 * - Nothing is fetched from the network except inside `downloadModel` (the user's action).
 * - Loading a model that is neither bundled nor downloaded fails fast with MODEL_UNAVAILABLE,
 *   before transformers.js is asked for anything.
 * - transformers.js `env` is global, so every load/download runs through one queue (`exclusive`).
 * - Every method takes and returns structured-cloneable values; progress listeners may be
 *   `Comlink.proxy` functions (their calls are not awaited, errors ignored).
 */
import { AutoModel, AutoTokenizer } from '@huggingface/transformers';
import { RecollectError, type ErrorInfo, toErrorInfo } from '../core/base/errors';
import type {
  DeletedDownload,
  DevicePreference,
  ModelInfo,
  ModelStatus,
  ModelWorkerApi,
  ProgressListener,
  SlotState,
  SlotStatus,
} from '../core/protocol';
import { BUNDLED_MODEL_ID, MODEL_CATALOG, type CatalogEntry, type ModelKind } from './catalog';
import type { ModelLoadOptions } from './loadOptions';
import { isBackendUnavailable, isDamagedModelFile, isMissingModelFile, unavailable } from './modelErrors';
import { ModelDownloads, downloadFailure, downloadProgress } from './ModelDownloads';
import { StaticEmbedder } from './StaticEmbedder';
import { TransformersEmbedder, type EmbedRole } from './TransformersEmbedder';
import { TransformersReranker } from './TransformersReranker';
import { withEnv, type ModelPlatform } from './transformersEnv';

/** Every device preference the model worker accepts (validated: the value crosses a worker boundary). */
export const DEVICE_PREFERENCES: readonly DevicePreference[] = ['auto', 'webgpu', 'wasm'];

export interface ModelServiceOptions {
  readonly platform: ModelPlatform;
  readonly catalog?: readonly CatalogEntry[];
  /** Embedder used until `loadEmbedder` picks another. */
  readonly embedderId?: string;
  readonly rerankerId?: string | null;
  readonly batchSize?: number;
  /**
   * A model failed inside onnxruntime after its files passed every check (browser only). In a
   * browser transformers.js 4.3.1 chains every session creation on one module-level promise and
   * never clears a rejection (src/backends/onnx.js, `webInitChain`; see onnxCheck.ts), so no other
   * model can load in this worker again: the page restarts it (workers/model.worker.ts).
   */
  readonly onRuntimeBroken?: () => void;
}

interface Slot<T> {
  id: string | null;
  model: T | null;
  loading: Promise<T> | null;
  error: ErrorInfo | null;
}

export class ModelService implements ModelWorkerApi {
  private readonly platform: ModelPlatform;
  private readonly catalog: readonly CatalogEntry[];
  private readonly batchSize: number | undefined;
  private readonly embedder: Slot<LoadedEmbedder>;
  private readonly reranker: Slot<LoadedReranker>;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly extraEmbedders = new Map<string, Promise<LoadedEmbedder>>();
  private devicePreference: DevicePreference = 'auto';
  private readonly downloads = new ModelDownloads();
  private readonly onRuntimeBroken: (() => void) | undefined;
  /** A download's session failed in onnxruntime; reported once the download has answered. */
  private downloadBrokeRuntime = false;

  constructor(options: ModelServiceOptions) {
    this.platform = options.platform;
    this.catalog = options.catalog ?? MODEL_CATALOG;
    this.batchSize = options.batchSize;
    this.onRuntimeBroken = options.onRuntimeBroken;
    this.embedder = { id: options.embedderId ?? BUNDLED_MODEL_ID, model: null, loading: null, error: null };
    this.reranker = { id: options.rerankerId ?? null, model: null, loading: null, error: null };
  }

  async embed(texts: readonly string[], role: EmbedRole = 'document'): Promise<Float32Array[]> {
    const embedder = await this.ready(this.embedder, 'embedder');
    return embedder.embed(texts, role);
  }

  /**
   * Embeds with a specific embedder, which need not be the selected one (the engine re-embeds with
   * a new model while retrieval still queries the old one). The selected model is the engine's
   * active one (`loadEmbedder`); at most one other, the switch's target, is kept loaded beside it,
   * so alternating between the two never reloads either.
   */
  async embedWith(modelId: string, texts: readonly string[], role: EmbedRole = 'document'): Promise<Float32Array[]> {
    if (modelId === this.embedder.id) {
      const model = await this.ready(this.embedder, 'embedder');
      // The selected model may have changed while it loaded: vectors must come from the model asked for.
      if (model.entry.id === modelId) return model.embed(texts, role);
    }
    let loading = this.extraEmbedders.get(modelId);
    if (!loading) {
      for (const [id, old] of this.extraEmbedders) {
        this.extraEmbedders.delete(id);
        void old.then((m) => m.dispose()).catch(() => undefined);
      }
      loading = this.load('embedder', modelId);
      this.extraEmbedders.set(modelId, loading);
      loading.catch(() => this.extraEmbedders.delete(modelId));
    }
    return (await loading).embed(texts, role);
  }

  async rerank(query: string, docs: readonly string[]): Promise<number[]> {
    if (this.reranker.id === null) {
      throw new RecollectError('MODEL_UNAVAILABLE', 'No reranker is selected. Pick one in Settings → Models.');
    }
    const reranker = await this.ready(this.reranker, 'reranker');
    return reranker.rerank(query, docs);
  }

  /**
   * Makes `id` the selected embedder (the engine calls this with its active model); the previous
   * one stays in use if loading fails. A model already loaded as the switch target is promoted,
   * not loaded again.
   */
  async loadEmbedder(id: string): Promise<ModelStatus> {
    const extra = this.extraEmbedders.get(id);
    if (extra && id !== this.embedder.id) {
      this.extraEmbedders.delete(id);
      const model = await extra.catch(() => null);
      if (model) {
        const old = this.embedder.model;
        Object.assign(this.embedder, { id, model, loading: null, error: null });
        if (old && old !== model) await old.dispose();
        return this.status();
      }
    }
    await this.switchTo(this.embedder, 'embedder', id);
    return this.status();
  }

  /** Points downloads at a mirror of the Hub (null: the Hugging Face Hub); returns the host in use. */
  async setModelHub(url: string | null): Promise<string> {
    try {
      return await this.exclusive(async () => this.platform.setModelHub?.(url) ?? '');
    } catch (err) {
      throw new RecollectError('INVALID_INPUT', err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * Chooses where the embedder runs and reloads it there. WebGPU that cannot get a device falls
   * back to WASM, and the status says so (`notice`). If the reload fails, the loaded model stays.
   */
  async setDevicePreference(preference: DevicePreference): Promise<ModelStatus> {
    if (!DEVICE_PREFERENCES.includes(preference))
      throw new RecollectError('INVALID_INPUT', `"${String(preference)}" is not a device preference (${DEVICE_PREFERENCES.join(', ')}).`);
    if (preference === this.devicePreference) return this.status();
    this.devicePreference = preference;
    const slot = this.embedder;
    if (slot.id !== null) {
      // A load already running used the old preference: let it settle, then load again.
      await slot.loading?.catch(() => undefined);
      const old = slot.model;
      // Clearing the model makes switchTo load the same id again, now on the preferred device.
      slot.model = null;
      try {
        await this.switchTo(slot, 'embedder', slot.id);
      } catch (err) {
        if (!slot.model) slot.model = old;
        throw err;
      } finally {
        if (old && slot.model !== old) await old.dispose();
      }
    }
    return this.status();
  }

  /** Switches the reranker, or turns reranking off with `null`. */
  async loadReranker(id: string | null): Promise<ModelStatus> {
    if (id === null) {
      const old = this.reranker.model;
      Object.assign(this.reranker, { id: null, model: null, loading: null, error: null });
      await old?.dispose();
      return this.status();
    }
    await this.switchTo(this.reranker, 'reranker', id);
    return this.status();
  }

  status(): ModelStatus {
    return { embedder: slotStatus(this.embedder), reranker: slotStatus(this.reranker), devicePreference: this.devicePreference };
  }

  async listModels(): Promise<ModelInfo[]> {
    return Promise.all(
      this.catalog.map(async (entry) => {
        const {
          local,
          cached,
          partial = false,
        } = await this.platform.availability(entry).catch(() => ({ local: false, cached: false, partial: false }));
        const slot = entry.kind === 'embedder' ? this.embedder : this.reranker;
        return {
          id: entry.id,
          kind: entry.kind,
          label: entry.label,
          dim: entry.dim,
          approxBytes: entry.approxBytes,
          bundled: entry.bundled,
          note: entry.note,
          languages: entry.languages,
          licence: entry.licence,
          languageCodes: entry.languageCodes,
          available: local || cached,
          cached,
          partial: !local && !cached && partial,
          selected: slot.id === entry.id,
        };
      }),
    );
  }

  /**
   * The explicit user action: fetches a catalog model's files from the Hugging Face Hub into the
   * transformers.js cache (browser Cache API), reporting bytes as they arrive. Remote access is
   * enabled only for the duration of this call. `cancelDownload` stops it; files that arrived
   * whole stay cached, so downloading again (after a cancel, a lost connection or a reload)
   * fetches only the rest (src/models/ModelDownloads.ts).
   */
  async downloadModel(id: string, onProgress?: ProgressListener): Promise<ModelInfo[]> {
    const entry = this.catalog.find((m) => m.id === id);
    if (!entry) throw new RecollectError('INVALID_INPUT', `"${id}" is not in the model catalog.`);
    if (entry.bundled) {
      downloadProgress(entry.id, 0, onProgress).finish();
      return this.listModels();
    }
    try {
      await this.downloadFiles(entry, onProgress);
    } finally {
      // After the download's own cleanup (forgetting the files), so the caller hears why first.
      if (this.downloadBrokeRuntime) {
        this.downloadBrokeRuntime = false;
        this.runtimeBroken();
      }
    }
    return this.listModels();
  }

  private downloadFiles(entry: CatalogEntry, onProgress: ProgressListener | undefined): Promise<void> {
    return this.downloads.run({
      modelId: entry.id,
      label: entry.label,
      expectedBytes: entry.approxBytes,
      onProgress,
      serialise: (fn) => this.exclusive(fn),
      forget: async () => void (await this.platform.forget?.(entry)),
      fetchFiles: (onInfo) =>
        withEnv({ allowRemoteModels: true, allowLocalModels: false }, async () => {
          const options = { progress_callback: onInfo };
          await AutoTokenizer.from_pretrained(entry.id, options);
          // Creating the session is the library's supported way to fetch (and cache) the weights.
          const model = await AutoModel.from_pretrained(entry.id, {
            ...options,
            dtype: entry.dtype,
            // The platform's most compatible device (WASM in a browser): checking the file, not speed.
            ...(this.platform.name === 'browser' ? { device: this.platform.devices(entry).at(-1) ?? 'wasm' } : {}),
          }).catch((err: unknown) => {
            // Not a fetch, a cancel or the shape check (onnxCheck.ts): onnxruntime refused the file.
            const message = err instanceof Error ? err.message : String(err);
            if (downloadFailure(err, false) === 'invalid' && !/not an ONNX model/.test(message)) this.downloadBrokeRuntime = true;
            throw err;
          });
          await model.dispose();
        }),
    });
  }

  /** Stops the running download; files that arrived whole are kept for the next try. */
  cancelDownload(): void {
    this.downloads.cancel();
  }

  /**
   * The person's "Delete download": removes a downloaded model's files from the cache, so it lists
   * as "N MB download" again. A model this worker uses (the embedder, a switch's target, the
   * reranker) is refused rather than pulled from under a search; the page disables the control
   * for the same models and says why.
   */
  async deleteDownload(id: string): Promise<DeletedDownload<ModelInfo>> {
    const entry = this.catalog.find((m) => m.id === id);
    if (!entry) throw new RecollectError('INVALID_INPUT', `"${id}" is not in the model catalog.`);
    if (entry.bundled) throw new RecollectError('INVALID_INPUT', `${entry.label} comes with Recollect: there is no download to delete.`);
    // A slot whose model failed to load holds nothing of it (its files may be what failed).
    const use =
      this.embedder.id === id && !this.embedder.error
        ? 'searches by meaning with it'
        : this.extraEmbedders.has(id)
          ? 'is re-embedding your memory with it'
          : this.reranker.id === id && !this.reranker.error
            ? 'reranks with it'
            : null;
    if (use)
      throw new RecollectError('MODEL_IN_USE', `${entry.label} is in use: Recollect ${use}. Choose another model first, then delete it.`);
    if (this.downloads.current === id)
      throw new RecollectError('MODEL_IN_USE', `${entry.label} is downloading: cancel the download first.`);
    const { cached, partial = false } = await this.platform.availability(entry);
    // In the load/download queue: no load of this model reads files while they go.
    const removed = await this.exclusive(async () => (await this.platform.forget?.(entry)) ?? 0);
    const freedBytes = removed > 0 ? removed : cached ? entry.approxBytes : 0;
    if (!cached && !partial && removed === 0) throw new RecollectError('NOT_FOUND', `${entry.label} is not downloaded on this device.`);
    return { modelId: id, freedBytes, models: await this.listModels() };
  }

  // -------------------------------------------------------------------------------------------

  private async ready<K extends ModelKind>(slot: Slot<SlotModel<K>>, kind: K): Promise<SlotModel<K>> {
    if (slot.model) return slot.model;
    if (slot.loading) return slot.loading;
    return this.switchTo(slot, kind, slot.id!);
  }

  private switchTo<K extends ModelKind>(slot: Slot<SlotModel<K>>, kind: K, id: string): Promise<SlotModel<K>> {
    if (slot.id === id && slot.model) return Promise.resolve(slot.model);
    if (slot.id === id && slot.loading) return slot.loading;
    const loading = this.load(kind, id);
    slot.loading = loading;
    slot.error = null;
    const previousId = slot.id;
    slot.id = id;
    return loading.then(
      async (model) => {
        if (slot.loading !== loading && slot.id !== id) {
          await model.dispose(); // superseded by a later switch: hand out the newer model
          return this.ready(slot, kind);
        }
        const old = slot.model;
        Object.assign(slot, { model, loading: null, error: null });
        if (old && old !== model) await old.dispose();
        return model;
      },
      (err: unknown) => {
        if (slot.loading === loading) {
          slot.loading = null;
          slot.error = toErrorInfo(err);
          // Keep using the model that works; a reranker that never loaded is not "in use".
          if (slot.model || kind === 'reranker') slot.id = slot.model ? previousId : null;
        }
        throw err;
      },
    );
  }

  private async load<K extends ModelKind>(kind: K, id: string): Promise<SlotModel<K>> {
    const entry = this.catalog.find((m) => m.id === id && m.kind === kind);
    if (!entry) throw new RecollectError('INVALID_INPUT', `"${id}" is not a known ${kind}.`);
    // A reranker of trust 0 (the bundled stand-in) cannot change a ranking, and recall never asks
    // it: choosing it loads nothing (no inference runtime at start); a direct rerank call loads it.
    if (kind === 'reranker' && !((entry.rerankTrust ?? 0) > 0)) {
      return new DeferredReranker(
        entry,
        () => this.loadNow('reranker', id, entry) as Promise<TransformersReranker>,
      ) as unknown as SlotModel<K>;
    }
    return this.loadNow(kind, id, entry);
  }

  private async loadNow<K extends ModelKind>(kind: K, id: string, entry: CatalogEntry): Promise<SlotModel<K>> {
    // The bundled embedder is a word-vector lookup: in 'auto' it never loads an inference runtime
    // (onnxruntime-web's 26.8 MB WebAssembly was most of a cold open). A device the user picked
    // explicitly still runs the ONNX graph there (same vectors; the Compute panel's choice holds).
    const staticFiles = this.platform.staticFiles;
    if (kind === 'embedder' && entry.bundled && this.devicePreference === 'auto' && staticFiles) {
      return (await StaticEmbedder.load(entry, staticFiles(entry))) as SlotModel<K>;
    }
    const { local, cached } = await this.platform.availability(entry);
    if (!local && !cached) throw unavailable(id, entry);
    const options: ModelLoadOptions = {
      platform: this.platform,
      entry,
      ...(this.batchSize ? { batchSize: this.batchSize } : {}),
      ...(kind === 'embedder' && this.devicePreference !== 'auto' ? { device: this.devicePreference } : {}),
    };
    // Browser: bundled files bypass the Cache API (a rebuilt model must not be shadowed by a stale
    // cached copy; the service worker precache keeps them offline). Downloaded ones load from the
    // cache with local models on (transformers.js will not look in its cache with both local and
    // remote models off) and remote models off, so a missing file never reaches the network.
    const flags = loadFlags(this.platform, entry);
    const problem = !entry.bundled && cached ? await this.platform.damaged?.(entry) : null;
    if (problem) throw await this.dropDamaged(entry, problem);
    try {
      return await this.exclusive(() =>
        withEnv(
          flags,
          async () =>
            (kind === 'embedder'
              ? await TransformersEmbedder.create(id, options)
              : await TransformersReranker.create(id, options)) as SlotModel<K>,
        ),
      );
    } catch (err) {
      const broken = !isMissingModelFile(err) && !isBackendUnavailable(err) && (err as { code?: unknown }).code !== 'MODEL_UNAVAILABLE';
      try {
        if (entry.bundled || !cached || !isDamagedModelFile(err)) throw err;
        throw await this.dropDamaged(entry, (err as { detail?: string }).detail ?? (err instanceof Error ? err.message : String(err)));
      } finally {
        if (broken) this.runtimeBroken(); // after dropping the files: the caller hears why first
      }
    }
  }

  /**
   * A damaged download fails the same way on every try: drop it, so the Models panel offers
   * Download again instead of a Use that cannot work.
   */
  private async dropDamaged(entry: CatalogEntry, detail: string): Promise<RecollectError> {
    await this.platform.forget?.(entry).catch(() => undefined);
    const short = detail.length > 160 ? `${detail.slice(0, 160)}…` : detail;
    return new RecollectError(
      'MODEL_ERROR',
      `The downloaded files of "${entry.label}" are damaged (${short}), so they were removed. Download it again in Settings → Models.`,
      detail,
    );
  }

  /** See ModelServiceOptions.onRuntimeBroken; only a browser's runtime keeps the failure. */
  private runtimeBroken(): void {
    if (this.platform.name === 'browser') this.onRuntimeBroken?.();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The transformers.js env flags a load runs with (exported for the browser-branch unit tests). */
export function loadFlags(
  platform: Pick<ModelPlatform, 'name'>,
  entry: Pick<CatalogEntry, 'bundled'>,
): { useBrowserCache?: boolean; allowLocalModels?: boolean; allowRemoteModels?: boolean } {
  if (platform.name !== 'browser') return {};
  return entry.bundled ? { useBrowserCache: false, allowRemoteModels: false } : { allowLocalModels: true, allowRemoteModels: false };
}

/** An embedder the worker holds: the runtime-free lookup of the bundled model, or a transformers.js pipeline. */
type LoadedEmbedder = TransformersEmbedder | StaticEmbedder;
/** A reranker the worker holds: a transformers.js cross-encoder, or one loaded when first asked. */
type LoadedReranker = Pick<TransformersReranker, 'id' | 'trust' | 'entry' | 'device' | 'rerank' | 'dispose'>;
type SlotModel<K extends ModelKind> = K extends 'embedder' ? LoadedEmbedder : LoadedReranker;

/** Holds a reranker's place in its slot and loads it on the first rerank call. */
class DeferredReranker implements LoadedReranker {
  readonly id: string;
  readonly trust: number;
  readonly entry: CatalogEntry;
  #model: Promise<TransformersReranker> | null = null;
  readonly #create: () => Promise<TransformersReranker>;

  constructor(entry: CatalogEntry, create: () => Promise<TransformersReranker>) {
    this.entry = entry;
    this.id = entry.vectorId;
    this.trust = entry.rerankTrust ?? 0;
    this.#create = create;
  }

  get device(): TransformersReranker['device'] {
    return undefined;
  }

  rerank(query: string, docs: readonly string[]): Promise<number[]> {
    this.#model ??= this.#create().catch((err: unknown) => {
      this.#model = null;
      throw err;
    });
    return this.#model.then((m) => m.rerank(query, docs));
  }

  async dispose(): Promise<void> {
    const model = this.#model;
    this.#model = null;
    await (await model?.catch(() => null))?.dispose();
  }
}

function slotStatus(slot: Slot<LoadedEmbedder> | Slot<LoadedReranker>): SlotStatus {
  const model = slot.model;
  const state: SlotState = slot.loading ? 'loading' : model ? 'ready' : slot.error ? 'error' : 'none';
  return {
    modelId: slot.id,
    vectorId: model?.id ?? null,
    dim: model && 'dim' in model ? model.dim : null,
    device: model ? (model.device ?? 'default') : null,
    notice: model && 'fallback' in model ? model.fallback : null,
    state,
    error: slot.error,
  };
}
