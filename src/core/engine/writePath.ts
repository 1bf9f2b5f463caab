/**
 * Builds the write path behind the engine from its capabilities: capture (the EmbeddingIndexer
 * embeds new turns), episodes (the Lifecycle segments, clusters and queues synthesis — with an
 * episode store and a job queue) and synthesis (the Consolidator — with a knowledge store too).
 * Each stage is optional, so a store-only engine (tests, the ingest benchmark) runs the same code.
 * A stage that is off is a null object (NO_EPISODES, NO_SYNTHESIS) that does nothing, so callers
 * never test for it; capture stays nullable because "no embedding model" is something the engine
 * reports (null status, MODEL_UNAVAILABLE), not something it can quietly skip.
 */
import type { Clock, Embedder, EmbedderProvider, Llm } from '../base/ports';
import type { MemoryStore, VectorStore } from '../base/store';
import type { JobRunner, JobRunnerStatus, JobStore, Timer } from '../base/jobs';
import { EmbeddingIndexer } from '../capture/EmbeddingIndexer';
import type { EmbeddingStatus } from '../capture/embeddingStatus';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { EpisodeStore } from '../episodes/episodes';
import { Lifecycle, type ActiveVectors } from '../episodes/Lifecycle';
import { policyByName, type PolicyName } from '../episodes/consolidationPolicy';
import { llmBoundaryJudge } from '../episodes/boundaryCheck';
import type { KnowledgeStore } from '../synthesis/knowledge';
import { Consolidator, type ConsolidatorDeps } from '../synthesis/Consolidator';
import type { SynthesisRecovery } from '../synthesis/synthesisRecovery';

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
  /** Sync's derived records of episodes (ConsolidatorDeps.derived); absent without sync. */
  readonly derived?: ConsolidatorDeps['derived'];
}

/** The episode stage as the engine uses it: the Lifecycle, or NO_EPISODES. */
export type EpisodeStage = Pick<
  Lifecycle,
  'lastError' | 'busy' | 'kick' | 'idle' | 'stop' | 'reset' | 'reevaluate' | 'onRetrieved' | 'closeIdle' | 'cellVector' | 'recentreScenes'
>;

/** The synthesis stage as the engine uses it: the Consolidator, or NO_SYNTHESIS. */
export type SynthesisStage = Pick<
  Consolidator,
  | 'start'
  | 'expireForesight'
  | 'endpointChanged'
  | 'endpointAnswered'
  | 'retryFailed'
  | 'failures'
  | 'writeEpisode'
  | 'themeWritten'
  | 'profileDue'
> & {
  readonly runner: Pick<JobRunner, 'stop' | 'idle' | 'kick' | 'status'>;
  readonly recovery: Pick<SynthesisRecovery, 'stop' | 'idle' | 'busy'>;
};

/** Episodes off (no episode store or job queue): turns are stored and searched, never segmented. */
export const NO_EPISODES: EpisodeStage = {
  lastError: null,
  busy: false,
  kick: () => undefined,
  idle: async () => undefined,
  stop: () => undefined,
  reset: () => undefined,
  reevaluate: () => undefined,
  onRetrieved: async () => undefined,
  closeIdle: async () => 0,
  cellVector: async () => null,
  recentreScenes: async () => 0,
};

const IDLE_RUNNER: JobRunnerStatus = { running: false, pausedUntil: null, pauseReason: null, lastError: null };

/** Synthesis off (no knowledge store): no queue runs, nothing expires, endpoint changes change nothing. */
export const NO_SYNTHESIS: SynthesisStage = {
  start: async () => undefined,
  expireForesight: async () => 0,
  endpointChanged: () => undefined,
  endpointAnswered: () => undefined,
  retryFailed: async () => 0,
  writeEpisode: async () => false,
  themeWritten: async () => undefined,
  profileDue: async () => undefined,
  failures: async () => ({ episodes: 0, themes: 0, profileUpdates: 0, retryingByThemselves: 0, nextCheckAt: null, canRetry: false }),
  runner: { stop: () => undefined, idle: async () => undefined, kick: () => undefined, status: () => IDLE_RUNNER },
  recovery: { stop: () => undefined, idle: async () => undefined, busy: false },
};

export interface WritePath {
  readonly indexer: EmbeddingIndexer | null;
  readonly lifecycle: EpisodeStage;
  readonly consolidator: SynthesisStage;
}

export function buildWritePath(deps: WritePathDeps, hooks: WritePathHooks): WritePath {
  const path: { indexer: EmbeddingIndexer | null; lifecycle: EpisodeStage; consolidator: SynthesisStage } = {
    indexer: null,
    lifecycle: NO_EPISODES,
    consolidator: NO_SYNTHESIS,
  };
  if (deps.embedders) {
    path.indexer = new EmbeddingIndexer({
      store: deps.store,
      embedders: deps.embedders,
      index: deps.semantic,
      // A switch: a raw episode's vector is its turns' mean; themes' centroids follow the new model.
      derived: async (kind, id, model, dim) => (kind === 'memcell' ? path.lifecycle.cellVector(id, model, dim) : null),
      onTargetComplete: async (model, dim) => {
        await path.lifecycle.recentreScenes(model, dim);
      },
      onTargetActive: async (model, dim) => {
        await path.lifecycle.recentreScenes(model, dim, true);
      },
      onActiveCaughtUp: () => path.lifecycle.kick(),
      ...(deps.episodes
        ? { themesWith: async (model: string) => (await deps.episodes!.scenes(model)).filter((t) => t.centroid !== null).length }
        : {}),
      onStatus: (status) => {
        hooks.onEmbeddingStatus(status);
        // Segmentation and scenes want the turn's vector: run them once embedding settles.
        if (status.state !== 'running') path.lifecycle.kick();
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
      onJobsQueued: () => path.consolidator.runner.kick(),
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
        ...(hooks.derived ? { derived: hooks.derived } : {}),
      });
    }
  }
  return path;
}
