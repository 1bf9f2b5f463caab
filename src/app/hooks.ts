/**
 * React bindings for the engine: react-query for engine data, invalidated by engine events.
 * Hooks hold no business logic; they call the engine and report errors as notices.
 */
import { createContext, useContext, useEffect } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import * as Comlink from 'comlink';
import type { DevicePreference, ModelProgress } from '../core/protocol';
import { saveDevicePreference } from './devicePreference';
import type { EngineClient } from './engineClient';
import { useUi } from './uiStore';
import type { NewTurn } from '../core/base/types';
import type { LlmSettingsInput } from '../core/base/settings';
import type { PolicyName } from '../core/episodes/consolidationPolicy';
import type { EngineApi } from '../core/protocol';
import type { MemCellQuery, MemorySearchFilters } from '../core/explorer/explorer';

export const EngineContext = createContext<EngineClient | null>(null);

export function useEngineClient(): EngineClient {
  const client = useContext(EngineContext);
  if (!client) throw new Error('EngineContext is missing');
  return client;
}

const keys = {
  conversations: ['conversations'] as const,
  messages: (id: string | null) => ['messages', id] as const,
  search: (q: string) => ['search', q] as const,
  stats: ['stats'] as const,
  embedding: ['embedding-status'] as const,
  models: ['models'] as const,
  modelStatus: ['model-status'] as const,
  llmSettings: ['llm-settings'] as const,
  consolidation: ['consolidation'] as const,
};

/** Becomes the database owner (or waits for it) and keeps cached queries in step with engine events. */
export function useEngineLifecycle(queryClient: QueryClient): void {
  const client = useEngineClient();
  const setOwnership = useUi((s) => s.setOwnership);
  useEffect(() => {
    let cancelled = false;
    const become = async (wait: boolean) => {
      const result = await client.acquire(wait);
      if (cancelled) return;
      if (result.state === 'owner') {
        setOwnership('owner');
        await queryClient.invalidateQueries();
      } else if (result.state === 'failed') {
        setOwnership('failed', result.error);
      } else {
        setOwnership('elsewhere');
        void become(true); // queue for the lock: this tab takes over when the other one closes
      }
    };
    const off = client.onEvent((event) => {
      switch (event.type) {
        case 'ownership-lost':
          setOwnership('elsewhere');
          queryClient.clear();
          void become(true);
          return;
        case 'database-replaced':
          void queryClient.invalidateQueries();
          return;
        case 'conversations-changed':
          void queryClient.invalidateQueries({ queryKey: keys.conversations });
          void queryClient.invalidateQueries({ queryKey: keys.stats });
          return;
        case 'settings-changed':
          void queryClient.invalidateQueries({ queryKey: keys.llmSettings });
          return;
        case 'memory-changed':
          void queryClient.invalidateQueries({ queryKey: keys.consolidation });
          void queryClient.invalidateQueries({ queryKey: ['explorer'] });
          return;
        case 'embedding-status':
          queryClient.setQueryData(keys.embedding, event.status);
          if (event.status.state === 'idle') void queryClient.invalidateQueries({ queryKey: ['vector-search'] });
          return;
        case 'messages-changed':
          void queryClient.invalidateQueries({ queryKey: ['messages'] });
          void queryClient.invalidateQueries({ queryKey: ['search'] });
          void queryClient.invalidateQueries({ queryKey: ['vector-search'] });
          void queryClient.invalidateQueries({ queryKey: keys.stats });
          void queryClient.invalidateQueries({ queryKey: ['explorer'] });
          return;
      }
    });
    void become(false);
    return () => {
      cancelled = true;
      off();
    };
  }, [client, queryClient, setOwnership]);
}

function useOwner(): boolean {
  return useUi((s) => s.ownership === 'owner');
}

export function useConversations() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: keys.conversations, queryFn: () => engine.listConversations(), enabled: useOwner() });
}

export function useMessages(conversationId: string | null) {
  const { engine } = useEngineClient();
  return useQuery({
    queryKey: keys.messages(conversationId),
    queryFn: () => (conversationId ? engine.listMessages(conversationId) : Promise.resolve([])),
    enabled: useOwner() && conversationId !== null,
  });
}

export function useSearch(text: string) {
  const { engine } = useEngineClient();
  const q = text.trim();
  return useQuery({ queryKey: keys.search(q), queryFn: () => engine.searchMessages(q, { limit: 30 }), enabled: useOwner() && q.length > 0 });
}

export function useStats() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: keys.stats, queryFn: () => engine.stats(), enabled: useOwner() });
}

function useReportError() {
  const notify = useUi((s) => s.notify);
  return (err: unknown) => notify('error', err instanceof Error ? err.message : String(err));
}

export function useCreateConversation() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (title: string) => engine.createConversation({ title }), onError: useReportError() });
}

export function useRenameConversation() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (v: { id: string; title: string }) => engine.renameConversation(v.id, v.title), onError: useReportError() });
}

export function useDeleteConversation() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (id: string) => engine.deleteConversation(id), onError: useReportError() });
}

export function useAppendTurn() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (turn: NewTurn) => engine.appendTurn(turn) });
}

export function useDeleteMessage() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (id: string) => engine.deleteMessage(id), onError: useReportError() });
}

export function useExportDatabase() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: () => engine.exportDatabase(), onError: useReportError() });
}

export function useImportDatabase() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (bytes: Uint8Array) => engine.importDatabase(bytes) });
}

export function useVectorSearch(text: string) {
  const { engine } = useEngineClient();
  const q = text.trim();
  return useQuery({ queryKey: ['vector-search', q], queryFn: () => engine.vectorSearch(q, { limit: 10 }), enabled: useOwner() && q.length > 0 });
}

export function useEmbeddingStatus() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: keys.embedding, queryFn: () => engine.embeddingStatus(), enabled: useOwner() });
}

export function useModelList() {
  const { models } = useEngineClient();
  return useQuery({ queryKey: keys.models, queryFn: () => models.listModels(), staleTime: 0 });
}

/** `pollMs`: refetch while mounted (models load lazily in their worker, which sends no events). */
export function useModelStatus(pollMs?: number) {
  const { models } = useEngineClient();
  return useQuery({ queryKey: keys.modelStatus, queryFn: () => models.status(), staleTime: 0, ...(pollMs ? { refetchInterval: pollMs } : {}) });
}

/** Where the embedder runs (auto, WebGPU, WASM): applied in the model worker and kept for this browser. */
export function useSetDevicePreference() {
  const { models } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (preference: DevicePreference) => {
      saveDevicePreference(preference);
      return models.setDevicePreference(preference);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.modelStatus }),
    onError: useReportError(),
  });
}

export function useSetEmbedder() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (modelId: string) => engine.setEmbedder(modelId), onError: useReportError() });
}

export function useSetReranker() {
  const { models } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (modelId: string | null) => models.loadReranker(modelId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.modelStatus }),
    onError: useReportError(),
  });
}

export function useDownloadModel(onProgress: (p: ModelProgress) => void) {
  const { models } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (modelId: string) => models.downloadModel(modelId, Comlink.proxy(onProgress)),
    onSuccess: (list) => queryClient.setQueryData(keys.models, list),
    onError: useReportError(),
  });
}

export function useLlmSettings() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: keys.llmSettings, queryFn: () => engine.llmSettings(), enabled: useOwner() });
}

export function useSaveLlmSettings() {
  const { engine } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: LlmSettingsInput) => engine.saveLlmSettings(input),
    onSuccess: (view) => {
      queryClient.setQueryData(keys.llmSettings, view);
      void queryClient.invalidateQueries({ queryKey: keys.consolidation });
    },
  });
}

export function useTestLlmConnection() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (input: LlmSettingsInput) => engine.testLlmConnection(input) });
}

export function useListLlmModels() {
  const { engine } = useEngineClient();
  return useMutation({ mutationFn: (input: LlmSettingsInput) => engine.listLlmModels(input) });
}

export function useConsolidationStatus() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: keys.consolidation, queryFn: () => engine.consolidationStatus(), enabled: useOwner(), refetchInterval: 5_000 });
}

export function useSetPolicy() {
  const { engine } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: PolicyName) => engine.setConsolidationPolicy(name),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.consolidation }),
    onError: useReportError(),
  });
}

export function useLlmUsage(since: number) {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['llm-usage', since], queryFn: () => engine.llmUsage(since), enabled: useOwner(), staleTime: 0 });
}

export function useSetLlmBoundaryCheck() {
  const { engine } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => engine.setLlmBoundaryCheck(enabled),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.consolidation }),
    onError: useReportError(),
  });
}

export function useTimeZone() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['time-zone'], queryFn: () => engine.timeZone(), enabled: useOwner() });
}

/** A zone name sets it; null follows the browser's zone again. */
export function useSetTimeZone() {
  const { engine } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (zone: string | null) => engine.setTimeZone(zone),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['time-zone'] }),
    onError: useReportError(),
  });
}

// ---- memory explorer ------------------------------------------------------------------------

export function useMemoryOverview() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['explorer', 'overview'], queryFn: () => engine.memoryOverview(), enabled: useOwner(), refetchInterval: 5_000 });
}

export function useMemorySearch(query: string, filters: MemorySearchFilters) {
  const { engine } = useEngineClient();
  const q = query.trim();
  return useQuery({ queryKey: ['explorer', 'search', q, filters], queryFn: () => engine.searchMemory(q, filters), enabled: useOwner() && q.length > 0 });
}

export function useMemCells(query: MemCellQuery) {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['explorer', 'memcells', query], queryFn: () => engine.listMemCells(query), enabled: useOwner(), placeholderData: (prev) => prev });
}

export function useMemCell(id: string | null) {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['explorer', 'memcell', id], queryFn: () => (id ? engine.memCell(id) : Promise.resolve(null)), enabled: useOwner() && id !== null });
}

export function useScenes() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['explorer', 'scenes'], queryFn: () => engine.listScenes(), enabled: useOwner() });
}

export function useSceneMap() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['explorer', 'scene-map'], queryFn: () => engine.sceneMap(), enabled: useOwner() });
}

export function useProfile() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['explorer', 'profile'], queryFn: () => engine.listProfile(), enabled: useOwner() });
}

export function useForesight() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['explorer', 'foresight'], queryFn: () => engine.listForesight(), enabled: useOwner() });
}

export function useForgetPreview(query: string) {
  const { engine } = useEngineClient();
  const q = query.trim();
  return useQuery({ queryKey: ['explorer', 'forget-preview', q], queryFn: () => engine.forgetPreview(q), enabled: useOwner() && q.length > 0 });
}

/** A mutation on memory; explorer queries refetch afterwards (the engine also emits memory-changed). */
export function useMemoryMutation<A, R>(run: (engine: EngineApi, args: A) => Promise<R>) {
  const { engine } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: A) => run(engine, args),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['explorer'] }),
    onError: useReportError(),
  });
}

export function useAnswerSettings() {
  const { engine } = useEngineClient();
  return useQuery({ queryKey: ['answer-settings'], queryFn: () => engine.answerSettings(), enabled: useOwner() });
}

export function useSetAnswerSettings() {
  const { engine } = useEngineClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (s: { budgetTokens?: number; sufficiencyCheck?: boolean }) => engine.setAnswerSettings(s),
    onSuccess: (v) => queryClient.setQueryData(['answer-settings'], v),
    onError: useReportError(),
  });
}
