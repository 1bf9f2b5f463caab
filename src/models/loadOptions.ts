/**
 * Shared loading logic for the transformers.js adapters: catalog lookup, device fallback
 * (WebGPU → WASM when the browser has no usable GPU: transformers.js 4.3.1 throws
 * "no available backend found" instead of falling back — DESIGN §9) and error mapping.
 */
import type { ProgressInfo } from '@huggingface/transformers';
import { findModel, type CatalogEntry, type ModelKind } from './catalog';
import { isBackendUnavailable, toModelError } from './modelErrors';
import type { Device, ModelPlatform } from './transformersEnv';

export interface ModelLoadOptions {
  /** A fixed device, or let the platform choose (default). */
  readonly device?: Device | 'auto';
  /** Decides devices in 'auto' mode; without it: WebGPU then WASM in a browser with `navigator.gpu`, else the library default. */
  readonly platform?: ModelPlatform;
  /** Texts (or pairs) per ONNX run. */
  readonly batchSize?: number;
  readonly progress?: (info: ProgressInfo) => void;
  /** Describes a model that is not in the catalog. */
  readonly entry?: CatalogEntry;
}

export const DEFAULT_BATCH_SIZE = 32;
/** Characters kept per allowed token before tokenising: bounds tokenizer work on huge inputs. */
export const CHARS_PER_TOKEN_BOUND = 64;

export function resolveEntry(id: string, kind: ModelKind, options: ModelLoadOptions): CatalogEntry {
  const found = options.entry ?? findModel(id, kind);
  if (found) return found;
  return {
    id,
    kind,
    label: id,
    dim: null,
    approxBytes: 0,
    dtype: 'q8',
    pooling: kind === 'embedder' ? 'mean' : null,
    maxTokens: 512,
    bundled: false,
    queryPrefix: '',
    documentPrefix: '',
    vectorId: `${id}@q8`,
    devices: ['gpu', 'cpu'],
    note: 'Not in the catalog.',
  };
}

/** `undefined` means "the library's default device" (cpu in Node, wasm in a browser). */
export function candidateDevices(entry: CatalogEntry, options: ModelLoadOptions): readonly (Device | undefined)[] {
  // WebGPU asked for explicitly still falls back to WASM (with a notice) when no device can be had.
  if (options.device === 'webgpu') return ['webgpu', 'wasm'];
  if (options.device && options.device !== 'auto') return [options.device];
  if (options.platform) return options.platform.devices(entry);
  const hasGpu = typeof navigator !== 'undefined' && 'gpu' in navigator;
  return hasGpu && entry.devices.includes('gpu') ? ['webgpu', 'wasm'] : [undefined];
}

/** Tries each candidate device in turn; only a missing backend moves on to the next one. */
export async function loadWithFallback<T>(
  entry: CatalogEntry,
  options: ModelLoadOptions,
  load: (device: Device | undefined) => Promise<T>,
): Promise<{ value: T; device: Device | undefined; fallback: string | null }> {
  const devices = candidateDevices(entry, options);
  let lastError: unknown;
  let fallback: string | null = null;
  for (const [i, device] of devices.entries()) {
    try {
      return { value: await load(device), device, fallback };
    } catch (err) {
      lastError = err;
      // Said to the person in the Models panel: why the faster device is not the one running.
      fallback = `${device === 'webgpu' ? 'WebGPU' : String(device)} could not be used (${err instanceof Error ? err.message : String(err)}), so ${devices[i + 1] === 'wasm' ? 'WASM' : String(devices[i + 1] ?? 'the default')} runs instead.`;
      if (i < devices.length - 1 && isBackendUnavailable(err)) continue;
      break;
    }
  }
  throw toModelError(lastError, entry.id, entry, 'load');
}

export function clipText(text: string, maxTokens: number): string {
  const limit = maxTokens * CHARS_PER_TOKEN_BOUND;
  return text.length > limit ? text.slice(0, limit) : text;
}
