/**
 * An EmbedderProvider that loads transformers.js models in this process (Node tests and the
 * benchmark runner, on onnxruntime-node).
 */
import type { Embedder, EmbedderProvider } from '../core/base/ports';
import { BUNDLED_MODEL_ID } from './catalog';
import { entryFor } from './embedderProviders';
import type { ModelPlatform } from './transformersEnv';
import { TransformersEmbedder } from './TransformersEmbedder';

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
