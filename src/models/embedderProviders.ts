/**
 * EmbedderProviders for the engine: one backed by the model worker (browser) and one that loads
 * transformers.js models in-process (Node tests and benchmarks). Vector ids come from the
 * catalog, so the engine knows which vectors a model produced before the model is loaded.
 */
import type { EmbedRole, Embedder, EmbedderProvider } from '../core/ports';
import { RecollectError } from '../core/errors';
import { BUNDLED_MODEL_ID, findModel } from './catalog';
import type { ModelPlatform } from './transformersEnv';
import { TransformersEmbedder } from './TransformersEmbedder';

function entryFor(modelId: string) {
  const entry = findModel(modelId, 'embedder');
  if (!entry || entry.dim === null) throw new RecollectError('MODEL_UNAVAILABLE', `"${modelId}" is not a known embedding model.`);
  return entry;
}

/** The part of the model worker's API the engine needs (a Comlink remote of ModelService fits). */
export interface RemoteEmbedding {
  embedWith(modelId: string, texts: readonly string[], role?: EmbedRole): Promise<Float32Array[]>;
}

export function remoteEmbedderProvider(remote: RemoteEmbedding): EmbedderProvider {
  return {
    defaultModelId: BUNDLED_MODEL_ID,
    embedder(modelId: string): Embedder {
      const entry = entryFor(modelId);
      return { id: entry.vectorId, dim: entry.dim!, embed: (texts, role) => remote.embedWith(modelId, [...texts], role) };
    },
  };
}

/** Loads each model once, in this process (Node: onnxruntime-node). */
export function localEmbedderProvider(platform: ModelPlatform): EmbedderProvider {
  const loaded = new Map<string, Promise<TransformersEmbedder>>();
  return {
    defaultModelId: BUNDLED_MODEL_ID,
    embedder(modelId: string): Embedder {
      const entry = entryFor(modelId);
      const get = () => {
        let p = loaded.get(modelId);
        if (!p) {
          p = TransformersEmbedder.create(modelId, { platform, entry });
          loaded.set(modelId, p);
          p.catch(() => loaded.delete(modelId));
        }
        return p;
      };
      return { id: entry.vectorId, dim: entry.dim!, embed: async (texts, role) => (await get()).embed(texts, role) };
    },
  };
}
