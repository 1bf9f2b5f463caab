/**
 * Instantiates the vector index's WASM SIMD kernel (int8Dot.wat, assembled at install time) and
 * hands core an index factory. Platform code: the browser worker passes fetched bytes, Node reads
 * the file (src/wasm/nodeVectorKernel.ts). Where WASM SIMD is unavailable (or the bytes fail to
 * load), the portable JS float32 index is used instead, and `fallbackReason` says why.
 */
import { jsVectorIndex, type VectorIndexFactory } from '../core/capture/vectorIndex';
import { int8VectorIndex, type Int8DotKernel } from '../core/capture/vectorIndexInt8';

export interface VectorIndexChoice {
  readonly factory: VectorIndexFactory;
  /** "wasm-simd-int8" or "js-float32". */
  readonly kind: string;
  /** Why the WASM index is not used (null when it is). */
  readonly fallbackReason: string | null;
}

/** Compiles the kernel once; each index gets its own instance (its own linear memory). */
export async function chooseVectorIndex(loadBytes: () => Promise<ArrayBuffer | Uint8Array<ArrayBuffer>>): Promise<VectorIndexChoice> {
  const fallback = (reason: string): VectorIndexChoice => ({ factory: jsVectorIndex, kind: 'js-float32', fallbackReason: reason });
  if (typeof WebAssembly === 'undefined') return fallback('WebAssembly is not available');
  let bytes: ArrayBuffer | Uint8Array<ArrayBuffer>;
  try {
    bytes = await loadBytes();
  } catch (err) {
    return fallback(`the vector kernel could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
  }
  // validate() is false on engines without the SIMD proposal: the module uses v128 throughout.
  if (!WebAssembly.validate(bytes)) return fallback('this engine does not support WebAssembly SIMD');
  const module = await WebAssembly.compile(bytes);
  const kernel = (): Int8DotKernel => new WebAssembly.Instance(module, {}).exports as unknown as Int8DotKernel;
  return { factory: int8VectorIndex(kernel), kind: 'wasm-simd-int8', fallbackReason: null };
}

/** The browser's vector index: the kernel fetched from the app's own origin (a Vite `?url` asset). */
export async function fetchedVectorIndex(url: string): Promise<VectorIndexFactory> {
  const choice = await chooseVectorIndex(async () => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
    return response.arrayBuffer();
  });
  // Not an error for the person using the app (search still works, more slowly): say it for developers.
  if (choice.fallbackReason) console.warn(`Recollect: using the JS vector index because ${choice.fallbackReason}.`);
  return choice.factory;
}
