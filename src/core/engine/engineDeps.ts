/**
 * What an engine is built from: the store and the optional capabilities that switch on each stage
 * (embedding, episodes, synthesis, recall, answers, the explorer, endpoint settings). Composition
 * roots (src/host) fill it; tests fill only what they exercise.
 */
import type { DerivedEpisodeStore } from '../synthesis/derivedEpisode';
import type { DerivedProfileStore } from '../synthesis/derivedProfile';
import type { VectorIndexFactory } from '../capture/vectorIndex';
import type { HistoryReader } from '../base/historyImport';
import type { MemoryStore, VectorStore } from '../base/store';
import type { Clock, EmbedderProvider, Llm, LlmCallSink } from '../base/ports';
import type { JobStore, Timer } from '../base/jobs';
import type { LlmFactory, SettingsStore } from '../base/settings';
import type { EpisodeStore } from '../episodes/episodes';
import type { KnowledgeStore } from '../synthesis/knowledge';
import type { RetrievalSource } from '../recall/Retriever';
import type { KnowledgeSource } from '../recall/answerSource';
import type { ExplorerStore } from '../explorer/explorer';
import type { EngineEvent } from '../protocol';
import type { UsageLedger } from './EngineSettings';
import type { ProjectStore } from './projectStore';
import type { SummarySource } from './MemorySummaries';
import type { SyncLogStore, SyncRelay } from '../sync/syncPorts';

/**
 * Nearest message vectors of one model (the engine's SemanticIndex). `approximate`: a quantised
 * index's own order will do (no exact rescoring; SemanticIndex.search).
 */
export type VectorSearch = (
  vectorModelId: string,
  query: Float32Array,
  k: number,
  options?: { readonly approximate?: boolean; readonly filter?: (id: string) => boolean },
) => Promise<readonly { readonly id: string; readonly score: number }[]>;

export interface MemoryEngineDeps {
  readonly store: MemoryStore & VectorStore;
  /** Without embedders the engine stores and full-text searches only (no vectors). */
  readonly embedders?: EmbedderProvider;
  /** With both, the episode lifecycle runs (segmentation, scenes, foresight, synthesis queue). */
  readonly episodes?: EpisodeStore;
  readonly jobs?: JobStore;
  /** With knowledge (and jobs), queued episodes are synthesised through the LLM endpoint. */
  readonly knowledge?: KnowledgeStore;
  readonly llm?: Llm | null;
  readonly clock?: Clock;
  readonly timer?: Timer;
  /** Timer of the upkeep (idle episodes close, foresight expires); default the platform's. */
  readonly upkeepTimer?: Timer;
  /** The platform's time zone, used until the user picks one (default: Intl's). */
  readonly platformTimeZone?: () => string;
  readonly newId?: () => string;
  readonly profileDebounceMs?: number;
  /** Builds the read path's data access over the engine's vector search (hybrid recall). */
  readonly retrievalSource?: (vectors: VectorSearch) => RetrievalSource;
  /** Names of everyone who speaks in stored turns (query analysis recognises them). */
  readonly speakers?: () => Promise<string[]>;
  /** Storage's candidates for answers (facts, episodes, scenes, profile, foresight). */
  readonly knowledgeSource?: KnowledgeSource;
  /** Endpoint settings (key kept outside the database) and how to build a client from them. */
  readonly settings?: SettingsStore;
  readonly llmFactory?: LlmFactory;
  /** Where every LLM call is recorded (llm_calls), and read back for the cost view. */
  readonly llmSink?: LlmCallSink & UsageLedger;
  /** The memory explorer's data access (src/storage/explorerRepo.ts). */
  readonly explorer?: ExplorerStore;
  /** Which vector index the semantic indexes use (default: the JS float32 brute force). */
  readonly vectorIndex?: VectorIndexFactory;
  /** Reads other services' chat exports (src/import/readHistory.ts); without it history import is unavailable. */
  readonly historyReader?: HistoryReader;
  /** Projects (src/storage/projectRepo.ts); without it there are none and answers read all of memory. */
  readonly projects?: ProjectStore;
  /** What the memory summary is made from (src/storage/summarySource.ts); without it there is no summary. */
  readonly summarySource?: SummarySource;
  /**
   * Sync between devices (SyncService.ts): the event log (storage/syncRepo.ts), the relay
   * transport, and whether the device is online. Without it sync is unavailable; with it sync is
   * still off until the person turns it on. The phrase is kept by `settings` (SettingsStore).
   */
  readonly sync?: {
    readonly log: SyncLogStore;
    readonly relayFor: (relayUrl: string) => SyncRelay;
    readonly online?: () => boolean;
    /** Episodes and what synthesis made of them, for derived records (core/synthesis/derivedEpisode.ts). */
    readonly episodes?: DerivedEpisodeStore;
    /** The profile's side of derived records (core/synthesis/derivedProfile.ts). */
    readonly profiles?: DerivedProfileStore;
  };
}

export type EngineListener = (event: EngineEvent) => void;
