/**
 * transformers.js `env` configuration and the per-platform answer to "is this model here?".
 *
 * Invariants: remote downloads are off (`allowRemoteModels = false`) except inside
 * `withEnv({ allowRemoteModels: true }, …)` during the user's explicit download action; in the
 * browser the ONNX Runtime WASM files come from the app's own origin, never a CDN (transformers.js
 * points `wasmPaths` at jsDelivr at import time unless we overwrite it; docs/architecture.md, Measured facts).
 *
 * `env` is one global object, so callers must not run two `withEnv` blocks at once
 * (ModelService serialises them).
 */
import { env } from '@huggingface/transformers';
import { MODEL_CATALOG, modelFiles, type CatalogEntry } from './catalog';
import { checkOnnxStream } from './onnxCheck';

export type Device = 'webgpu' | 'wasm' | 'cpu';

export interface ModelAvailability {
  /** Served from the app's origin / present on disk under the local model path. */
  readonly local: boolean;
  /** In the transformers.js cache (browser Cache API or Node FS cache) from an earlier download. */
  readonly cached: boolean;
  /** Some of its files are cached but not all: a download that stopped part-way (resumable). */
  readonly partial?: boolean;
}

/** What differs between the browser worker and Node (tests, benchmarks). */
export interface ModelPlatform {
  readonly name: 'browser' | 'node';
  /** Devices to try for an entry, best first. */
  devices(entry: CatalogEntry): readonly Device[];
  availability(entry: CatalogEntry): Promise<ModelAvailability>;
  /**
   * Why `device` cannot run here (null when it may). Asked before loading: onnxruntime-web keeps a
   * failed WebGPU initialisation, and the WASM retry after it fails the same way.
   */
  unusable?(device: Device): Promise<string | null>;
  /** Points downloads at a mirror of the Hub; null restores the Hugging Face Hub. */
  setModelHub?(url: string | null): string;
  /**
   * Drops a model's files from the cache (a failed download's leftovers, so a retry fetches every
   * file again, or a download the person deletes); resolves to the bytes removed, where known.
   */
  forget?(entry: CatalogEntry): Promise<number>;
  /**
   * What is wrong with a downloaded model's cached weights, or null (src/models/onnxCheck.ts):
   * asked before loading, since a file onnxruntime cannot parse breaks every later load in the
   * browser worker.
   */
  damaged?(entry: CatalogEntry): Promise<string | null>;
  /** Reads a bundled model's runtime-free lookup files (src/models/StaticEmbedder.ts); absent: always run the ONNX graph. */
  staticFiles?(entry: CatalogEntry): (file: string) => Promise<ArrayBuffer>;
}

type EnvFlags = Pick<typeof env, 'allowRemoteModels' | 'allowLocalModels' | 'useBrowserCache'>;

/** Runs `fn` with some env flags changed, restoring them afterwards. Not re-entrant. */
export async function withEnv<T>(flags: Partial<EnvFlags>, fn: () => Promise<T>): Promise<T> {
  const saved: EnvFlags = {
    allowRemoteModels: env.allowRemoteModels,
    allowLocalModels: env.allowLocalModels,
    useBrowserCache: env.useBrowserCache,
  };
  Object.assign(env, flags);
  try {
    return await fn();
  } finally {
    Object.assign(env, saved);
  }
}

/** The Hub URL transformers.js uses for a file; it is also the browser cache key of a download. */
export function remoteUrl(modelId: string, file: string): string {
  const host = env.remoteHost.endsWith('/') ? env.remoteHost : `${env.remoteHost}/`;
  const path = env.remotePathTemplate.replaceAll('{model}', modelId).replaceAll('{revision}', 'main');
  return `${host}${path}${path.endsWith('/') ? '' : '/'}${file}`;
}

export interface BrowserEnvOptions {
  /** Where the app serves bundled models, e.g. '/models/'. */
  readonly modelBaseUrl?: string;
  /** Where the app serves onnxruntime-web's WASM files, e.g. '/ort/'. */
  readonly wasmBaseUrl?: string;
  /** WASM threads; only honoured when the page is cross-origin isolated. */
  readonly numThreads?: number;
}

/** Configures transformers.js for the model worker and returns the browser platform. */
export function configureBrowserEnv(options: BrowserEnvOptions = {}): ModelPlatform {
  const modelBaseUrl = withSlash(options.modelBaseUrl ?? '/models/');
  const wasmBaseUrl = withSlash(options.wasmBaseUrl ?? '/ort/');
  env.allowRemoteModels = false;
  // Local models stay on even for downloaded ones: transformers.js refuses to look in its cache
  // when both local and remote models are off. A downloaded model is found in the cache first;
  // only a missing file falls through to the origin's folder, where the guard below answers 404.
  env.allowLocalModels = true;
  env.localModelPath = modelBaseUrl;
  env.useBrowserCache = typeof caches !== 'undefined';
  env.fetch = originFolderGuard(env.fetch as typeof fetch, modelBaseUrl, bundledIds());
  const wasm = env.backends.onnx.wasm;
  if (wasm) {
    // The asyncify build is the one transformers.js 4.3.1 selects for both WASM and WebGPU.
    wasm.wasmPaths = {
      mjs: `${wasmBaseUrl}ort-wasm-simd-threaded.asyncify.mjs`,
      wasm: `${wasmBaseUrl}ort-wasm-simd-threaded.asyncify.wasm`,
    };
    // Without cross-origin isolation ORT silently runs one thread (docs/architecture.md, Measured facts); say so explicitly.
    const isolated = typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated;
    const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
    wasm.numThreads = isolated ? Math.max(1, options.numThreads ?? Math.min(4, cores)) : 1;
  }
  return browserPlatform(modelBaseUrl);
}

function bundledIds(): ReadonlySet<string> {
  return new Set(MODEL_CATALOG.filter((m) => m.bundled).map((m) => m.id));
}

/**
 * Answers 404, without a request, for any file under the app's model folder that does not belong to
 * a bundled model: a downloaded model is never on the origin, and a static host (or a dev server's
 * SPA fallback) may answer such a path with index.html, which transformers.js would try to parse.
 */
export function originFolderGuard(fetchFn: typeof fetch, modelBaseUrl: string, bundled: ReadonlySet<string>): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const path = pathOf(url);
    if (path.startsWith(modelBaseUrl)) {
      const rest = path.slice(modelBaseUrl.length);
      if (![...bundled].some((id) => rest.startsWith(`${id}/`)))
        return Promise.resolve(new Response('not a bundled model', { status: 404 }));
    }
    return fetchFn(input, init);
  }) as typeof fetch;
}

function pathOf(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const u = new URL(url);
    return typeof location !== 'undefined' && u.origin === location.origin ? u.pathname : url;
  } catch {
    // not an absolute URL: keep it as given
    return url;
  }
}

/**
 * Points downloads at a mirror of the Hugging Face Hub (same `<repo>/resolve/main/<file>` layout).
 * The tests' local model hub uses it; returns the host now in effect.
 */
export function setModelHub(url: string | null): string {
  if (url === null) {
    env.remoteHost = DEFAULT_HUB;
    return env.remoteHost;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`"${url}" is not a URL.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new TypeError(`"${url}" is not an http(s) URL.`);
  env.remoteHost = withSlash(parsed.href);
  return env.remoteHost;
}

const DEFAULT_HUB = env.remoteHost;

function browserPlatform(modelBaseUrl: string): ModelPlatform {
  const hasGpu = typeof navigator !== 'undefined' && 'gpu' in navigator;
  return {
    name: 'browser',
    setModelHub,
    devices: (entry) => (hasGpu && entry.devices.includes('gpu') ? ['webgpu', 'wasm'] : ['wasm']),
    unusable: async (device) => {
      if (device !== 'webgpu') return null;
      const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
      if (!gpu) return 'this browser has no WebGPU';
      try {
        return (await gpu.requestAdapter()) ? null : 'no WebGPU adapter is available on this device';
      } catch (err) {
        return `requesting a WebGPU adapter failed: ${err instanceof Error ? err.message : String(err)}`;
      }
    },
    // Plain fetches from the app's origin (the service worker's precache when offline), like the
    // ONNX files of a bundled model, which also bypass the Cache API.
    staticFiles: (entry) => async (file) => {
      const res = await fetch(`${modelBaseUrl}${entry.id}/static/${file}`);
      if (!res.ok) throw new Error(`${file}: HTTP ${res.status}`);
      return res.arrayBuffer();
    },
    async forget(entry) {
      if (entry.bundled || typeof caches === 'undefined') return 0;
      return dropCachedFiles(entry.id, modelFiles(entry));
    },
    async damaged(entry) {
      if (entry.bundled || typeof caches === 'undefined') return null;
      const file = modelFiles(entry).find((f) => f.endsWith('.onnx'));
      const hit = file ? await (await caches.open(env.cacheKey)).match(remoteUrl(entry.id, file)) : undefined;
      if (!file || !hit?.body) return null;
      const problem = await checkOnnxStream(hit.body);
      return problem ? `${file} is not an ONNX model: ${problem}` : null;
    },
    async availability(entry) {
      const files = modelFiles(entry);
      if (entry.bundled) {
        const local = await Promise.all(files.map((f) => existsOnOrigin(`${modelBaseUrl}${entry.id}/${f}`)));
        return { local: local.every(Boolean), cached: false };
      }
      if (typeof caches === 'undefined') return { local: false, cached: false };
      const cache = await caches.open(env.cacheKey);
      const hits = await Promise.all(files.map((f) => cache.match(remoteUrl(entry.id, f))));
      const found = hits.filter((h) => h !== undefined).length;
      return { local: false, cached: found === files.length, partial: found > 0 && found < files.length };
    },
  };
}

/**
 * Deletes `files` of `modelId` from the transformers.js browser cache; returns the bytes removed,
 * from each cached response's Content-Length (reading the bodies would mean reading hundreds of
 * MB); a file without one counts 0.
 */
export async function dropCachedFiles(modelId: string, files: readonly string[]): Promise<number> {
  const cache = await caches.open(env.cacheKey);
  const sizes = await Promise.all(
    files.map(async (f) => {
      const url = remoteUrl(modelId, f);
      const hit = await cache.match(url);
      if (!hit) return 0;
      await cache.delete(url);
      return Number(hit.headers.get('content-length')) || 0;
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

async function existsOnOrigin(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'HEAD' });
    // A dev server's SPA fallback answers 200 text/html for missing files.
    return res.ok && !(res.headers.get('content-type') ?? '').includes('text/html');
  } catch {
    // offline or blocked: the file is not there for us
    return false;
  }
}

function withSlash(s: string): string {
  return s.endsWith('/') ? s : `${s}/`;
}
