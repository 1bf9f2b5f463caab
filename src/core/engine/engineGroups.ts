/**
 * The groups of the engine's API (src/core/protocol/*.ts), each built over the engine's parts:
 * mostly a line per method handing the call to the part that does the work (Conversations,
 * Projects, ExplorerService, EngineSettings, AnswerService, the indexer). What needs the engine's
 * own state (the hold on background reads after open, the saved endpoint read at start, events,
 * the restart after an import) comes in as `EngineHooks`.
 */
import { dominantLanguage, LANGUAGE_NAMES, type WritingLanguage } from '../base/language';
import { RecollectError } from '../base/errors';
import type { ImportSummary } from '../base/types';
import type { EngineEvent } from '../protocol';
import type { AnswersApi } from '../protocol/answers';
import type { ConversationsApi } from '../protocol/conversations';
import type { DataApi } from '../protocol/data';
import type { IndexingApi } from '../protocol/indexing';
import type { MemoryApi } from '../protocol/memory';
import type { PlansApi } from '../protocol/plans';
import type { ProfileApi } from '../protocol/profile';
import type { ProjectsApi } from '../protocol/projects';
import type { SettingsApi } from '../protocol/settings';
import type { SynthesisApi } from '../protocol/synthesis';
import type { SyncApi } from '../protocol/sync';
import { SYNC_OFF } from '../protocol/sync';
import type { ExplorerService } from '../explorer/ExplorerService';
import { nearestTurns } from '../recall/nearestTurns';
import type { EngineParts } from './assembleEngine';
import { readGlobalMemory, writeGlobalMemory } from './globalMemory';

export interface EngineHooks {
  /** Ends the open's hold on background reads (a search or an answer came). */
  releaseHold(): void;
  /** Resolves once the saved endpoint is read (answers wait for it). */
  llmReady(): Promise<void>;
  /** Resolves once the indexer knows its models (searches by meaning wait for it). */
  indexerReady(): Promise<void>;
  /** Resolves once the settings kept in the database are read (a zone asked for at open waits for the user's). */
  settingsReady(): Promise<void>;
  emit(event: EngineEvent): void;
  /** Replaces the memory with a file, all or nothing (MemoryEngine.importDatabase). */
  importDatabase(bytes: Uint8Array): Promise<ImportSummary>;
}

function explorer(p: EngineParts): ExplorerService {
  if (!p.explorer) throw new RecollectError('INTERNAL', 'This engine was built without the memory explorer.');
  return p.explorer;
}

export function conversationsGroup(p: EngineParts): ConversationsApi {
  const c = p.conversations;
  return {
    create: (input) => c.create(input),
    list: () => c.list(),
    rename: (id, title) => c.rename(id, title),
    delete: (id) => c.delete(id),
    setMemory: (id, patch) => c.setMemory(id, patch),
    place: (id, patch) => c.place(id, patch),
    setModel: (id, model) => c.setModel(id, model),
    appendTurn: (turn) => c.appendOne(turn),
    appendTurns: (turns) => c.append(turns),
    send: (request) => c.send(request),
    versions: (conversationId) => c.versions.list(conversationId),
    showVersion: (conversationId, afterId, version) => c.versions.show(conversationId, afterId, version),
    regenerate: (answerId) => c.versions.regenerate(answerId),
    messages: (conversationId) => c.messages(conversationId),
    messageWindow: (conversationId, request) => c.messageWindow(conversationId, request),
    deleteMessage: (id) => c.deleteMessage(id),
    search: (query, options) => p.foreground.run(() => p.store.searchMessages(query, options)),
    /** The language of the user's recent turns (up to 200, newest conversations first). */
    async writingLanguage(): Promise<WritingLanguage | null> {
      const texts: string[] = [];
      for (const conversation of await p.store.listConversations()) {
        const mine = (await p.store.listMessages(conversation.id)).filter((m) => m.role === 'user');
        texts.push(...mine.slice(-200 + texts.length).map((m) => m.content));
        if (texts.length >= 200) break;
      }
      const found = dominantLanguage(texts);
      return found ? { language: found.language, name: LANGUAGE_NAMES[found.language], share: found.share, turns: texts.length } : null;
    },
  };
}

export function projectsGroup(p: EngineParts): ProjectsApi {
  const projects = () => {
    if (!p.projects) throw new RecollectError('INVALID_INPUT', 'Projects are not available here.');
    return p.projects;
  };
  return {
    list: async () => (p.projects ? p.projects.list() : []),
    create: (input) => projects().create(input),
    edit: (id, patch) => projects().edit(id, patch),
    delete: (id, chats) => projects().delete(id, chats),
    move: (conversationId, projectId) => projects().move(conversationId, projectId),
  };
}

export function answersGroup(p: EngineParts, hooks: EngineHooks): AnswersApi {
  return {
    async ask(request, onEvent) {
      // The saved endpoint is read at start: an answer asked at once (a restarted engine's "Try
      // again") would otherwise find no endpoint and fail with "not configured".
      await hooks.llmReady().catch(() => undefined);
      return p.answers.ask(request, onEvent).finally(() => hooks.releaseHold());
    },
    stop: (answerId) => p.answers.stop(answerId),
    async recall(query, options = {}) {
      if (!p.reader) throw new RecollectError('INTERNAL', 'This engine was built without a retrieval source.');
      const reader = p.reader;
      try {
        return await p.foreground.run(() => reader.recall(query, options));
      } finally {
        hooks.releaseHold();
      }
    },
    async vectorSearch(query, options = {}) {
      if (!p.indexer)
        throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected, so search by meaning is unavailable.');
      await hooks.indexerReady().catch(() => undefined);
      return nearestTurns({ embedder: p.indexer.activeEmbedder(), index: p.semantic, store: p.store }, query, options);
    },
  };
}

export function memoryGroup(p: EngineParts): MemoryApi {
  const ex = () => explorer(p);
  return {
    overview: () => ex().memoryOverview(),
    conversationCounts: (conversationId) => ex().conversationMemoryCounts(conversationId),
    search: (query, filters) => ex().searchMemory(query, filters),
    listMemCells: (query) => ex().listMemCells(query),
    memCell: (id) => ex().memCell(id),
    editMemCell: (id, patch) => ex().editMemCell(id, patch),
    deleteMemCell: (id, options) => ex().deleteMemCell(id, options),
    resynthesiseMemCell: (id) => ex().resynthesiseMemCell(id),
    listFacts: (query) => ex().listFacts(query),
    editFact: (id, patch) => ex().editFact(id, patch),
    deleteFact: (id) => ex().deleteFact(id),
    listScenes: () => ex().listScenes(),
    sceneMap: () => ex().sceneMap(),
    renameScene: (id, title) => ex().renameScene(id, title),
    mergeScenes: (targetId, sourceIds) => ex().mergeScenes(targetId, sourceIds),
    splitScene: (sceneId, memcellIds, title) => ex().splitScene(sceneId, memcellIds, title),
    forgetPreview: (query, filter) => ex().forgetPreview(query, filter),
    forget: (items, about) => ex().forget(items, about),
  };
}

export function profileGroup(p: EngineParts): ProfileApi {
  const ex = () => explorer(p);
  return {
    list: () => ex().listProfile(),
    edit: async (id, value) => {
      await ex().editProfileItem(id, value);
      p.sync?.noteMemory(id);
    },
    pin: (id, pinned) => ex().pinProfileItem(id, pinned),
    resolveConflict: (id, choice) => ex().resolveProfileConflict(id, choice),
    delete: async (id) => {
      await ex().deleteProfileItem(id);
      p.sync?.noteMemory(id);
    },
    async addMemory(text) {
      const item = await p.saved.add(text);
      p.sync?.noteMemory(item.id);
      return item;
    },
    fromMessages: () => p.saved.fromMessages(),
    knownMemories: (texts) => p.carry.known(texts),
    importMemories: async (request) => {
      const result = await p.carry.import(request);
      p.sync?.noteSweep();
      return result;
    },
    exportMemories: (format) => p.carry.export(format),
    summary: () => p.summaries.view(),
    makeSummary: () => p.summaries.make(),
    editSummarySentence: (ref, text) => p.summaries.editSentence(ref, text),
  };
}

export function plansGroup(p: EngineParts): PlansApi {
  const ex = () => explorer(p);
  return {
    list: () => ex().listForesight(),
    page: (query) => ex().listForesightPage(query),
    edit: (id, patch) => ex().editForesight(id, patch),
    dismiss: (id) => ex().dismissForesight(id),
  };
}

export function synthesisGroup(p: EngineParts): SynthesisApi {
  return {
    status: () => p.consolidationStatus(),
    failures: () => p.consolidator.failures(),
    retryFailed: () => p.consolidator.retryFailed(),
    policy: async () => p.settings.policy,
    setPolicy: (name) => settingNoted(p, p.settings.setPolicy(name)),
    setBoundaryCheck: (enabled) => settingNoted(p, p.settings.setLlmBoundaryCheck(enabled)),
  };
}

export function indexingGroup(p: EngineParts): IndexingApi {
  return {
    embeddingStatus: async () => p.indexer?.status() ?? null,
    status: () => p.trailing.status(),
    /** Switches the embedder; everything is re-embedded in the background with progress events. */
    async setEmbedder(modelId) {
      if (!p.indexer) throw new RecollectError('MODEL_UNAVAILABLE', 'No embedding model is connected.');
      return p.indexer.setTarget(modelId);
    },
  };
}

export function dataGroup(p: EngineParts, hooks: EngineHooks): DataApi {
  const history = () => {
    if (!p.history) throw new RecollectError('INVALID_INPUT', 'Importing chat history is not available here.');
    return p.history;
  };
  return {
    stats: () => p.store.stats(),
    exportDatabase: () => p.store.exportDatabase(),
    importDatabase: (bytes) => hooks.importDatabase(bytes),
    scanHistory: (file, request, onProgress) => history().scan(file, request, onProgress),
    importHistory(file, request, onProgress) {
      const imports = history();
      return p.trailing.during(() => imports.import(file, request, onProgress));
    },
    cancelHistoryImport: async (importId) => p.history?.cancel(importId),
  };
}

/** A settings change that sync follows (syncWrites.ts SYNCED_SETTINGS): noted once it is written. */
async function settingNoted<T>(p: EngineParts, write: Promise<T>): Promise<T> {
  const result = await write;
  p.sync?.noteSettings();
  return result;
}

export function settingsGroup(p: EngineParts, hooks: EngineHooks): SettingsApi {
  const s = p.settings;
  return {
    memoryDefaults: () => p.conversations.memoryDefaults(),
    setMemoryDefaults: (patch) => settingNoted(p, p.conversations.setMemoryDefaults(patch)),
    /** "Use saved memories" and "use chat history" for every answer (globalMemory.ts). */
    globalMemory: () => readGlobalMemory(p.store),
    async setGlobalMemory(patch) {
      const after = await writeGlobalMemory(p.store, patch);
      p.sync?.noteSettings();
      hooks.emit({ type: 'settings-changed' });
      return after;
    },
    // The sidebar's date groups ask at open, before start has read the user's zone: answering
    // then would cache the browser's zone in the page (Settings showed it after a reload).
    timeZone: async () => {
      await hooks.settingsReady().catch(() => undefined);
      return s.timeZoneSetting();
    },
    setTimeZone: (zone) => s.setTimeZone(zone),
    answerSettings: () => s.answerSettings(),
    setAnswerSettings: (settings) => settingNoted(p, s.setAnswerSettings(settings)),
    llm: () => s.llmSettings(),
    saveLlm: async (input) => {
      const view = await s.saveLlmSettings(input);
      p.sync?.noteEndpoint();
      return view;
    },
    testLlm: (input) => s.testLlmConnection(input),
    llmModels: (input) => s.listLlmModels(input),
    llmUsage: (since) => s.llmUsage(since),
  };
}

export function syncGroup(p: EngineParts): SyncApi {
  const sync = () => {
    if (!p.sync) throw new RecollectError('INVALID_INPUT', 'Sync is not available in this build.');
    return p.sync;
  };
  return {
    enable: (request) => sync().enable(request?.relayUrl),
    join: (request) => sync().join(request?.phrase, request?.relayUrl),
    leave: () => sync().leave(),
    removeFromRelay: () => sync().removeFromRelay(),
    shareEndpoint: (on) => sync().shareEndpoint(on),
    status: async () => p.sync?.status() ?? SYNC_OFF,
    syncNow: async () => (p.sync ? p.sync.syncNow() : SYNC_OFF),
    stateHash: async () => p.sync?.stateHash() ?? null,
  };
}
