/**
 * DeviceLlmService: what this device can run (WebGPU limits, f16, WASM only for the tiny model),
 * loading from the cache only, the WASM retry when WebGPU fails, and a load failure that leaves
 * a reason every generation then reports (answers fall back to "no answers", saying why).
 * Models: the random-weight stand-ins (scripts/build-test-llm.mjs) on onnxruntime-node's CPU.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from '@huggingface/transformers';
import { DEVICE_LLM_CATALOG, chooseRuntime, deviceLlmFiles, findDeviceLlm, type GpuCapabilities } from '../../src/models/deviceLlmCatalog';
import { DeviceLlmService, type DeviceLlmPlatform } from '../../src/models/DeviceLlmService';
import { TransformersTextGenerator } from '../../src/models/TransformersTextGenerator';
import { buildTestLlms } from '../support/modelHub';

const SMOL = 'HuggingFaceTB/SmolLM2-135M-Instruct';
const QWEN = 'onnx-community/Qwen2.5-0.5B-Instruct';
const bigGpu: GpuCapabilities = { maxBufferSize: 4 * 2 ** 30, maxStorageBufferBindingSize: 2 * 2 ** 30, f16: true };

let dir: string;
const saved = { remote: env.allowRemoteModels, local: env.allowLocalModels, path: env.localModelPath };
beforeAll(async () => {
  dir = await buildTestLlms('local');
  env.localModelPath = `${dir}/`;
}, 120_000);
afterAll(() => {
  Object.assign(env, { allowRemoteModels: saved.remote, allowLocalModels: saved.local, localModelPath: saved.path });
});

function platform(over: Partial<DeviceLlmPlatform> & { gpuCaps?: GpuCapabilities | null } = {}): DeviceLlmPlatform & { loads: string[] } {
  const loads: string[] = [];
  return {
    loads,
    gpu: async () => (over.gpuCaps === undefined ? null : over.gpuCaps),
    cached: async (id, files) => files.every((f) => existsSync(join(dir, id, f))),
    load: async (id, options) => {
      loads.push(`${id}:${options.device}:${options.dtype}`);
      if (over.load) return over.load(id, options);
      return TransformersTextGenerator.load(id, { dtype: options.dtype, device: 'cpu' });
    },
    ...(over.cached ? { cached: over.cached } : {}),
  };
}

describe('chooseRuntime (honest capability checks)', () => {
  const smol = findDeviceLlm(SMOL)!;
  const qwen = findDeviceLlm(QWEN)!;
  it('uses WebGPU with q4f16 when the adapter has shader-f16 and room for the largest buffer', () => {
    expect(chooseRuntime(qwen, bigGpu)).toEqual({ ok: true, device: 'webgpu', dtype: 'q4f16', notice: null });
  });
  it('falls back to the q4 file without shader-f16, and says so', () => {
    const r = chooseRuntime(qwen, { ...bigGpu, f16: false });
    expect(r).toMatchObject({ ok: true, device: 'webgpu', dtype: 'q4' });
    expect(r.ok && r.notice).toMatch(/shader-f16/);
  });
  it('refuses a model whose embeddings exceed the adapter buffer limits; the tiny one goes to WASM', () => {
    const small: GpuCapabilities = { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 128 * 2 ** 20, f16: true };
    const r = chooseRuntime(qwen, small);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/needs WebGPU.*allows buffers of 134 MB, the model needs 272 MB/);
    const tiny = chooseRuntime(smol, { ...small, maxStorageBufferBindingSize: 32 * 2 ** 20 });
    expect(tiny).toMatchObject({ ok: true, device: 'wasm', dtype: 'q4' });
  });
  it('without WebGPU only the tiny model is offered', () => {
    expect(DEVICE_LLM_CATALOG.map((e) => chooseRuntime(e, null).ok)).toEqual([true, false, false]);
  });
});

describe('DeviceLlmService', () => {
  it('lists the catalog with sizes for the file this device would load, what is cached, and why a model cannot run', async () => {
    const service = new DeviceLlmService(platform({ gpuCaps: null }));
    const list = await service.listModels();
    const smol = list.find((m) => m.id === SMOL)!;
    expect(smol).toMatchObject({ cached: true, unusable: null, licence: 'Apache-2.0', languages: 'English' });
    expect(smol.approxBytes).toBe(findDeviceLlm(SMOL)!.bytes.q4);
    expect(list.find((m) => m.id === QWEN)!.unusable).toMatch(/needs WebGPU/);
  });

  it('loads a cached model on the best device and generates; status says where it runs', async () => {
    const p = platform({ gpuCaps: null });
    const service = new DeviceLlmService(p);
    const status = await service.load(SMOL);
    expect(status).toMatchObject({ modelId: SMOL, state: 'ready', device: 'wasm', error: null });
    expect(p.loads).toEqual([`${SMOL}:wasm:q4`]);
    const pieces: string[] = [];
    const out = await service.generate(
      { requestId: 'a', messages: [{ role: 'user', content: 'Hi' }], maxNewTokens: 5 },
      (t) => void pieces.push(t),
    );
    expect(out).toMatchObject({ completionTokens: 5, finishReason: 'length', tokensEstimated: false });
    expect(out.text).toBe(pieces.join(''));
  });

  it('retries the tiny model on WASM when WebGPU fails at load time, with a notice', async () => {
    const p = platform({
      gpuCaps: bigGpu,
      load: async (id, o) => {
        if (o.device === 'webgpu') throw new Error('GPU device lost');
        return TransformersTextGenerator.load(id, { dtype: o.dtype, device: 'cpu' });
      },
    });
    const service = new DeviceLlmService(p);
    const status = await service.load(SMOL);
    expect(p.loads).toEqual([`${SMOL}:webgpu:q4f16`, `${SMOL}:wasm:q4`]);
    expect(status).toMatchObject({ state: 'ready', device: 'wasm' });
    expect(status.notice).toMatch(/WebGPU failed \(GPU device lost\)/);
  });

  it('a model that fails to load says why, and generation then fails with that reason instead of hanging', async () => {
    const p = platform({
      gpuCaps: bigGpu,
      load: async () => {
        throw new Error('not enough GPU memory');
      },
    });
    const service = new DeviceLlmService(p);
    const status = await service.load(QWEN);
    expect(status.state).toBe('error');
    expect(status.error?.message).toMatch(/Qwen2.5 0.5B Instruct failed to load on this device: not enough GPU memory/);
    await expect(service.generate({ requestId: 'b', messages: [{ role: 'user', content: 'Hi' }], maxNewTokens: 5 })).rejects.toMatchObject({
      code: 'LLM_NOT_CONFIGURED',
      message: expect.stringContaining('not enough GPU memory'),
    });
  });

  it('never loads a model that is not downloaded (no network outside the download action)', async () => {
    const p = platform({ gpuCaps: null, cached: async () => false });
    const service = new DeviceLlmService(p);
    const status = await service.load(SMOL);
    expect(status.state).toBe('error');
    expect(status.error?.message).toMatch(/not downloaded/);
    expect(p.loads).toEqual([]);
  });
});

describe('DeviceLlmService.deleteDownload', () => {
  /** A copy of the downloaded model, with a forget that removes files from it (the browser's does the same in the Cache API). */
  function copyOf(id: string) {
    const root = mkdtempSync(join(tmpdir(), 'recollect-llm-cache-'));
    cpSync(join(dir, id), join(root, id), { recursive: true });
    const forgot: string[] = [];
    const p = platform({
      gpuCaps: null,
      cached: async (i, files) => files.every((f) => existsSync(join(root, i, f))),
      load: async (i, o) => TransformersTextGenerator.load(i, { dtype: o.dtype, device: 'cpu' }),
    });
    p.forget = async (i, files) => {
      let freed = 0;
      for (const f of files) {
        const path = join(root, i, f);
        if (!existsSync(path)) continue;
        freed += statSync(path).size;
        rmSync(path);
        forgot.push(f);
      }
      return freed;
    };
    return { root, p, forgot };
  }

  it('removes the files of every precision, reports the bytes, and lists the model as not downloaded', async () => {
    const { root, p, forgot } = copyOf(SMOL);
    const files = [...new Set([...deviceLlmFiles('q4'), ...deviceLlmFiles('q4f16')])].filter((f) => existsSync(join(root, SMOL, f)));
    const bytes = files.reduce((sum, f) => sum + statSync(join(root, SMOL, f)).size, 0);
    const service = new DeviceLlmService(p);
    expect((await service.listModels()).find((m) => m.id === SMOL)?.cached).toBe(true);
    const result = await service.deleteDownload(SMOL);
    expect(result.freedBytes).toBe(bytes);
    expect(forgot.sort()).toEqual(files.sort());
    expect(result.models.find((m) => m.id === SMOL)?.cached).toBe(false);
    expect((await service.load(SMOL)).error?.message).toMatch(/not downloaded/);
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses a model that is answering, saying why, and keeps its files; once idle it is unloaded and deleted', async () => {
    const { root, p, forgot } = copyOf(SMOL);
    const service = new DeviceLlmService(p);
    expect((await service.load(SMOL)).state).toBe('ready');
    let refused: unknown = null;
    await service.generate({ requestId: 'r', messages: [{ role: 'user', content: 'Hi' }], maxNewTokens: 4 }, () => {
      refused ??= service.deleteDownload(SMOL).then(
        () => 'deleted',
        (e: unknown) => e,
      );
    });
    await expect(refused).resolves.toMatchObject({
      code: 'MODEL_IN_USE',
      message: expect.stringMatching(/is in use: it is answering on this device/),
    });
    expect(forgot).toEqual([]);
    expect((await service.listModels()).find((m) => m.id === SMOL)?.cached).toBe(true);
    // Idle (the person chose another way to answer): unloaded, then deleted.
    expect((await service.deleteDownload(SMOL)).freedBytes).toBeGreaterThan(0);
    expect(service.status()).toMatchObject({ modelId: null, state: 'none' });
    await expect(service.generate({ requestId: 's', messages: [{ role: 'user', content: 'Hi' }], maxNewTokens: 4 })).rejects.toMatchObject({
      code: 'LLM_NOT_CONFIGURED',
    });
    rmSync(root, { recursive: true, force: true });
  });
});
