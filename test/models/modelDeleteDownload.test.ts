/**
 * "Delete download" in the model worker: a downloaded model's files leave the cache (the Node FS
 * cache here, laid out as transformers.js stores downloads), the space freed is the files' sizes,
 * and the model lists as a download again. Models in use and bundled ones are refused with a
 * reason and lose nothing. Files: the random-weight test models (scripts/build-test-models.mjs).
 */
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from '@huggingface/transformers';
import { RecollectError } from '../../src/core/base/errors';
import { BUNDLED_MODEL_ID, MODEL_CATALOG, modelFiles } from '../../src/models/catalog';
import { ModelService } from '../../src/models/ModelService';
import type { ModelPlatform } from '../../src/models/transformersEnv';
import { TEST_HUB_DIR, buildTestHub } from '../support/modelHub';
import { setUpOfflineModels } from './helpers';

const MINILM = 'Xenova/all-MiniLM-L6-v2';
const MSMARCO = 'Xenova/ms-marco-MiniLM-L-6-v2';

let platform: ModelPlatform;
let cacheDir: string;
const savedCacheDir = env.cacheDir;

beforeAll(async () => {
  platform = setUpOfflineModels();
  await buildTestHub();
  cacheDir = mkdtempSync(join(tmpdir(), 'recollect-cache-'));
  env.cacheDir = cacheDir;
}, 120_000);
afterAll(() => {
  env.cacheDir = savedCacheDir;
  rmSync(cacheDir, { recursive: true, force: true });
});

/** Puts a model's files where a finished download leaves them; returns their total size. */
function downloaded(id: string): number {
  const entry = MODEL_CATALOG.find((m) => m.id === id)!;
  let bytes = 0;
  for (const f of modelFiles(entry)) {
    const to = join(cacheDir, id, f);
    cpSync(join(TEST_HUB_DIR, id, 'resolve/main', f), to, { recursive: true });
    bytes += statSync(to).size;
  }
  return bytes;
}

const cachedFiles = (id: string) => modelFiles(MODEL_CATALOG.find((m) => m.id === id)!).filter((f) => existsSync(join(cacheDir, id, f)));

async function failure(p: Promise<unknown>): Promise<RecollectError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RecollectError);
  return err as RecollectError;
}

describe('ModelService.deleteDownload', () => {
  it('removes every file of a downloaded model, reports the bytes freed, and lists it as a download again', async () => {
    const bytes = downloaded(MINILM);
    expect(bytes).toBeGreaterThan(100_000); // real weights, not an empty stand-in
    const service = new ModelService({ platform });
    expect((await service.listModels()).find((m) => m.id === MINILM)).toMatchObject({ available: true, cached: true });

    const result = await service.deleteDownload(MINILM);
    expect(result.modelId).toBe(MINILM);
    expect(result.freedBytes).toBe(bytes);
    expect(cachedFiles(MINILM)).toEqual([]);
    expect(result.models.find((m) => m.id === MINILM)).toMatchObject({ available: false, cached: false, partial: false });
    expect((await service.listModels()).find((m) => m.id === MINILM)).toMatchObject({ available: false, cached: false });
    // Loading it now fails fast as not on this device, as before the download.
    expect((await failure(service.loadEmbedder(MINILM))).code).toBe('MODEL_UNAVAILABLE');
    // Deleting again says there is nothing to delete.
    expect((await failure(service.deleteDownload(MINILM))).code).toBe('NOT_FOUND');
  });

  it('refuses the embedder and the reranker in use, saying why, and keeps their files', async () => {
    downloaded(MINILM);
    downloaded(MSMARCO);
    const service = new ModelService({ platform, embedderId: MINILM, rerankerId: MSMARCO });
    const embedder = await failure(service.deleteDownload(MINILM));
    expect(embedder.code).toBe('MODEL_IN_USE');
    expect(embedder.message).toMatch(/all-MiniLM-L6-v2 is in use: Recollect searches by meaning with it\. Choose another model first/);
    const reranker = await failure(service.deleteDownload(MSMARCO));
    expect(reranker.code).toBe('MODEL_IN_USE');
    expect(reranker.message).toMatch(/reranks with it/);
    expect(cachedFiles(MINILM)).toHaveLength(4);
    expect(cachedFiles(MSMARCO)).toHaveLength(4);

    // Once the reranker is turned off, it can go; the embedder in use still cannot.
    await service.loadReranker(null);
    expect((await service.deleteDownload(MSMARCO)).freedBytes).toBeGreaterThan(0);
    expect(cachedFiles(MSMARCO)).toEqual([]);
    expect(cachedFiles(MINILM)).toHaveLength(4);
  });

  it('refuses a bundled model and an id outside the catalog', async () => {
    const service = new ModelService({ platform });
    const bundled = await failure(service.deleteDownload(BUNDLED_MODEL_ID));
    expect(bundled.code).toBe('INVALID_INPUT');
    expect(bundled.message).toMatch(/comes with Recollect/);
    expect((await failure(service.deleteDownload('someone/else'))).code).toBe('INVALID_INPUT');
    expect((await service.listModels()).find((m) => m.id === BUNDLED_MODEL_ID)).toMatchObject({ available: true, bundled: true });
  });
});
