/**
 * The browser side of DeviceLlmService: the WebGPU adapter's limits (asked before offering or
 * loading a model, since a model whose weights do not fit fails half-way through loading), and
 * the transformers.js browser cache, where downloads are kept under their Hub URLs.
 */
import { env } from '@huggingface/transformers';
import type { GpuCapabilities } from './deviceLlmCatalog';
import type { DeviceLlmPlatform } from './DeviceLlmService';
import { dropCachedFiles, remoteUrl, setModelHub } from './transformersEnv';

interface GpuAdapterLike {
  readonly limits: { readonly maxBufferSize: number; readonly maxStorageBufferBindingSize: number };
  readonly features: { has(name: string): boolean };
}

/** Reads the adapter once per call; null when WebGPU is missing or gives no adapter. */
export async function gpuCapabilities(): Promise<GpuCapabilities | null> {
  const gpu = (globalThis.navigator as unknown as { gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> } } | undefined)?.gpu;
  if (!gpu) return null;
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return null;
    return {
      maxBufferSize: adapter.limits.maxBufferSize,
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      f16: adapter.features.has('shader-f16'),
    };
  } catch {
    // requestAdapter can throw (blocked by policy, a lost device): no WebGPU then
    return null;
  }
}

export function browserDeviceLlmPlatform(): DeviceLlmPlatform {
  return {
    gpu: gpuCapabilities,
    setModelHub,
    async cached(id, files) {
      if (typeof caches === 'undefined') return false;
      const cache = await caches.open(env.cacheKey);
      const hits = await Promise.all(files.map((f) => cache.match(remoteUrl(id, f))));
      return hits.every((h) => h !== undefined);
    },
    async forget(id, files) {
      if (typeof caches === 'undefined') return 0;
      return dropCachedFiles(id, files);
    },
  };
}
