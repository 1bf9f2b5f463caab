/**
 * The one assembly of a MemoryEngine's parts, in dependency order: the indexes, the LLM choice and
 * settings, the write path (capture → episodes → synthesis), the writer of conversations, history
 * imports, upkeep, the memory reader, answering, saved memories and the explorer. MemoryEngine
 * holds what this returns and only delegates to it.
 *
 * Stages switch on with their capabilities (engineDeps.ts). Episodes and synthesis that are off
 * are null objects (writePath.ts); capture, the reader, the explorer and history imports are null
 * when off, because the engine reports their absence to its caller (a null status, an error that
 * names what is missing) instead of doing nothing.
 *
 * Parts reach each other through closures that run after assembly (a part built early may call
 * one built later, never during construction).
 */
import { readGlobalMemory, switchedAnswerSource } from './globalMemory';
import type { ConsolidationStatus, EngineEvent } from '../protocol';
import type { MemoryStore, VectorStore } from '../base/store';
import { systemClock, type Embedder, type Llm, type LlmCallSink } from '../base/ports';
import { newId } from '../base/ids';
import { platformTimer, type JobStore, type Timer } from '../base/jobs';
import type { EmbeddingIndexer } from '../capture/EmbeddingIndexer';
import { SemanticIndex } from '../capture/SemanticIndex';
import type { ActiveVectors } from '../episodes/Lifecycle';
import type { EpisodeStore } from '../episodes/episodes';
import { MemoryReader } from '../recall/MemoryReader';
import { ExplorerService } from '../explorer/ExplorerService';
import { SavedMemories } from './savedMemories';
import { MemorySummaries } from './MemorySummaries';
import { answerScopeOf } from '../recall/memoryScope';
import { MemoryCarry } from './memoryCarry';
import { ConversationMemorySwitches } from './conversationMemory';
import { Conversations } from './Conversations';
import { Projects } from './Projects';
import { EngineSettings, withAnsweredHook } from './EngineSettings';
import { AnswerService } from './AnswerService';
import { buildWritePath, NO_SYNTHESIS, type EpisodeStage, type SynthesisStage } from './writePath';
import { EngineUpkeep } from './EngineUpkeep';
import { HistoryImports } from './historyImport';
import type { ImportedProject } from '../base/historyImport';
import type { ProjectMemoryMode } from '../base/types';
import { TrailingIndex } from './trailingIndex';
import { speakersDuringImport } from './speakersDuringImport';
import { ForegroundReads } from '../base/foregroundReads';
import { withDeadline } from '../base/llmDeadline';
import type { AnswerSource } from '../recall/answerContext';
import type { MemoryEngineDeps } from './engineDeps';
import { conversationLlm } from './conversationLlm';
import { LazySync, type SyncControl } from './lazySync';
import { syncWrites } from './syncWiring';
import type { SyncNotes } from './Conversations';

/**
 * Which LLM answers, titles and synthesises: a model on this device when one is chosen, else the
 * endpoint's client (or none). Every change tells synthesis, whose paused work may resume.
 */
export class LlmChoice {
  #endpoint: Llm | null;
  #device: Llm | null = null;
  readonly #sink: LlmCallSink | null;
  readonly #changed: () => void;

  readonly #timer: Timer;

  constructor(endpoint: Llm | null, sink: LlmCallSink | null, changed: () => void, timer: Timer = platformTimer) {
    this.#timer = timer;
    this.#endpoint = endpoint ? withDeadline(endpoint, timer) : null;
    this.#sink = sink;
    this.#changed = changed;
  }

  get current(): Llm | null {
    return this.#device ?? this.#endpoint;
  }
  get endpoint(): Llm | null {
    return this.#endpoint;
  }
  get device(): Llm | null {
    return this.#device;
  }

  /** The endpoint's client, else the model on this device (the memory summary's order of preference). */
  get endpointFirst(): { readonly llm: Llm; readonly maker: 'endpoint' | 'device' } | null {
    if (this.#endpoint) return { llm: this.#endpoint, maker: 'endpoint' };
    return this.#device ? { llm: this.#device, maker: 'device' } : null;
  }

  /** Every call through either carries an abort signal and a deadline (core/base/llmDeadline.ts). */
  useEndpoint(llm: Llm | null): void {
    this.#endpoint = llm ? withDeadline(llm, this.#timer) : null;
    this.#changed();
  }

  /** `make` gets the engine's ledger, so the device model's calls are counted like the endpoint's. */
  useDevice(make: ((sink: LlmCallSink | null) => Llm) | null): void {
    this.#device = make ? withDeadline(make(this.#sink), this.#timer) : null;
    this.#changed();
  }
}

/** What the assembled parts need from the engine facade itself. */
export interface EngineFacade {
  readonly emit: (event: EngineEvent) => void;
}

export interface EngineParts {
  readonly store: MemoryStore & VectorStore;
  readonly episodes: EpisodeStore | null;
  readonly jobs: JobStore | null;
  readonly timer: Timer;
  /** Turns, facts and episodes by meaning (the engine resets them when memory changes). */
  readonly semantic: SemanticIndex;
  readonly factIndex: SemanticIndex;
  readonly cellIndex: SemanticIndex;
  readonly llm: LlmChoice;
  readonly settings: EngineSettings;
  readonly indexer: EmbeddingIndexer | null;
  readonly lifecycle: EpisodeStage;
  readonly consolidator: SynthesisStage;
  readonly conversations: Conversations;
  /** Null when the engine was built without a project store. */
  readonly projects: Projects | null;
  readonly history: HistoryImports | null;
  /** The indexing a history import leaves to trail it (turn index, vectors, episodes), with one progress figure. */
  readonly trailing: TrailingIndex;
  /** Recalls and searches in flight: the import's and the trailing index's write transactions wait for them. */
  readonly foreground: ForegroundReads;
  readonly upkeep: EngineUpkeep;
  readonly reader: MemoryReader | null;
  readonly answers: AnswerService;
  readonly saved: SavedMemories;
  readonly carry: MemoryCarry;
  /** "What Recollect knows about you" (MemorySummaries.ts); `changed` runs on every memory event. */
  readonly summaries: MemorySummaries;
  readonly explorer: ExplorerService | null;
  readonly consolidationStatus: () => Promise<ConsolidationStatus>;
  /** Null when the engine was built without sync's capabilities (engineDeps.ts). */
  readonly sync: SyncControl | null;
}

const NO_JOBS = { pending: 0, scheduled: 0, running: 0, done: 0, failed: 0, cancelled: 0 };

export function assembleEngine(deps: MemoryEngineDeps, facade: EngineFacade): EngineParts {
  const { store } = deps;
  const clock = deps.clock ?? systemClock;
  const makeId = deps.newId ?? newId;
  const timer = deps.timer ?? platformTimer;
  const emit = facade.emit;
  const semantic = new SemanticIndex(store, 'message', deps.vectorIndex);
  const factIndex = new SemanticIndex(store, 'fact', deps.vectorIndex);
  const cellIndex = new SemanticIndex(store, 'memcell', deps.vectorIndex);
  const foreground = new ForegroundReads();

  // A successful call means the endpoint may work again: synthesis that failed meanwhile gets a check soon.
  const llmSink = deps.llmSink ? withAnsweredHook(deps.llmSink, () => consolidator.endpointAnswered()) : null;
  const llm = new LlmChoice(deps.llm ?? null, llmSink, () => consolidator.endpointChanged());
  const settings = new EngineSettings({
    meta: store,
    settings: deps.settings ?? null,
    llmFactory: deps.llmFactory ?? null,
    llmSink,
    onLlm: (client) => llm.useEndpoint(client),
    onChange: () => emit({ type: 'settings-changed' }),
    contextTokens: () => llm.current?.contextTokens,
    onPolicyChanged: (name) => upkeep.policyChanged(name),
    ...(deps.platformTimeZone ? { platformTimeZone: deps.platformTimeZone } : {}),
  });

  // The embedders as the read and write paths see them (capture may be off, failing or warming up).
  /** The active embedder, or null when there is none (no model worker, a model id we don't know). */
  const activeEmbedder = (): Embedder | null => {
    try {
      return indexer?.activeEmbedder() ?? null;
    } catch {
      // an unknown model id throws: answer without vectors
      return null;
    }
  };
  /** The active embedder for reading, or null while embedding is failing (callers fall back to text). */
  const embedderOrNull = (): Embedder | null => (indexer?.status().state === 'error' ? null : activeEmbedder());
  /** The embedder for a search, or null while the active model is known to fail (a switch away from it runs). */
  const searchEmbedder = (): Embedder | null => (indexer?.activeFails() ? null : embedderOrNull());
  /** The embedder for answering, or null while it warms up after open (recall is lexical meanwhile). */
  const recallEmbedder = (): Embedder | null => (indexer && !indexer.vectorsReady() ? null : searchEmbedder());
  const activeVectors = (): ActiveVectors | null => {
    const e = embedderOrNull();
    return e ? { id: e.id, dim: e.dim } : null;
  };

  const { indexer, lifecycle, consolidator } = buildWritePath(
    {
      ...deps,
      clock,
      timer,
      newId: makeId,
      semantic,
    },
    {
      llm: () => llm.current,
      policy: () => settings.policy,
      llmBoundaryCheck: () => settings.llmBoundaryCheck,
      timeZone: () => settings.timeZone,
      activeVectors,
      activeEmbedder,
      onEmbeddingStatus: (status) => {
        emit({ type: 'embedding-status', status });
        trailing.noteEmbedding();
      },
      onMemoryChanged: () => emit({ type: 'memory-changed' }),
      derived: {
        episodeFor: async (memcellId) => (sync ? sync.derivedEpisode(memcellId) : null),
        synthesised: (memcellId) => sync?.noteEpisode(memcellId),
        themeFor: async (sceneId) => (sync ? sync.derivedTheme(sceneId) : null),
        summarised: (sceneId) => sync?.noteTheme(sceneId),
        profileFor: async (themes) => (sync ? sync.derivedProfile(themes) : 'due'),
        profiled: async (sides) => sync?.recordProfile(sides),
      },
    },
  );
  const trailing = new TrailingIndex({
    backlog: () => store.turnIndexBacklog?.() ?? Promise.resolve(0),
    indexSome: (max) => store.indexQueuedTurns?.(max) ?? Promise.resolve(0),
    countTurns: () => store.countItems('message'),
    embedding: () => indexer?.status() ?? null,
    pauseEmbedding: () => indexer?.pause() ?? (() => undefined),
    kickEmbedding: () => (indexer ? indexer.kick() : lifecycle.kick()),
    episodesBusy: () => lifecycle.busy,
    onStatus: (status) => emit({ type: 'indexing-status', status }),
    readsFirst: () => foreground.whenIdle(),
  });

  // Sync is built last (it writes through the parts below); the write paths reach it through this.
  const synced: SyncNotes = {
    get on() {
      return sync?.on ?? false;
    },
    noteConversation: (id) => sync?.noteConversation(id),
    noteTurns: (ids) => sync?.noteTurns(ids),
    noteTurnsDeleted: (ids) => sync?.noteTurnsDeleted(ids),
    noteTurnsHidden: (ids) => sync?.noteTurnsHidden(ids),
    noteVersionsGone: (id) => sync?.noteVersionsGone(id),
    noteProject: (id) => sync?.noteProject(id),
  };
  const switches = new ConversationMemorySwitches({
    store,
    meta: store,
    onRemembered: () => lifecycle.kick(),
    changed: () => emit({ type: 'conversations-changed' }),
  });
  const saved = new SavedMemories({
    knowledge: deps.knowledge ?? null,
    clock,
    newId: makeId,
    changed: () => emit({ type: 'memory-changed' }),
  });
  const conversations = new Conversations({
    store,
    switches,
    semantic,
    pauseEmbedding: () => indexer?.pause() ?? (() => undefined),
    // During a history import episodes wait for it (the trailing index kicks them after).
    written: () => (indexer ? indexer.kick() : trailing.importing ? undefined : lifecycle.kick()),
    emptied: async (conversationId) => {
      await explorer?.dropEmptyEpisodes(conversationId);
    },
    conversationDeleted: () => lifecycle.reset(),
    // What a deleted turn's episode derived went with it (storage); the policy decides when to derive it again.
    turnsDeleted: () => {
      lifecycle.reevaluate();
      emit({ type: 'memory-changed' });
    },
    llm: () => llm.current,
    emit,
    remember: async (message) => {
      const item = await saved.rememberFrom(message);
      if (item) sync?.noteMemory(item.id);
      return item;
    },
    synced,
  });
  const projects = deps.projects
    ? new Projects({
        store: deps.projects,
        newId: makeId,
        emit,
        conversationsDeleted: () => {
          semantic.reset();
          lifecycle.reset();
        },
        synced,
        async contents(projectId) {
          const conversationIds = (await store.listConversations()).filter((c) => c.projectId === projectId).map((c) => c.id);
          const turnIds: string[] = [];
          for (const id of conversationIds) for (const m of await store.listMessages(id)) turnIds.push(m.id);
          return { conversationIds, turnIds };
        },
        wallsMoved: async () => explorer?.splitMixedScenes(),
      })
    : null;
  const history = deps.historyReader
    ? new HistoryImports({
        reader: deps.historyReader,
        clock,
        readsFirst: () => foreground.whenIdle(),
        sink: {
          appendTurns: (t, create) => conversations.append(t, { deferTurnIndex: true, create }),
          setConsolidationPolicy: (p) => settings.setPolicy(p),
          storedTurnIds: async (id) =>
            (await store.getConversation(id)) ? new Set((await store.listMessages(id)).map((m) => m.id)) : null,
          discardConversation: (id) => store.deleteConversation(id),
          ...(projects && deps.projects
            ? {
                projectBySource: (sourceId: string) => deps.projects!.projectBySource(sourceId),
                importProject: (source: ImportedProject, memory: ProjectMemoryMode) => projects.fromSource(source, memory),
                describeProject: (id: string, source: ImportedProject) => projects.describeImported(id, source),
              }
            : {}),
        },
      })
    : null;
  const upkeep = new EngineUpkeep({
    lifecycle,
    consolidator,
    jobs: deps.jobs ?? null,
    episodes: deps.episodes ?? null,
    clock,
    ...(deps.upkeepTimer ? { timer: deps.upkeepTimer } : {}),
    splitMixedScenes: async () => explorer?.splitMixedScenes(),
  });

  const reader = deps.retrievalSource
    ? new MemoryReader({
        source: deps.retrievalSource((model, query, k, options) => semantic.search(model, query.length, query, k, options)),
        knowledge: deps.knowledgeSource ?? null,
        indexes: { fact: factIndex, episode: cellIndex },
        embedder: recallEmbedder,
        // Joins with the vectors: asking the model worker which reranker is active waits behind its
        // start-up (0.3–0.6 s of a cold open's first search at 100k), and the first keyword result
        // after open should not (the same rule as recallEmbedder).
        reranker: async () => (indexer && !indexer.vectorsReady() ? null : ((await deps.embedders?.activeReranker?.()) ?? null)),
        speakers: speakersDuringImport(
          async () => (await deps.speakers?.()) ?? [],
          () => trailing.importing,
        ),
        notRemembered: () => store.conversationsNotRemembered(),
        clock,
        timeZone: () => settings.timeZone,
      })
    : null;
  const recallSource = reader?.answerSource() ?? null;
  // What an answer reads is a foreground read too (the person waits for the reply).
  const source = recallSource
    ? foregroundAnswerSource(
        switchedAnswerSource(recallSource, () => readGlobalMemory(store)),
        foreground,
      )
    : null;
  const answers = new AnswerService({
    llm: () => llm.current,
    // A conversation's own model (conversationLlm.ts), read at each answer.
    llmFor: async (id) => conversationLlm(llm, (await store.getConversation(id))?.model ?? null),
    source,
    clock,
    timeZone: () => settings.timeZone,
    settings: () => settings.answerSettings(),
    messageWindow: (id, request) => store.listMessageWindow(id, request),
    appendTurn: (turn) => conversations.appendOne(turn),
    retrieved: (ids) => lifecycle.onRetrieved(ids),
    usesMemory: (id) => switches.usesMemory(id),
    answered: (id) => conversations.answered(id),
    vectorsReady: () => indexer?.vectorsReady() ?? true,
    ...(projects ? { answerScope: (id: string) => projects.answerScope(id) } : {}),
  });

  const jobs = deps.jobs ?? null;
  const consolidationStatus = async (): Promise<ConsolidationStatus> => {
    const runner = consolidator.runner.status();
    return {
      policy: settings.policy,
      llmBoundaryCheck: settings.llmBoundaryCheck,
      endpointConfigured: llm.current !== null,
      jobs: jobs ? await jobs.counts() : NO_JOBS,
      pausedReason: runner.pausedUntil ? runner.pauseReason : null,
      lastError: runner.lastError ? `${runner.lastError.code}: ${runner.lastError.message}` : null,
      backgroundErrors: [
        ...(lifecycle.lastError ? [`Organising episodes: ${lifecycle.lastError.message}`] : []),
        ...(upkeep.lastError ? [`Closing idle episodes and expiring plans: ${upkeep.lastError.message}`] : []),
      ],
    };
  };

  const explorer = deps.explorer
    ? new ExplorerService({
        explorer: deps.explorer,
        vectors: store,
        indexes: { turn: semantic, fact: factIndex, episode: cellIndex },
        embedder: searchEmbedder,
        embeddingStatus: () => indexer?.status() ?? null,
        jobs,
        episodes: deps.episodes ?? null,
        // The explorer tells "no synthesis queue" apart (resynthesise is refused), so the null object maps to null.
        kickSynthesis: consolidator === NO_SYNTHESIS ? null : (options) => consolidator.runner.kick(options),
        resetLifecycle: () => lifecycle.reset(),
        consolidation: consolidationStatus,
        databaseBytes: async () => (await store.stats()).databaseBytes,
        clock,
        newId: makeId,
        synced: { noteTurnsDeleted: (ids) => synced.noteTurnsDeleted(ids), noteSweep: () => sync?.noteSweep() },
        changed: (options) => {
          if (options?.turns) {
            lifecycle.reevaluate(); // episodes that lost turns are raw again: the policy re-derives them
            emit({ type: 'messages-changed', conversationId: null });
            emit({ type: 'conversations-changed' });
          } else {
            // Stored answers were redacted: a chat on screen still holds their old metadata.
            if (options?.answers) emit({ type: 'messages-changed', conversationId: null });
            if (options?.conversations) emit({ type: 'conversations-changed' });
          }
          emit({ type: 'memory-changed' });
        },
      })
    : null;

  const carry = new MemoryCarry({
    saved,
    explorer,
    knowledge: deps.knowledge ?? null,
    clock,
    zone: () => settings.timeZone,
    apiKey: async () => (await deps.settings?.loadLlm())?.apiKey ?? null,
  });

  const summaries = new MemorySummaries({
    meta: store,
    source: deps.summarySource ?? null,
    // The general memory: everything but the chats of project-only projects.
    scope: async () => answerScopeOf(null, deps.projects ? await deps.projects.walledProjects() : []).scope,
    model: () => llm.endpointFirst,
    save: (text) => saved.add(text),
    clock,
    zone: () => settings.timeZone,
  });

  const syncSecrets = deps.settings;
  const sync =
    deps.sync && syncSecrets?.loadSyncPhrase && syncSecrets.saveSyncPhrase
      ? new LazySync({
          log: deps.sync.log,
          secrets: { loadSyncPhrase: () => syncSecrets.loadSyncPhrase!(), saveSyncPhrase: (phrase) => syncSecrets.saveSyncPhrase!(phrase) },
          relayFor: deps.sync.relayFor,
          ...(deps.sync.online ? { online: deps.sync.online } : {}),
          writes: syncWrites({
            store,
            settings,
            conversations,
            saved,
            knowledge: deps.knowledge ?? null,
            explorer: () => explorer,
            projects,
            emit,
            episodes: deps.sync.episodes ?? null,
            episodeWritten: (memcellId, write) => consolidator.writeEpisode(memcellId, write),
            themeWritten: (sceneId, theme) => consolidator.themeWritten(sceneId, theme),
            profiles: deps.sync.profiles ?? null,
            newId: makeId,
            profileDue: () => void consolidator.profileDue(),
          }),
          clock,
          timer,
          newId: makeId,
          onStatus: (status) => emit({ type: 'sync-status', status }),
        })
      : null;

  return {
    store,
    episodes: deps.episodes ?? null,
    jobs,
    timer,
    semantic,
    factIndex,
    cellIndex,
    llm,
    settings,
    indexer,
    lifecycle,
    consolidator,
    conversations,
    projects,
    history,
    trailing,
    foreground,
    upkeep,
    reader,
    answers,
    saved,
    carry,
    summaries,
    explorer,
    consolidationStatus,
    sync,
  };
}

/** `source` with every read counted as a foreground read (background writers wait for it). */
function foregroundAnswerSource(source: AnswerSource, foreground: ForegroundReads): AnswerSource {
  return {
    turns: (q, o) => foreground.run(() => source.turns(q, o)),
    facts: (q, o) => foreground.run(() => source.facts(q, o)),
    episodes: (q, o) => foreground.run(() => source.episodes(q, o)),
    episodesByIds: (ids, scope) => foreground.run(() => source.episodesByIds(ids, scope)),
    episodesOfTurns: (ids) => foreground.run(() => source.episodesOfTurns(ids)),
    sceneMembers: (ids, n, scope) => foreground.run(() => source.sceneMembers(ids, n, scope)),
    profile: (limit, scope) => foreground.run(() => source.profile(limit, scope)),
    foresight: (now, scope) => foreground.run(() => source.foresight(now, scope)),
    origins: (chats, cells) => foreground.run(() => source.origins(chats, cells)),
  };
}
