/**
 * An EmbedderProvider that loads models in this process (Node tests and the benchmark runner): the
 * bundled model as its runtime-free lookup when the platform can read its files (the same vectors,
 * src/models/StaticEmbedder.ts), other models through transformers.js on onnxruntime-node.
 */
import type { Embedder, EmbedderProvider } from '../core/base/ports';
import { BUNDLED_MODEL_ID } from './catalog';
import { entryFor } from './embedderProviders';
import type { ModelPlatform } from './transformersEnv';
import { StaticEmbedder } from './StaticEmbedder';
import { TransformersEmbedder } from './TransformersEmbedder';

/** Loads each model once, in this process (Node: onnxruntime-node). */
export function localEmbedderProvider(platform: ModelPlatform): EmbedderProvider {
  const loaded = new Map<string, Promise<Embedder>>();
  return {
    defaultModelId: BUNDLED_MODEL_ID,
    embedder(modelId: string): Embedder {
      const entry = entryFor(modelId);
      const get = () => {
        let p = loaded.get(modelId);
        if (!p) {
          p =
            entry.bundled && platform.staticFiles
              ? StaticEmbedder.load(entry, platform.staticFiles(entry))
              : TransformersEmbedder.create(modelId, { platform, entry });
          loaded.set(modelId, p);
          p.catch(() => loaded.delete(modelId));
        }
        return p;
      };
      return { id: entry.vectorId, dim: entry.dim!, embed: async (texts, role) => (await get()).embed(texts, role) };
    },
  };
}
