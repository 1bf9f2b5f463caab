/**
 * Every engine query of the UI in one place: its key and how to fetch it (react-query option
 * factories, the pattern TanStack recommends). Components read through `useEngineQuery(q => q.x())`,
 * and the event → invalidation table in hooks.ts names the same keys, so a key cannot drift between
 * the reader and the invalidator. Keys are hierarchical: invalidating ['explorer'] refetches every
 * explorer view.
 */
import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { EngineClient } from './engineClient';
import type { FactQuery, ForesightQuery, MemCellQuery, MemorySearchFilters, ProjectFilter } from '../core/explorer/explorer';
import type { SyncStatus } from '../core/protocol/sync';

export const queryKeys = {
  conversations: ['conversations'] as const,
  projects: ['projects'] as const,
  messages: (id: string | null) => ['messages', id] as const,
  messageWindow: (id: string, limit: number, around: string | null) => ['messages', id, 'window', limit, around] as const,
  allMessages: ['messages'] as const,
  // Under ['messages', id]: every invalidation of a conversation's turns refetches its versions too.
  turnVersions: (id: string) => ['messages', id, 'versions'] as const,
  search: (q: string, project?: string | null) => ['search', q, project === undefined ? 'all' : project] as const,
  allSearch: ['search'] as const,
  vectorSearch: (q: string) => ['vector-search', q] as const,
  allVectorSearch: ['vector-search'] as const,
  stats: ['stats'] as const,
  writingLanguage: ['writing-language'] as const,
  embedding: ['embedding-status'] as const,
  indexing: ['indexing-status'] as const,
  models: ['models'] as const,
  modelStatus: ['model-status'] as const,
  llmSettings: ['llm-settings'] as const,
  endpointModels: (baseUrl: string) => ['llm-settings', 'models', baseUrl] as const,
  deviceModels: ['device-llm', 'models'] as const,
  deviceStatus: ['device-llm', 'status'] as const,
  deviceChoice: ['device-llm', 'choice'] as const,
  builtIn: ['device-llm', 'built-in'] as const,
  consolidation: ['consolidation'] as const,
  synthesisFailures: ['consolidation', 'failures'] as const,
  timeZone: ['time-zone'] as const,
  llmUsage: (since: number) => ['llm-usage', since] as const,
  answerSettings: ['answer-settings'] as const,
  memoryDefaults: ['memory-defaults'] as const,
  globalMemory: ['global-memory'] as const,
  syncStatus: ['sync-status'] as const,
  syncFingerprint: ['sync-fingerprint'] as const,
  factPages: (query: Omit<FactQuery, 'cursor'>) => ['explorer', 'fact-pages', query] as const,
  explorer: ['explorer'] as const,
  overview: ['explorer', 'overview'] as const,
  conversationCounts: (id: string) => ['explorer', 'conversation-counts', id] as const,
  memorySearch: (q: string, filters: MemorySearchFilters) => ['explorer', 'search', q, filters] as const,
  memCells: (query: MemCellQuery) => ['explorer', 'memcells', query] as const,
  memCellPages: (query: Omit<MemCellQuery, 'cursor'>) => ['explorer', 'memcell-pages', query] as const,
  timelineCells: (from: number, to: number, project?: ProjectFilter) => ['explorer', 'timeline', from, to, project ?? 'all'] as const,
  memCell: (id: string | null) => ['explorer', 'memcell', id] as const,
  scenes: ['explorer', 'scenes'] as const,
  sceneMap: ['explorer', 'scene-map'] as const,
  profile: ['explorer', 'profile'] as const,
  foresightPages: (query: Omit<ForesightQuery, 'cursor'>) => ['explorer', 'foresight-pages', query] as const,
  foresightAll: (query: Omit<ForesightQuery, 'cursor' | 'limit'>) => ['explorer', 'foresight-all', query] as const,
  forgetPreview: (q: string, project?: ProjectFilter) =>
    ['explorer', 'forget-preview', q, project === undefined ? 'all' : project] as const,
  savedMemories: (q: string) => ['explorer', 'saved', q] as const,
  messageMemories: ['explorer', 'from-messages'] as const,
  memorySummary: ['explorer', 'summary'] as const,
};

/** The query option factories over one engine client. */
export function engineQueries(client: EngineClient) {
  const { engine, models } = client;
  return {
    // Models on this device live in their own worker and the page: no database, no owner gate.
    deviceModels: () =>
      queryOptions({
        queryKey: queryKeys.deviceModels,
        queryFn: () => client.deviceLlm().listModels(),
        staleTime: 0,
        meta: { ownerFree: true },
      }),
    deviceStatus: (pollMs?: number) =>
      queryOptions({
        queryKey: queryKeys.deviceStatus,
        queryFn: () => client.deviceLlm().status(),
        staleTime: 0,
        meta: { ownerFree: true },
        ...(pollMs ? { refetchInterval: pollMs } : {}),
      }),
    deviceChoice: () =>
      queryOptions({ queryKey: queryKeys.deviceChoice, queryFn: () => client.deviceChoice(), staleTime: 0, meta: { ownerFree: true } }),
    builtIn: () => queryOptions({ queryKey: queryKeys.builtIn, queryFn: () => client.builtInAvailability(), meta: { ownerFree: true } }),
    conversations: () => queryOptions({ queryKey: queryKeys.conversations, queryFn: () => engine.conversations.list() }),
    projects: () => queryOptions({ queryKey: queryKeys.projects, queryFn: () => engine.projects.list() }),
    // The previous window stays on screen while a larger one or one around a turn is read.
    messageWindow: (id: string, limit: number, around: string | null = null) =>
      queryOptions({
        queryKey: queryKeys.messageWindow(id, limit, around),
        queryFn: () => engine.conversations.messageWindow(id, { limit, ...(around ? { around } : {}) }),
        placeholderData: keepPreviousData,
      }),
    turnVersions: (id: string) =>
      queryOptions({
        queryKey: queryKeys.turnVersions(id),
        queryFn: () => engine.conversations.versions(id),
        placeholderData: keepPreviousData,
      }),
    /** `project`: only that project's chats (null: chats in no project); absent: all. */
    search: (q: string, project?: string | null) =>
      queryOptions({
        queryKey: queryKeys.search(q, project),
        queryFn: () => engine.conversations.search(q, { limit: 30, ...(project !== undefined ? { project } : {}) }),
        enabled: q.length > 0,
      }),
    vectorSearch: (q: string) =>
      queryOptions({
        queryKey: queryKeys.vectorSearch(q),
        queryFn: () => engine.answers.vectorSearch(q, { limit: 10 }),
        enabled: q.length > 0,
      }),
    stats: () => queryOptions({ queryKey: queryKeys.stats, queryFn: () => engine.data.stats() }),
    writingLanguage: () =>
      queryOptions({ queryKey: queryKeys.writingLanguage, queryFn: () => engine.conversations.writingLanguage(), staleTime: 0 }),
    embedding: () => queryOptions({ queryKey: queryKeys.embedding, queryFn: () => engine.indexing.embeddingStatus() }),
    // Events bring most updates; the episodes that follow the vectors send none when they finish, so
    // while it runs the status is also read every 2 s.
    indexing: () =>
      queryOptions({
        queryKey: queryKeys.indexing,
        queryFn: () => engine.indexing.status(),
        refetchInterval: (q) => (q.state.data?.state === 'running' ? 2_000 : false),
      }),
    // The model catalog lives in the model worker, which needs no database: no owner gate.
    models: () => queryOptions({ queryKey: queryKeys.models, queryFn: () => models.listModels(), staleTime: 0, meta: { ownerFree: true } }),
    modelStatus: (pollMs?: number) =>
      queryOptions({
        queryKey: queryKeys.modelStatus,
        queryFn: () => models.status(),
        staleTime: 0,
        meta: { ownerFree: true },
        ...(pollMs ? { refetchInterval: pollMs } : {}),
      }),
    llmSettings: () => queryOptions({ queryKey: queryKeys.llmSettings, queryFn: () => engine.settings.llm() }),
    // The saved endpoint's model list (its key is used, never sent to the page); a failure leaves typing a name.
    endpointModels: (saved: { readonly baseUrl: string; readonly model: string } | undefined) =>
      queryOptions({
        queryKey: queryKeys.endpointModels(saved?.baseUrl ?? ''),
        queryFn: () => engine.settings.llmModels({ baseUrl: saved!.baseUrl, model: saved!.model }),
        enabled: !!saved?.baseUrl,
        staleTime: 5 * 60_000,
        retry: false,
      }),
    timeZone: () => queryOptions({ queryKey: queryKeys.timeZone, queryFn: () => engine.settings.timeZone() }),
    consolidation: () =>
      queryOptions({ queryKey: queryKeys.consolidation, queryFn: () => engine.synthesis.status(), refetchInterval: 5_000 }),
    // memory-changed refetches it (a job failed, work came back); the interval catches a check's verdict.
    synthesisFailures: () =>
      queryOptions({ queryKey: queryKeys.synthesisFailures, queryFn: () => engine.synthesis.failures(), refetchInterval: 30_000 }),
    llmUsage: (since: number) =>
      queryOptions({ queryKey: queryKeys.llmUsage(since), queryFn: () => engine.settings.llmUsage(since), staleTime: 0 }),
    answerSettings: () => queryOptions({ queryKey: queryKeys.answerSettings, queryFn: () => engine.settings.answerSettings() }),
    // The memory switches of each conversation travel with it in conversations(); these are the defaults for new ones.
    globalMemory: () => queryOptions({ queryKey: queryKeys.globalMemory, queryFn: () => engine.settings.globalMemory() }),
    // Kept current by the engine's sync-status events (hooks.ts); read once when first shown.
    syncStatus: () => queryOptions({ queryKey: queryKeys.syncStatus, queryFn: () => engine.sync.status(), staleTime: Infinity }),
    // A hash over the whole synced memory: read only while `synced` (never during a download), again on
    // each sync-status event that says `synced` while shown (hooks.ts syncStatusChanged).
    syncFingerprint: (status: SyncStatus) =>
      queryOptions({
        queryKey: queryKeys.syncFingerprint,
        queryFn: () => engine.sync.stateHash(),
        enabled: status.state === 'synced',
      }),
    factPages: (query: Omit<FactQuery, 'cursor'>) =>
      infiniteQueryOptions({
        queryKey: queryKeys.factPages(query),
        queryFn: ({ pageParam }) => engine.memory.listFacts({ ...query, cursor: pageParam }),
        initialPageParam: null as string | null,
        getNextPageParam: (last) => last.nextCursor,
      }),
    memoryDefaults: () => queryOptions({ queryKey: queryKeys.memoryDefaults, queryFn: () => engine.settings.memoryDefaults() }),
    overview: () => queryOptions({ queryKey: queryKeys.overview, queryFn: () => engine.memory.overview(), refetchInterval: 5_000 }),
    conversationCounts: (id: string) =>
      queryOptions({ queryKey: queryKeys.conversationCounts(id), queryFn: () => engine.memory.conversationCounts(id) }),
    memorySearch: (q: string, filters: MemorySearchFilters) =>
      queryOptions({
        queryKey: queryKeys.memorySearch(q, filters),
        queryFn: () => engine.memory.search(q, filters),
        enabled: q.length > 0,
      }),
    memCells: (query: MemCellQuery) =>
      queryOptions({
        queryKey: queryKeys.memCells(query),
        queryFn: () => engine.memory.listMemCells(query),
        placeholderData: (prev) => prev,
      }),
    // Every list pages by cursor to its true end: react-query keeps the pages, the list asks for the next.
    memCellPages: (query: Omit<MemCellQuery, 'cursor'>) =>
      infiniteQueryOptions({
        queryKey: queryKeys.memCellPages(query),
        queryFn: ({ pageParam }) => engine.memory.listMemCells({ ...query, cursor: pageParam }),
        initialPageParam: null as string | null,
        getNextPageParam: (last) => last.nextCursor,
      }),
    // The timeline's window, all of it (a window is bounded; each request returns up to 500).
    timelineCells: (from: number, to: number, project?: ProjectFilter) =>
      queryOptions({
        queryKey: queryKeys.timelineCells(from, to, project),
        queryFn: async () => {
          const items = [];
          let cursor: string | null = null;
          do {
            const page = await engine.memory.listMemCells({
              limit: 500,
              from,
              to,
              order: 'asc',
              cursor,
              ...(project !== undefined ? { project } : {}),
            });
            items.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          return items;
        },
        placeholderData: (prev) => prev,
      }),
    memCell: (id: string | null) =>
      queryOptions({
        queryKey: queryKeys.memCell(id),
        queryFn: () => (id ? engine.memory.memCell(id) : Promise.resolve(null)),
        enabled: id !== null,
      }),
    scenes: () => queryOptions({ queryKey: queryKeys.scenes, queryFn: () => engine.memory.listScenes() }),
    sceneMap: () => queryOptions({ queryKey: queryKeys.sceneMap, queryFn: () => engine.memory.sceneMap() }),
    profile: () => queryOptions({ queryKey: queryKeys.profile, queryFn: () => engine.profile.list() }),
    /** Memories saved from messages that asked for them: the chat's notice under each. */
    messageMemories: () => queryOptions({ queryKey: queryKeys.messageMemories, queryFn: () => engine.profile.fromMessages() }),
    /** The kept memory summary (no model call) and whether it is stale. */
    memorySummary: () => queryOptions({ queryKey: queryKeys.memorySummary, queryFn: () => engine.profile.summary() }),
    foresightPages: (query: Omit<ForesightQuery, 'cursor'>) =>
      infiniteQueryOptions({
        queryKey: queryKeys.foresightPages(query),
        queryFn: ({ pageParam }) => engine.plans.page({ ...query, cursor: pageParam }),
        initialPageParam: null as string | null,
        getNextPageParam: (last) => last.nextCursor,
      }),
    // Every page to the end, for a picture that needs all its points (the plans of a timeline
    // window, bounded by the window like its episodes) or a confirmation that counts them all.
    foresightAll: (query: Omit<ForesightQuery, 'cursor' | 'limit'>) =>
      queryOptions({
        queryKey: queryKeys.foresightAll(query),
        queryFn: async () => {
          const items = [];
          let cursor: string | null = null;
          do {
            const page = await engine.plans.page({ ...query, limit: 500, cursor });
            items.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          return items;
        },
        placeholderData: (prev) => prev,
      }),
    forgetPreview: (q: string, filter: { readonly project?: ProjectFilter } = {}) =>
      queryOptions({
        queryKey: queryKeys.forgetPreview(q, filter.project),
        queryFn: () => engine.memory.forgetPreview(q, filter),
        enabled: q.length > 0,
      }),
  };
}

export type EngineQueries = ReturnType<typeof engineQueries>;
