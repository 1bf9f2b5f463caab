/**
 * Builds the write path behind the engine from its capabilities: capture (the EmbeddingIndexer
 * embeds new turns), episodes (the Lifecycle segments, clusters and queues synthesis — with an
 * episode store and a job queue) and synthesis (the Consolidator — with a knowledge store too).
 * Each stage is optional, so a store-only engine (tests, the ingest benchmark) runs the same code.
 */
import type { Clock, Embedder, EmbedderProvider, Llm } from '../base/ports';
import type { MemoryStore, VectorStore } from '../base/store';
import type { JobStore, Timer } from '../base/jobs';
import { EmbeddingIndexer, type EmbeddingStatus } from '../capture/EmbeddingIndexer';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { EpisodeStore } from '../episodes/episodes';
import { Lifecycle, type ActiveVectors } from '../episodes/Lifecycle';
import { policyByName, type PolicyName } from '../episodes/consolidationPolicy';
import { llmBoundaryJudge } from '../episodes/boundaryCheck';
import type { KnowledgeStore } from '../synthesis/knowledge';
import { Consolidator } from '../synthesis/Consolidator';

export interface WritePathDeps {
  readonly store: MemoryStore & VectorStore;
  readonly embedders?: EmbedderProvider;
  readonly episodes?: EpisodeStore;
  readonly jobs?: JobStore;
  readonly knowledge?: KnowledgeStore;
  readonly clock: Clock;
  readonly timer: Timer;
  readonly newId: () => string;
  readonly profileDebounceMs?: number;
  /** The turn index the indexer fills and the lifecycle reads. */
  readonly semantic: SemanticIndex;
}

/** What the write path reads from the engine while it runs. */
export interface WritePathHooks {
  readonly llm: () => Llm | null;
  readonly policy: () => PolicyName;
  readonly llmBoundaryCheck: () => boolean;
  readonly timeZone: () => string;
  /** The active embedder for reading, or null while there is none or it fails. */
  readonly activeVectors: () => ActiveVectors | null;
  readonly activeEmbedder: () => Embedder | null;
  readonly onEmbeddingStatus: (status: EmbeddingStatus) => void;
  readonly onMemoryChanged: () => void;
}

export interface WritePath {
  readonly indexer: EmbeddingIndexer | null;
  readonly lifecycle: Lifecycle | null;
  readonly consolidator: Consolidator | null;
}

export function buildWritePath(deps: WritePathDeps, hooks: WritePathHooks): WritePath {
  const path: { indexer: EmbeddingIndexer | null; lifecycle: Lifecycle | null; consolidator: Consolidator | null } = {
    indexer: null, lifecycle: null, consolidator: null,
  };
  if (deps.embedders) {
    path.indexer = new EmbeddingIndexer({
      store: deps.store,
      embedders: deps.embedders,
      index: deps.semantic,
      // A switch: a raw episode's vector is its turns' mean; themes' centroids follow the new model.
      derived: async (kind, id, model, dim) => (kind === 'memcell' ? (await path.lifecycle?.cellVector(id, model, dim)) ?? null : null),
      onTargetComplete: async (model, dim) => { await path.lifecycle?.recentreScenes(model, dim); },
      onActiveCaughtUp: () => path.lifecycle?.kick(),
      onStatus: (status) => {
        hooks.onEmbeddingStatus(status);
        // Segmentation and scenes want the turn's vector: run them once embedding settles.
        if (status.state !== 'running') path.lifecycle?.kick();
      },
    });
  }
  const boundaryJudge = llmBoundaryJudge(hooks.llm);
  if (deps.episodes && deps.jobs) {
    path.lifecycle = new Lifecycle({
      episodes: deps.episodes,
      store: deps.store,
      semantic: deps.semantic,
      activeVectors: hooks.activeVectors,
      jobs: deps.jobs,
      policy: () => policyByName(hooks.policy()),
      clock: deps.clock,
      newId: deps.newId,
      onChange: hooks.onMemoryChanged,
      onJobsQueued: () => path.consolidator?.runner.kick(),
      boundaryJudge: () => (hooks.llmBoundaryCheck() && hooks.llm() ? boundaryJudge : null),
      timeZone: hooks.timeZone,
    });
    if (deps.knowledge) {
      path.consolidator = new Consolidator({
        jobs: deps.jobs,
        episodes: deps.episodes,
        knowledge: deps.knowledge,
        vectors: deps.store,
        llm: hooks.llm,
        allowed: () => hooks.policy() !== 'off',
        embedder: hooks.activeEmbedder,
        clock: deps.clock,
        timer: deps.timer,
        timeZone: hooks.timeZone,
        ...(deps.profileDebounceMs !== undefined ? { profileDebounceMs: deps.profileDebounceMs } : {}),
        onChange: hooks.onMemoryChanged,
      });
    }
  }
  return path;
}
