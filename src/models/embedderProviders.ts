/**
 * The EmbedderProvider the engine worker uses: embeddings come from the model worker over a port.
 * Vector ids come from the catalog, so the engine knows which vectors a model produced before the
 * model is loaded. (This file must not import transformers.js: it is bundled into the engine worker.)
 */
import type { Embedder, EmbedderProvider, Reranker } from '../core/base/ports';
import { MODEL_WORKER_STOPPED_MESSAGE, type ModelWorkerApi, type ModelWorkerChange, type Unwrapped } from '../core/protocol';
import { RecollectError } from '../core/base/errors';
import { swappableRemote, WorkerReplacedError, type Swappable } from '../core/base/swappableRemote';
import { BUNDLED_MODEL_ID, findModel } from './catalog';

export function entryFor(modelId: string) {
  const entry = findModel(modelId, 'embedder');
  if (!entry || entry.dim === null) throw new RecollectError('MODEL_UNAVAILABLE', `"${modelId}" is not a known embedding model.`);
  return entry;
}

/** The part of the model worker's API the engine needs. */
export type RemoteEmbedding = Pick<Unwrapped<ModelWorkerApi>, 'embedWith'> &
  Partial<Pick<Unwrapped<ModelWorkerApi>, 'rerank' | 'status' | 'loadEmbedder'>>;

export function remoteEmbedderProvider(remote: RemoteEmbedding): EmbedderProvider {
  return {
    defaultModelId: BUNDLED_MODEL_ID,
    embedder(modelId: string): Embedder {
      const entry = entryFor(modelId);
      return { id: entry.vectorId, dim: entry.dim!, embed: (texts, role) => remote.embedWith(modelId, [...texts], role) };
    },
    // The reranker the user picked in Models lives in the model worker; a slot that is empty or
    // failed to load means no rerank stage (recall falls back to the fused order, never fails).
    async activeReranker(): Promise<Reranker | null> {
      if (!remote.status || !remote.rerank) return null;
      const slot = (await remote.status()).reranker;
      if (slot.modelId === null || slot.state === 'error') return null;
      const rerank = remote.rerank;
      // Trust comes from the catalog (a model it does not list is not trusted to move anything).
      const trust = findModel(slot.modelId, 'reranker')?.rerankTrust ?? 0;
      return { id: slot.modelId, trust, rerank: (query, docs) => rerank(query, [...docs]) };
    },
    // The model worker keeps the active model as its embedder, so Models and the overview report
    // the model (and device) whose vectors search uses.
    async activate(modelId: string): Promise<void> {
      await remote.loadEmbedder?.(modelId);
    },
  };
}

/**
 * The engine's link to the model worker, which the page may replace (a model that broke the ONNX
 * runtime of its worker, see ModelService's onRuntimeBroken): one provider for the engine's whole
 * life, its calls going to the newest worker; calls left waiting on the old one fail with
 * WorkerReplacedError (the indexer then asks the new worker again, a switch goes on), and the model the engine last activated is loaded in the new one.
 */
const MODEL_WORKER_REPLACED_MESSAGE = 'The model worker was restarted after a model failed to load; try again.';

export function modelWorkerLink(): {
  readonly provider: EmbedderProvider;
  connect(remote: RemoteEmbedding, reason?: ModelWorkerChange): void;
} {
  let link: Swappable<RemoteEmbedding> | null = null;
  let change: ModelWorkerChange = 'replaced';
  let active: string | null = null;
  const current = () => {
    if (!link) throw new RecollectError('MODEL_UNAVAILABLE', 'The model worker is not connected yet.');
    return link.remote;
  };
  const provider = remoteEmbedderProvider({
    embedWith: (modelId, texts, role) => current().embedWith(modelId, texts, role),
    rerank: (query, docs) => current().rerank!(query, docs),
    status: () => current().status!(),
    loadEmbedder: (modelId) => {
      active = modelId;
      return current().loadEmbedder!(modelId);
    },
  });
  return {
    provider,
    connect(remote, reason = 'replaced') {
      if (!link) {
        link = swappableRemote(
          remote,
          () => new WorkerReplacedError(change === 'stopped' ? MODEL_WORKER_STOPPED_MESSAGE : MODEL_WORKER_REPLACED_MESSAGE),
        );
        return;
      }
      change = reason;
      link.swap(remote);
      if (active) void remote.loadEmbedder?.(active).catch(() => undefined);
    },
  };
}
