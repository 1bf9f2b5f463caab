/**
 * Maps transformers.js / onnxruntime failures onto RecollectError codes: a missing file (remote
 * downloads are off) is MODEL_UNAVAILABLE with a message saying what to do; anything else while
 * loading or running is MODEL_ERROR.
 */
import { ModelFileNotFoundError } from '@huggingface/transformers';
import { RecollectError } from '../core/base/errors';
import type { CatalogEntry } from './catalog';

export function isMissingModelFile(err: unknown): boolean {
  if (err instanceof ModelFileNotFoundError) return true;
  const msg = err instanceof Error ? err.message : String(err);
  return /not found locally|allowRemoteModels=false|local_files_only|Local file missing/i.test(msg);
}

export function unavailable(id: string, entry: CatalogEntry | undefined, detail?: string): RecollectError {
  const message = entry?.bundled
    ? `The bundled model "${id}" is missing. Run \`node scripts/build-offline-model.mjs\` (npm install does this) and reload.`
    : `The model "${id}" is not on this device. Download it from Settings → Models (about ${Math.round((entry?.approxBytes ?? 0) / 1e6)} MB), or pick the bundled offline model.`;
  return new RecollectError('MODEL_UNAVAILABLE', message, detail);
}

export function toModelError(err: unknown, id: string, entry: CatalogEntry | undefined, action: string): RecollectError {
  if (err instanceof RecollectError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  if (isMissingModelFile(err)) return unavailable(id, entry, detail);
  return new RecollectError('MODEL_ERROR', `Could not ${action} with the model "${id}": ${detail}`, detail);
}

/** transformers.js throws this when the requested device has no backend (e.g. WebGPU without a GPU). */
export function isBackendUnavailable(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return /no available backend|backend not found|webgpu/i.test(msg) && !isMissingModelFile(err);
}

/**
 * The files are there but are not a model: onnxruntime cannot parse the graph, or a JSON file does
 * not parse (a damaged cache entry, a disk error). Unlike a missing backend or memory, trying again
 * with the same files cannot help; downloading them again can.
 */
export function isDamagedModelFile(err: unknown): boolean {
  const e = err as { detail?: unknown; message?: unknown } | null;
  const text = `${typeof e?.detail === 'string' ? e.detail : ''} ${typeof e?.message === 'string' ? e.message : String(err)}`;
  return /protobuf parsing failed|is not valid JSON|Unexpected token|Unexpected end of JSON|JSON\.parse/i.test(text);
}
