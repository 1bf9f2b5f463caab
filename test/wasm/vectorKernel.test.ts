import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { chooseVectorIndex } from '../../src/wasm/vectorKernel';
import { KERNEL_PATH } from '../../src/wasm/nodeVectorKernel';

describe('choosing the vector index', () => {
  it('uses the WASM SIMD kernel when it validates, one linear memory per index', async () => {
    const choice = await chooseVectorIndex(() => readFile(KERNEL_PATH));
    expect(choice).toMatchObject({ kind: 'wasm-simd-int8', fallbackReason: null });
    const a = choice.factory.create(4, 8);
    const b = choice.factory.create(4, 8);
    a.add('x', [1, 0, 0, 0]);
    b.add('y', [0, 1, 0, 0]);
    expect(a.search([1, 0, 0, 0], 5).map((h) => h.id)).toEqual(['x']);
    expect(b.search([1, 0, 0, 0], 5).map((h) => h.id)).toEqual(['y']);
  });

  it('falls back to the JS index when the engine rejects the module (no SIMD) or it cannot be loaded', async () => {
    // Bytes an engine without WASM SIMD would reject look, to validate(), like any invalid module.
    const rejected = await chooseVectorIndex(async () => new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99]));
    expect(rejected).toMatchObject({ kind: 'js-float32', fallbackReason: 'this engine does not support WebAssembly SIMD' });
    expect(rejected.factory.kind).toBe('js-float32');
    const missing = await chooseVectorIndex(async () => {
      throw new Error('HTTP 404 for /assets/int8Dot.wasm');
    });
    expect(missing.kind).toBe('js-float32');
    expect(missing.fallbackReason).toContain('HTTP 404');
  });
});
