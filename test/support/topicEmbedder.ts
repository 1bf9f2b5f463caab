/**
 * Test doubles for the embedding capability: each text maps to the axis of the first topic word it
 * contains (one extra axis for "none"), so similarity is exact and predictable. Re-exports the
 * next-tick Timer, so queued retries run within engine.idle().
 */
import type { Embedder, EmbedderProvider } from '../../src/core/base/ports';

export function topicEmbedder(topics: readonly string[], id = 'topic@1'): Embedder {
  return {
    id,
    dim: topics.length + 1,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(topics.length + 1);
        const i = topics.findIndex((w) => t.toLowerCase().includes(w));
        v[i < 0 ? topics.length : i] = 1;
        return v;
      });
    },
  };
}

export function topicProvider(topics: readonly string[]): EmbedderProvider {
  const embedder = topicEmbedder(topics);
  return { defaultModelId: 'topic', embedder: () => embedder };
}

export { immediateTimer } from './immediateTimer';
