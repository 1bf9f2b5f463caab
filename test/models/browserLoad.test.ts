/**
 * The browser branch of model loading, run in Node: the model worker's real configuration
 * (configureBrowserEnv: local models on, remote models off, the /models/ guard), a Cache API
 * (in memory, as the browser's) and the fetch path instead of the file system, against a local
 * model hub serving random-weight models of the catalog's architectures. Only the device differs
 * (onnxruntime-node's CPU instead of WASM).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from '@huggingface/transformers';
import { RecollectError } from '../../src/core/base/errors';
import { findModel } from '../../src/models/catalog';
import { loadFlags, ModelService } from '../../src/models/ModelService';
import { configureBrowserEnv, remoteUrl, type ModelPlatform } from '../../src/models/transformersEnv';
import { buildTestHub, startModelHub, type ModelHub } from '../support/modelHub';

/** An in-memory CacheStorage with the part of the Cache API transformers.js and the app use. */
function memoryCaches() {
  const stores = new Map<string, Map<string, { body: ArrayBuffer; headers: [string, string][] }>>();
  const open = async (name: string) => {
    let store = stores.get(name);
    if (!store) stores.set(name, (store = new Map()));
    const s = store;
    return {
      async match(key: string) {
        const hit = s.get(String(key));
        return hit ? new Response(hit.body.slice(0), { status: 200, headers: hit.headers }) : undefined;
      },
      async put(key: string, response: Response) {
        s.set(String(key), { body: await response.arrayBuffer(), headers: [...response.headers] });
      },
      async delete(key: string) {
        return s.delete(String(key));
      },
      keys: async () => [...s.keys()],
    };
  };
  return { open, stores };
}

const MINILM = 'Xenova/all-MiniLM-L6-v2';
const BGE = 'Xenova/bge-small-en-v1.5';
const E5 = 'Xenova/multilingual-e5-small';
const MSMARCO = 'Xenova/ms-marco-MiniLM-L-6-v2';
const MXBAI = 'mixedbread-ai/mxbai-rerank-xsmall-v1';

let hub: ModelHub;
let platform: ModelPlatform;
let caches: ReturnType<typeof memoryCaches>;
const network: string[] = [];

beforeAll(async () => {
  await buildTestHub();
  hub = await startModelHub();
  caches = memoryCaches();
  (globalThis as { caches?: unknown }).caches = caches;
  const browser = configureBrowserEnv({ modelBaseUrl: '/models/', wasmBaseUrl: '/ort/' });
  // A browser fetches every file; Node would read paths from disk instead.
  env.useFS = false;
  env.useFSCache = false;
  const guarded = env.fetch;
  env.fetch = (async (input: string | URL, init?: RequestInit) => {
    network.push(String(input));
    return guarded(input, init);
  }) as typeof env.fetch;
  browser.setModelHub!(hub.url);
  // Same platform, but onnxruntime-node runs on the CPU (Node has no WASM/WebGPU backend here).
  platform = { ...browser, devices: () => ['cpu'], unusable: async () => null };
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe('browser load options', () => {
  it('keeps local models on and remote models off for a downloaded model (both off makes transformers.js refuse)', () => {
    expect(loadFlags({ name: 'browser' }, findModel(MINILM, 'embedder')!)).toEqual({ allowLocalModels: true, allowRemoteModels: false });
    expect(loadFlags({ name: 'browser' }, { bundled: true })).toEqual({ useBrowserCache: false, allowRemoteModels: false });
    expect(loadFlags({ name: 'node' }, { bundled: false })).toEqual({});
    expect(env.allowRemoteModels).toBe(false);
    expect(env.allowLocalModels).toBe(true);
  });

  it('answers 404 for a non-bundled model under /models/ without a request', async () => {
    const before = hub.requests.length;
    const res = await env.fetch('/models/Xenova/all-MiniLM-L6-v2/config.json');
    expect(res.status).toBe(404);
    expect(hub.requests.length).toBe(before);
  });
});

describe('download, then load from the browser cache with the network gone', () => {
  it('an embedder: progress, cached files, Use, 384-d vectors, no request while loading', async () => {
    const service = new ModelService({ platform });
    expect((await service.listModels()).find((m) => m.id === MINILM)).toMatchObject({ available: false });
    const progress: { loaded: number; total: number; done: boolean }[] = [];
    await service.downloadModel(MINILM, (p) => void progress.push(p));
    await new Promise((r) => setTimeout(r, 0));
    expect(progress.at(-1)).toMatchObject({ done: true });
    expect(progress.at(-1)!.loaded).toBeGreaterThan(1_000_000);
    expect(env.allowRemoteModels).toBe(false); // only during the download
    const cache = await caches.open(env.cacheKey);
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']) {
      expect(await cache.match(remoteUrl(MINILM, f))).toBeDefined();
    }
    expect((await service.listModels()).find((m) => m.id === MINILM)).toMatchObject({ available: true, cached: true });

    const requests = network.length;
    const fresh = new ModelService({ platform }); // a reload: a new worker, same cache
    await fresh.loadEmbedder(MINILM);
    const [a, b, same] = await fresh.embed([
      'I adopted a puppy from the shelter.',
      'The quarterly report shows revenue fell.',
      'I adopted a puppy from the shelter.',
    ]);
    expect(a).toHaveLength(384);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 4);
    expect(same).toEqual(a);
    expect(b).not.toEqual(a);
    expect(fresh.status().embedder).toMatchObject({ modelId: MINILM, vectorId: 'Xenova/all-MiniLM-L6-v2@q8', dim: 384, state: 'ready' });
    // Nothing went to the hub (or anywhere) while loading from the cache.
    expect(network.slice(requests)).toEqual([]);
  }, 60_000);

  it('a BERT cross-encoder and a DeBERTa-v2 cross-encoder rerank after download', async () => {
    const service = new ModelService({ platform });
    for (const id of [MSMARCO, MXBAI]) {
      await service.downloadModel(id);
      await service.loadReranker(id);
      const scores = await service.rerank('where does the dog sleep', ['the dog sleeps in the kitchen', 'revenue fell sharply', '']);
      expect(scores).toHaveLength(3);
      expect(scores.every(Number.isFinite)).toBe(true);
      expect(service.status().reranker).toMatchObject({ modelId: id, state: 'ready' });
    }
  }, 60_000);

  it('the multilingual embedder tokenises Chinese, Japanese and Korean into real pieces', async () => {
    const service = new ModelService({ platform });
    await service.downloadModel(E5);
    const [zh, ja, ko, en] = await service.embedWith(
      E5,
      ['我的狗在厨房里睡觉', 'わたしのいぬはねている', '개가 부엌에서 잔다', 'my dog sleeps'],
      'document',
    );
    for (const v of [zh, ja, ko, en]) expect(v).toHaveLength(384);
    expect(zh).not.toEqual(ja);
    expect(ko).not.toEqual(en);
  }, 60_000);

  it('keeps at most one model per role loaded: the switch target is promoted, not reloaded', async () => {
    const service = new ModelService({ platform });
    await service.loadEmbedder(MINILM);
    await service.downloadModel(E5).catch(() => undefined);
    const target = await service.embedWith(E5, ['hello']);
    const requests = network.length;
    await service.loadEmbedder(E5); // the switch completed: the engine makes the target active
    expect(service.status().embedder).toMatchObject({ modelId: E5, dim: 384, state: 'ready' });
    expect(await service.embed(['hello'])).toEqual(target);
    expect(network.slice(requests)).toEqual([]);
  }, 60_000);
});

describe('download failures', () => {
  it('a file that 404s mid-download: a clear error, nothing counted as downloaded, a retry works', async () => {
    hub.fault(`${BGE}/onnx/model_quantized.onnx`, '404');
    const service = new ModelService({ platform });
    const err = await service.downloadModel(BGE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecollectError);
    expect((err as RecollectError).message).toMatch(/Downloading "BGE small en v1.5" failed/);
    expect((await service.listModels()).find((m) => m.id === BGE)).toMatchObject({ available: false });
    expect(await (await caches.open(env.cacheKey)).match(remoteUrl(BGE, 'config.json'))).toBeUndefined();
    expect(env.allowRemoteModels).toBe(false);

    hub.fault(`${BGE}/onnx/model_quantized.onnx`, null);
    await service.downloadModel(BGE);
    expect((await service.listModels()).find((m) => m.id === BGE)).toMatchObject({ available: true });
  }, 60_000);

  it('a connection cut half-way through the weights: the whole files stay, the download can be finished', async () => {
    hub.fault(`${E5}/onnx/model_quantized.onnx`, 'cut');
    const cache = await caches.open(env.cacheKey);
    await cache.delete(remoteUrl(E5, 'onnx/model_quantized.onnx'));
    const service = new ModelService({ platform });
    await expect(service.downloadModel(E5)).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      message: expect.stringMatching(/could not be reached, or the connection dropped/),
    });
    expect((await service.listModels()).find((m) => m.id === E5)).toMatchObject({ available: false, partial: true });
    hub.fault(`${E5}/onnx/model_quantized.onnx`, null);
  }, 60_000);

  it('a corrupt model file: the download fails and is not kept', async () => {
    hub.fault(`${MXBAI}/onnx/model_quantized.onnx`, 'corrupt');
    const cache = await caches.open(env.cacheKey);
    await cache.delete(remoteUrl(MXBAI, 'onnx/model_quantized.onnx'));
    const service = new ModelService({ platform });
    // Caught by the shape check before onnxruntime sees it (a parse failure there breaks later loads in a browser).
    await expect(service.downloadModel(MXBAI)).rejects.toMatchObject({
      code: 'MODEL_ERROR',
      message: expect.stringMatching(/not an ONNX model/),
    });
    expect((await service.listModels()).find((m) => m.id === MXBAI && m.kind === 'reranker')).toMatchObject({ available: false });
    hub.fault(`${MXBAI}/onnx/model_quantized.onnx`, null);
    // Healed on the hub: the retry fetches every file again and works (nothing stale is kept).
    await service.downloadModel(MXBAI);
    await service.loadReranker(MXBAI);
    expect(service.status().reranker).toMatchObject({ modelId: MXBAI, state: 'ready' });
  }, 60_000);
});

describe('a failure inside onnxruntime', () => {
  it('asks for a fresh model worker after the failed download cleaned up (the worker entry sends it after the answer); shape-check and 404 failures do not', async () => {
    const events: string[] = [];
    const service = new ModelService({ platform, onRuntimeBroken: () => events.push('restart') });
    const file = `${MSMARCO}/onnx/model_quantized.onnx`;
    const cache = await caches.open(env.cacheKey);
    await cache.delete(remoteUrl(MSMARCO, 'onnx/model_quantized.onnx'));
    hub.fault(file, 'corrupt'); // caught by the shape check: the runtime never saw it
    await expect(service.downloadModel(MSMARCO)).rejects.toMatchObject({ message: expect.stringMatching(/not an ONNX model/) });
    hub.fault(file, '404');
    await expect(service.downloadModel(MSMARCO)).rejects.toMatchObject({ message: expect.stringMatching(/HTTP 404/) });
    expect(events).toEqual([]);
    hub.fault(file, 'graph'); // passes the shape check, fails in onnxruntime
    try {
      await service.downloadModel(MSMARCO).catch((err: unknown) => events.push(`rejected: ${(err as Error).message.slice(0, 40)}`));
    } finally {
      hub.fault(file, null); // the next tests download this model
    }
    expect(events).toEqual(['restart', expect.stringMatching(/^rejected: Downloading "ms-marco MiniLM-L-6/)]);
  }, 60_000);
});

describe('cancel, resume, a hub that cannot be reached', () => {
  async function forgetAll(id: string) {
    const cache = await caches.open(env.cacheKey);
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'])
      await cache.delete(remoteUrl(id, f));
  }
  async function until(check: () => boolean) {
    for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(check()).toBe(true);
  }

  it('cancel half-way: not downloaded, partly cached; downloading again fetches only the rest and works', async () => {
    await forgetAll(MSMARCO);
    const service = new ModelService({ platform });
    const before = hub.requests.length;
    const release = hub.holdOnnx();
    const running = service.downloadModel(MSMARCO).catch((e: unknown) => e);
    try {
      await until(() => hub.requests.slice(before).some((r) => r.startsWith(MSMARCO) && r.endsWith('.onnx')));
      service.cancelDownload();
      expect(await running).toMatchObject({
        code: 'MODEL_UNAVAILABLE',
        message: expect.stringMatching(/^Downloading "ms-marco MiniLM-L-6 cross-encoder" was cancelled/),
      });
    } finally {
      release();
    }
    expect(env.allowRemoteModels).toBe(false);
    expect((await service.listModels()).find((m) => m.id === MSMARCO)).toMatchObject({ available: false, cached: false, partial: true });
    await expect(service.loadReranker(MSMARCO)).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' }); // nothing half-stored is used

    const resumed = hub.requests.length;
    await service.downloadModel(MSMARCO);
    expect(hub.requests.slice(resumed).filter((r) => !r.endsWith('.onnx'))).toEqual([]); // only the file that had not arrived
    expect((await service.listModels()).find((m) => m.id === MSMARCO)).toMatchObject({ available: true, partial: false });
    await service.loadReranker(MSMARCO);
    expect(service.status().reranker).toMatchObject({ modelId: MSMARCO, state: 'ready' });
  }, 60_000);

  it('a hub that cannot be reached (offline): a clear error, the embedder in use stays', async () => {
    const gone = await startModelHub();
    await gone.close();
    const service = new ModelService({ platform });
    await service.loadEmbedder(MINILM); // downloaded above
    platform.setModelHub!(gone.url);
    try {
      const err = await service.downloadModel(BGE).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'MODEL_UNAVAILABLE' });
      expect((err as Error).message).toMatch(
        /^Downloading "BGE small en v1.5" failed: the model hub \(127\.0\.0\.1:\d+\) could not be reached.*this device may be offline/,
      );
    } finally {
      platform.setModelHub!(hub.url);
    }
    expect(env.allowRemoteModels).toBe(false);
    expect(service.status().embedder).toMatchObject({ modelId: MINILM, state: 'ready' });
    expect(await service.embed(['still embeds'])).toHaveLength(1);
  }, 60_000);
});

describe('a damaged download', () => {
  it('a cached model file that is not a model: Use fails saying so, the files are removed, a new download loads in the same process', async () => {
    const service = new ModelService({ platform });
    await service.loadEmbedder(MINILM); // downloaded above: the model that works
    await service.downloadModel(BGE);
    const cache = await caches.open(env.cacheKey);
    const onnx = remoteUrl(BGE, 'onnx/model_quantized.onnx');
    await cache.put(onnx, new Response(new Uint8Array(4096).fill(0x5a), { headers: { 'content-length': '4096' } }));

    const err = await service.loadEmbedder(BGE).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'MODEL_ERROR',
      message: expect.stringMatching(
        /^The downloaded files of "BGE small en v1.5" are damaged \(onnx\/model_quantized\.onnx is not an ONNX model: .*\), so they were removed\. Download it again/,
      ),
    });
    expect(service.status().embedder).toMatchObject({ modelId: MINILM, state: 'ready' }); // the last working model stays
    expect((await service.listModels()).find((m) => m.id === BGE)).toMatchObject({ available: false, partial: false });
    expect(await cache.match(onnx)).toBeUndefined();

    await service.downloadModel(BGE);
    await service.loadEmbedder(BGE);
    expect(service.status().embedder).toMatchObject({ modelId: BGE, state: 'ready', dim: 384 });
    expect(await service.embed(['works again'])).toHaveLength(1);
  }, 60_000);
});
