/**
 * The one factory that wires a MemoryEngine to a SqliteMemoryStore: the app's engine host, the
 * benchmarks, the tests and the e2e prefill all build their engines here, so they run the same
 * wiring (repositories over the same connection, the LLM client, the call ledger).
 *
 * Stages: by default every stage the store supports runs — episodes (segmentation, scenes,
 * foresight), synthesis (the consolidator; it waits for an endpoint), recall (hybrid retrieval and
 * the answer path's candidates), the explorer. `only` narrows that to the named stages, for a test
 * or a benchmark that measures one part (turn capture and embedding always run).
 */
import { MemoryEngine } from '../core/engine/MemoryEngine';
import type { Clock, EmbedderProvider, Llm } from '../core/base/ports';
import type { Timer } from '../core/base/jobs';
import type { LlmFactory, SettingsStore } from '../core/base/settings';
import type { SqliteMemoryStore } from '../storage/SqliteMemoryStore';
import type { VectorIndexFactory } from '../core/capture/vectorIndex';
import { SqlRetrievalSource } from '../storage/retrievalSource';
import { SqlKnowledgeSource } from '../storage/knowledgeSource';
import { SqlExplorerStore } from '../storage/explorerRepo';
import { SqlSummarySource } from '../storage/summarySource';
import { LlmClient } from '../llm/LlmClient';
import { readHistory } from '../import/readHistory';
import { SqlDerivedEpisodes } from '../storage/derivedEpisodes';
import { SqlDerivedProfiles } from '../storage/derivedProfiles';
import { SqlSyncLog } from '../storage/syncRepo';
import { lazyRelay } from '../relay/lazyRelay';
import type { SyncRelay } from '../core/sync/syncPorts';

export type EngineStage = 'episodes' | 'synthesis' | 'recall' | 'explorer';

export interface EngineOptions {
  /** Run only these stages (default: all). Synthesis needs episodes. */
  readonly only?: readonly EngineStage[];
  readonly embedders?: EmbedderProvider;
  /** A fixed endpoint client (tests, benchmarks); the app builds one from `settings` instead. */
  readonly llm?: Llm | null;
  /** Endpoint settings (the app: IndexedDB, key kept outside the database). */
  readonly settings?: SettingsStore;
  /** How a client is built from endpoint settings (default: LlmClient logging to the store's llm_calls). */
  readonly llmFactory?: LlmFactory;
  readonly clock?: Clock;
  readonly timer?: Timer;
  /** The upkeep's timer (idle episodes close, foresight expires); tests pass a fake. */
  readonly upkeepTimer?: Timer;
  /** The zone used until the user picks one (default: the platform's). */
  readonly platformTimeZone?: () => string;
  readonly newId?: () => string;
  readonly profileDebounceMs?: number;
  /** The vector index (the WASM SIMD kernel where it loads, see src/wasm/vectorKernel.ts; default: JS float32). */
  readonly vectorIndex?: VectorIndexFactory;
  /** The relay transport sync uses (default: Durable Streams, loaded on first use); tests count calls through it. */
  readonly relayFor?: (relayUrl: string) => SyncRelay;
  /** Whether the device is online (default: navigator.onLine where there is one). */
  readonly online?: () => boolean;
}

/** navigator.onLine in a browser or worker; Node has no such signal, so it counts as online. */
const platformOnline = (): boolean => (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine !== false;

export const defaultLlmFactory: LlmFactory = (settings, sink) =>
  new LlmClient({ baseUrl: settings.baseUrl, model: settings.model, apiKey: settings.apiKey ?? undefined }, sink ? { sink } : {});

export function createEngine(store: SqliteMemoryStore, options: EngineOptions = {}): MemoryEngine {
  const runs = (stage: EngineStage) => !options.only || options.only.includes(stage);
  const episodes = runs('episodes');
  return new MemoryEngine({
    store,
    ...(options.embedders ? { embedders: options.embedders } : {}),
    ...(episodes ? { episodes: store.episodes, jobs: store.jobs } : {}),
    ...(episodes && runs('synthesis') ? { knowledge: store.knowledge } : {}),
    ...(runs('recall')
      ? {
          retrievalSource: (vectors) => new SqlRetrievalSource(store.db, { vectors }),
          knowledgeSource: new SqlKnowledgeSource(store.db),
          speakers: () => store.speakers(),
        }
      : {}),
    ...(runs('explorer') ? { explorer: new SqlExplorerStore(store.db), summarySource: new SqlSummarySource(store.db) } : {}),
    ...(options.llm !== undefined ? { llm: options.llm } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
    llmFactory: options.llmFactory ?? defaultLlmFactory,
    llmSink: store.llmCalls,
    historyReader: readHistory,
    projects: store.projects,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.timer ? { timer: options.timer } : {}),
    ...(options.upkeepTimer ? { upkeepTimer: options.upkeepTimer } : {}),
    ...(options.platformTimeZone ? { platformTimeZone: options.platformTimeZone } : {}),
    ...(options.newId ? { newId: options.newId } : {}),
    ...(options.profileDebounceMs !== undefined ? { profileDebounceMs: options.profileDebounceMs } : {}),
    ...(options.vectorIndex ? { vectorIndex: options.vectorIndex } : {}),
    // Sync is off until the person turns it on; these are only its means.
    sync: {
      log: new SqlSyncLog(store.db),
      relayFor: options.relayFor ?? lazyRelay,
      online: options.online ?? platformOnline,
      ...(episodes && runs('synthesis') ? { episodes: new SqlDerivedEpisodes(store.db), profiles: new SqlDerivedProfiles(store.db) } : {}),
    },
  });
}
