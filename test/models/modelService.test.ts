import { beforeAll, describe, expect, it, vi } from 'vitest';
import { RecollectError } from '../../src/core/base/errors';
import { BUNDLED_MODEL_ID, MODEL_CATALOG, modelFiles } from '../../src/models/catalog';
import { ModelService } from '../../src/models/ModelService';
import { TransformersEmbedder } from '../../src/models/TransformersEmbedder';
import { TransformersReranker } from '../../src/models/TransformersReranker';
import type { ModelPlatform } from '../../src/models/transformersEnv';
import { fetchCalls, setUpOfflineModels } from './helpers';

let platform: ModelPlatform;
beforeAll(() => {
  platform = setUpOfflineModels();
}, 60_000);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RecollectError);
    return (err as RecollectError).code;
  }
  return 'no error';
}

describe('model catalog', () => {
  it('has the bundled model plus the downloadable q8 models', () => {
    const ids = MODEL_CATALOG.map((m) => `${m.kind}:${m.id}`);
    expect(ids).toEqual([
      `embedder:${BUNDLED_MODEL_ID}`,
      'embedder:Xenova/all-MiniLM-L6-v2',
      'embedder:Xenova/bge-small-en-v1.5',
      'embedder:Xenova/multilingual-e5-small',
      `reranker:${BUNDLED_MODEL_ID}`,
      'reranker:Xenova/ms-marco-MiniLM-L-6-v2',
      'reranker:mixedbread-ai/mxbai-rerank-xsmall-v1',
    ]);
    // The bundled static model has 100 dimensions; the three downloadable ones publish 384; rerankers have none.
    expect(MODEL_CATALOG.map((m) => m.dim)).toEqual([100, 384, 384, 384, null, null, null]);
    for (const m of MODEL_CATALOG) {
      expect(m.dtype).toBe('q8');
      expect(modelFiles(m)).toContain('onnx/model_quantized.onnx');
      expect(m.languages).not.toBe('');
      expect(m.licence).toMatch(/^(MIT|Apache-2\.0)$/);
    }
    // Most people do not write only in English: at least one embedder is multilingual.
    expect(MODEL_CATALOG.some((m) => m.kind === 'embedder' && !m.bundled && m.languages !== 'English')).toBe(true);
  });
});

describe('models that are not on this device', () => {
  it('TransformersEmbedder.create gives MODEL_UNAVAILABLE without touching the network', async () => {
    const before = fetchCalls.length;
    expect(await codeOf(TransformersEmbedder.create('Xenova/all-MiniLM-L6-v2'))).toBe('MODEL_UNAVAILABLE');
    expect(await codeOf(TransformersReranker.create('Xenova/ms-marco-MiniLM-L-6-v2'))).toBe('MODEL_UNAVAILABLE');
    expect(fetchCalls.length).toBe(before);
  });

  it('ModelService.loadEmbedder / loadReranker fail fast and keep the working model', async () => {
    const service = new ModelService({ platform });
    await service.embed(['warm up']);
    const err = await service.loadEmbedder('Xenova/bge-small-en-v1.5').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecollectError);
    expect((err as RecollectError).code).toBe('MODEL_UNAVAILABLE');
    expect((err as RecollectError).message).toMatch(/Download it/);
    expect(await codeOf(service.loadReranker('mixedbread-ai/mxbai-rerank-xsmall-v1'))).toBe('MODEL_UNAVAILABLE');
    // A reranker that never loaded is not the selected one (the panel never shows it "In use").
    expect(service.status().reranker).toMatchObject({ modelId: null, state: 'error', error: { code: 'MODEL_UNAVAILABLE' } });
    const status = service.status();
    expect(status.embedder).toMatchObject({ modelId: BUNDLED_MODEL_ID, state: 'ready', dim: 100 });
    expect(status.embedder.error?.code).toBe('MODEL_UNAVAILABLE');
    expect((await service.embed(['still works']))[0]).toHaveLength(100);
    expect(fetchCalls).toEqual([]);
  });
});

describe('ModelService', () => {
  it('embeds with the bundled model by default and reranks once a reranker is chosen', async () => {
    const service = new ModelService({ platform });
    expect(service.status().embedder.state).toBe('none');
    const vectors = await service.embed(['my new dog', '']);
    expect(vectors.map((v) => v.length)).toEqual([100, 100]);
    expect(await codeOf(service.rerank('q', ['d']))).toBe('MODEL_UNAVAILABLE');
    await service.loadReranker(BUNDLED_MODEL_ID);
    const scores = await service.rerank('puppy', ['dog', 'stock market']);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(service.status().reranker).toMatchObject({ modelId: BUNDLED_MODEL_ID, state: 'ready' });
    await service.loadReranker(null);
    expect(service.status().reranker.state).toBe('none');
  });

  it('loads nothing when a reranker that cannot change a ranking (trust 0) is chosen, and loads it once when it is asked', async () => {
    const create = vi.spyOn(TransformersReranker, 'create');
    try {
      const service = new ModelService({ platform });
      await service.loadReranker(BUNDLED_MODEL_ID);
      expect(service.status().reranker).toMatchObject({ modelId: BUNDLED_MODEL_ID, state: 'ready' });
      expect(create).not.toHaveBeenCalled();
      const scores = await service.rerank('puppy', ['dog', 'stock market']);
      await service.rerank('puppy', ['dog']);
      expect(scores[0]).toBeGreaterThan(scores[1]!);
      expect(create).toHaveBeenCalledTimes(1);
      await service.loadReranker(null);
    } finally {
      create.mockRestore();
    }
  });

  it('lists which models are available', async () => {
    const service = new ModelService({ platform });
    const models = await service.listModels();
    const bundled = models.filter((m) => m.bundled);
    expect(bundled).toHaveLength(2);
    expect(bundled.every((m) => m.available)).toBe(true);
    expect(models.filter((m) => !m.bundled).every((m) => !m.available)).toBe(true);
    expect(models.find((m) => m.kind === 'embedder' && m.selected)?.id).toBe(BUNDLED_MODEL_ID);
  });

  it('downloadModel of the bundled model is a no-op that reports completion', async () => {
    const service = new ModelService({ platform });
    const events: unknown[] = [];
    await service.downloadModel(BUNDLED_MODEL_ID, (p) => events.push(p));
    await new Promise((r) => setTimeout(r, 0));
    expect(events).toEqual([{ modelId: BUNDLED_MODEL_ID, file: null, loaded: 0, total: 0, done: true }]);
  });

  it('rejects ids that are not in the catalog', async () => {
    const service = new ModelService({ platform });
    expect(await codeOf(service.loadEmbedder('someone/else'))).toBe('INVALID_INPUT');
    expect(await codeOf(service.downloadModel('someone/else'))).toBe('INVALID_INPUT');
  });
});
