/**
 * The model worker's service runs the bundled embedder as its runtime-free lookup in 'auto': the
 * model folder here holds ONLY the lookup files (no ONNX graph, no tokenizer.json), so any attempt
 * to start an inference session would fail. An explicitly chosen device runs the ONNX graph again,
 * with the same vectors.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_ID } from '../../src/models/catalog';
import { ModelService } from '../../src/models/ModelService';
import { configureNodeEnv, REPO_MODELS_DIR } from '../../src/models/nodeEnv';
import { fetchCalls, setUpOfflineModels } from './helpers';

let lookupOnly: string;
beforeAll(() => {
  setUpOfflineModels();
  lookupOnly = mkdtempSync(join(tmpdir(), 'recollect-lookup-only-'));
  cpSync(join(REPO_MODELS_DIR, BUNDLED_MODEL_ID, 'static'), join(lookupOnly, BUNDLED_MODEL_ID, 'static'), { recursive: true });
}, 60_000);

afterAll(() => {
  rmSync(lookupOnly, { recursive: true, force: true });
  configureNodeEnv(); // the other model tests' folder
  expect(fetchCalls).toEqual([]);
});

describe('ModelService with the bundled model as a lookup', () => {
  it('embeds in auto without the ONNX files and reports the CPU as its device', async () => {
    const service = new ModelService({ platform: configureNodeEnv({ localModelPath: lookupOnly }) });
    const [dog, unknown] = await service.embed(['my new dog', 'qwxzzy'], 'query');
    expect(dog).toHaveLength(100);
    expect(Math.hypot(...dog!)).toBeCloseTo(1, 5);
    expect(unknown!.every((x) => x === 0)).toBe(true);
    expect(service.status().embedder).toMatchObject({
      modelId: BUNDLED_MODEL_ID,
      vectorId: `${BUNDLED_MODEL_ID}@1`,
      dim: 100,
      device: 'cpu',
      state: 'ready',
    });
    // embedWith (the engine's path) uses the same loaded lookup.
    expect(Array.from((await service.embedWith(BUNDLED_MODEL_ID, ['my new dog'], 'query'))[0]!)).toEqual(Array.from(dog!));
  });

  it('runs the ONNX graph on an explicitly chosen device (here missing: the lookup stays in use)', async () => {
    const service = new ModelService({ platform: configureNodeEnv({ localModelPath: lookupOnly }) });
    const texts = ['The flight to Lisbon leaves at noon.', 'my sister is a nurse'];
    const lookup = await service.embed(texts);
    // An explicit device asks for the graph, which this folder does not have.
    await expect(service.setDevicePreference('wasm')).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    expect(service.status().embedder).toMatchObject({ device: 'cpu', error: { code: 'MODEL_UNAVAILABLE' } });
    expect(Array.from((await service.embed(texts))[1]!)).toEqual(Array.from(lookup[1]!));
    // Back to auto: the lookup again, loaded afresh.
    await service.setDevicePreference('auto');
    expect(service.status().embedder).toMatchObject({ device: 'cpu', state: 'ready', error: null });
    expect(Array.from((await service.embed(texts))[0]!)).toEqual(Array.from(lookup[0]!));
  });
});
