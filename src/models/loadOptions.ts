/**
 * Shared loading logic for the transformers.js adapters: catalog lookup, device fallback
 * (WebGPU → WASM when the browser has no usable GPU: transformers.js 4.3.1 throws
 * "no available backend found" instead of falling back; docs/architecture.md, Measured facts) and error mapping.
 */
import type { ProgressInfo } from '@huggingface/transformers';
import { findModel, type CatalogEntry, type ModelKind } from './catalog';
import { isBackendUnavailable, isMissingModelFile, toModelError } from './modelErrors';
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
    languages: 'unknown',
    languageCodes: [],
    licence: 'unknown',
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
    const reason = device && i < devices.length - 1 ? await options.platform?.unusable?.(device) : null;
    if (reason) {
      fallback = describeFallback(device, reason, devices[i + 1]);
      continue;
    }
    try {
      return { value: await load(device), device, fallback };
    } catch (err) {
      lastError = err;
      // Said to the person in the Models panel: why the faster device is not the one running.
      fallback = describeFallback(device, err instanceof Error ? err.message : String(err), devices[i + 1]);
      // An explicit WebGPU attempt falls back on any failure to get or use a device (no adapter,
      // lost device, an unsupported op), not on a missing model file, which WASM would miss too.
      const next = device === 'webgpu' ? !isMissingModelFile(err) : isBackendUnavailable(err);
      if (i < devices.length - 1 && next) continue;
      break;
    }
  }
  throw toModelError(lastError, entry.id, entry, 'load');
}

function describeFallback(device: Device | undefined, reason: string, next: Device | undefined): string {
  const name = (d: Device | undefined) => (d === 'webgpu' ? 'WebGPU' : d === 'wasm' ? 'WASM' : (d ?? 'the default device'));
  return `${name(device)} could not be used (${reason}), so ${name(next)} runs instead.`;
}

export function clipText(text: string, maxTokens: number): string {
  const limit = maxTokens * CHARS_PER_TOKEN_BOUND;
  return text.length > limit ? text.slice(0, limit) : text;
}
