import { describe, expect, it } from 'vitest';
import { RecollectError } from '../../src/core/base/errors';
import { BUNDLED_MODEL_ID, MODEL_CATALOG } from '../../src/models/catalog';
import { loadWithFallback } from '../../src/models/loadOptions';
import { ModelService } from '../../src/models/ModelService';
import type { Device, ModelPlatform } from '../../src/models/transformersEnv';

const entry = MODEL_CATALOG.find((m) => m.id === BUNDLED_MODEL_ID && m.kind === 'embedder')!;

function platform(unusable: (d: Device) => string | null): ModelPlatform {
  return {
    name: 'browser',
    devices: () => ['wasm'],
    availability: async () => ({ local: true, cached: false }),
    unusable: async (d) => unusable(d),
  };
}

describe('device fallback', () => {
  it('skips WebGPU without an adapter, runs WASM and says why', async () => {
    const tried: (Device | undefined)[] = [];
    const r = await loadWithFallback(
      entry,
      { device: 'webgpu', platform: platform((d) => (d === 'webgpu' ? 'no WebGPU adapter is available on this device' : null)) },
      async (d) => {
        tried.push(d);
        return 'model';
      },
    );
    expect(tried).toEqual(['wasm']);
    expect(r.device).toBe('wasm');
    expect(r.fallback).toBe('WebGPU could not be used (no WebGPU adapter is available on this device), so WASM runs instead.');
  });

  it('falls back when WebGPU fails to load, but not for a missing model file', async () => {
    const r = await loadWithFallback(entry, { device: 'webgpu', platform: platform(() => null) }, async (d) => {
      if (d === 'webgpu') throw new Error('Failed to create the device: lost');
      return d;
    });
    expect(r).toMatchObject({ value: 'wasm', device: 'wasm' });
    expect(r.fallback).toContain('Failed to create the device: lost');

    const tried: (Device | undefined)[] = [];
    const missing = loadWithFallback(entry, { device: 'webgpu', platform: platform(() => null) }, async (d) => {
      tried.push(d);
      throw new Error('file was not found locally at /models/x/onnx/model_quantized.onnx');
    });
    await expect(missing).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    expect(tried).toEqual(['webgpu']);
  });

  it('WebGPU that loads reports no fallback', async () => {
    const r = await loadWithFallback(entry, { device: 'webgpu', platform: platform(() => null) }, async (d) => d);
    expect(r).toEqual({ value: 'webgpu', device: 'webgpu', fallback: null });
  });

  it('rejects an unknown device preference with a typed error', async () => {
    const service = new ModelService({ platform: platform(() => null) });
    await expect(service.setDevicePreference('tpu' as never)).rejects.toBeInstanceOf(RecollectError);
    await expect(service.setDevicePreference('tpu' as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(service.status().devicePreference).toBe('auto');
  });
});
