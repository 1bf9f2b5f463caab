/**
 * React bindings for the engine: react-query for engine data (option factories and keys in
 * queries.ts), invalidated by engine events here. Hooks hold no business logic; they call the
 * engine and report errors as notices.
 */
import { createContext, useContext, useEffect, useMemo, useRef, useState } from 'react';
import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
  type UseQueryOptions,
} from '@tanstack/react-query';
import type { FactQuery, ForesightQuery, MemCellQuery } from '../core/explorer/explorer';
import * as Comlink from 'comlink';
import type { DevicePreference, ModelProgress } from '../core/protocol';
import type { SyncStatus } from '../core/protocol/sync';
import { saveDevicePreference } from './devicePreference';
import type { EngineClient } from './engineClient';
import { useUi } from './uiStore';
import { toErrorInfo } from '../core/base/errors';
import { engineQueries, queryKeys, type EngineQueries } from './queries';

export const EngineContext = createContext<EngineClient | null>(null);

export function useEngineClient(): EngineClient {
  const client = useContext(EngineContext);
  if (!client) throw new Error('EngineContext is missing');
  return client;
}

/** What a person is told when the model or device-LLM worker died (the likely cause: memory). */
export function workerStoppedNotice(worker: 'models' | 'device-llm', restarting: boolean): string {
  const what = worker === 'models' ? 'The model worker (search and embedding models)' : 'The model on this device';
  return restarting
    ? `${what} stopped unexpectedly; it may have run out of memory. Recollect restarted it. Anything that was waiting on it did not finish: try again. Everything already stored is safe; a message you had not sent is still in the message box.`
    : `${what} stopped several times in a row (it may not fit in this device's memory), so Recollect stopped restarting it. Everything already stored is safe. Choose a smaller model in Settings, or reload the page.`;
}

/**
 * A sync-status event: the status is set as sent. The fingerprint (SyncFingerprint.tsx) hashes the
 * whole synced memory, so it is read again only when a status says `synced`: a 10,000-turn download
 * sends a status per applied batch, and each would have rehashed the fold. Any other state drops
 * the value read before (it no longer describes this memory) without reading it again —
 * removeQueries, not resetQueries, which would refetch while the component's query is still enabled.
 */
export function syncStatusChanged(queryClient: QueryClient, status: SyncStatus): void {
  queryClient.setQueryData(queryKeys.syncStatus, status);
  if (status.state === 'synced') void queryClient.invalidateQueries({ queryKey: queryKeys.syncFingerprint });
  else queryClient.removeQueries({ queryKey: queryKeys.syncFingerprint });
}

/** Becomes the database owner (or waits for it) and keeps cached queries in step with engine events. */
export function useEngineLifecycle(queryClient: QueryClient): void {
  const client = useEngineClient();
  const setOwnership = useUi((s) => s.setOwnership);
  const notify = useUi((s) => s.notify);
  const setUpgrade = useUi((s) => s.setUpgrade);
  useEffect(() => {
    let cancelled = false;
    const become = async (wait: boolean) => {
      let result;
      try {
        // A temporary session restarted with its worker starts empty again: nothing was kept.
        result = await (useUi.getState().temporarySession ? client.openTemporary() : client.acquire(wait));
      } catch (err) {
        // The worker died while acquiring: 'engine-stopped' follows and a restarted worker tries again.
        if (toErrorInfo(err).code === 'ENGINE_STOPPED') return;
        throw err;
      }
      if (cancelled) return;
      if (result.state === 'owner') {
        setOwnership('owner', null, result.temporary === true);
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
        case 'memory-upgrade':
          setUpgrade(event.done < event.total ? { done: event.done, total: event.total } : null);
          return;
        case 'ownership-lost':
          setOwnership('elsewhere');
          queryClient.clear();
          void become(true);
          return;
        case 'engine-stopped':
          if (event.restarting) {
            setOwnership('connecting');
            notify(
              'error',
              useUi.getState().temporarySession
                ? // A temporary session lived in the worker that stopped: nothing of it is left to keep.
                  'The memory engine stopped unexpectedly and was restarted. This temporary session kept nothing, so it starts empty again; a message you had not sent is still in the message box.'
                : 'The memory engine stopped unexpectedly and was restarted. Everything already stored is safe; a message you had not sent is still in the message box.',
            );
          } else {
            setOwnership('failed', {
              code: 'ENGINE_STOPPED',
              message:
                'The memory engine stopped several times in a row, so Recollect stopped restarting it. Everything already stored is safe. Reload the page.',
            });
          }
          return;
        case 'engine-restarted':
          void become(false);
          return;
        case 'worker-stopped':
          notify('error', workerStoppedNotice(event.worker, event.restarting));
          // The model status (Settings → Models, the status line) is the new worker's now.
          void queryClient.invalidateQueries();
          return;
        case 'database-replaced':
          void queryClient.invalidateQueries();
          return;
        case 'conversations-changed':
          void queryClient.invalidateQueries({ queryKey: queryKeys.conversations });
          void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
          void queryClient.invalidateQueries({ queryKey: queryKeys.stats });
          return;
        case 'settings-changed':
          void queryClient.invalidateQueries({ queryKey: queryKeys.llmSettings });
          void queryClient.invalidateQueries({ queryKey: queryKeys.globalMemory });
          return;
        case 'sync-status':
          syncStatusChanged(queryClient, event.status);
          return;
        case 'memory-changed':
          void queryClient.invalidateQueries({ queryKey: queryKeys.consolidation });
          void queryClient.invalidateQueries({ queryKey: queryKeys.explorer });
          return;
        case 'indexing-status':
          queryClient.setQueryData(queryKeys.indexing, event.status);
          return;
        case 'embedding-status':
          queryClient.setQueryData(queryKeys.embedding, event.status);
          if (event.status.state === 'idle') void queryClient.invalidateQueries({ queryKey: queryKeys.allVectorSearch });
          // A failed switch may have removed a damaged download: the Models list offers Download again.
          if (event.status.error) void queryClient.invalidateQueries({ queryKey: queryKeys.models });
          return;
        case 'messages-changed':
          void queryClient.invalidateQueries({ queryKey: queryKeys.allMessages });
          void queryClient.invalidateQueries({ queryKey: queryKeys.allSearch });
          void queryClient.invalidateQueries({ queryKey: queryKeys.allVectorSearch });
          void queryClient.invalidateQueries({ queryKey: queryKeys.stats });
          void queryClient.invalidateQueries({ queryKey: queryKeys.explorer });
          return;
      }
    });
    void become(false);
    return () => {
      cancelled = true;
      off();
    };
  }, [client, queryClient, setOwnership, notify, setUpgrade]);
}

/**
 * Starts a session that keeps nothing (the memory in the engine worker's memory), offered when this
 * window cannot keep files at all (STORAGE_UNAVAILABLE: a Firefox private window).
 */
export function useStartTemporarySession(): () => Promise<void> {
  const client = useEngineClient();
  const queryClient = useQueryClient();
  const setOwnership = useUi((s) => s.setOwnership);
  return async () => {
    setOwnership('connecting');
    const result = await client.openTemporary();
    if (result.state === 'owner') {
      setOwnership('owner', null, true);
      await queryClient.invalidateQueries();
    } else {
      setOwnership('failed', result.state === 'failed' ? result.error : null);
    }
  };
}

function useOwner(): boolean {
  return useUi((s) => s.ownership === 'owner');
}

/**
 * Reads engine data: `useEngineQuery((q) => q.conversations())`. Database queries wait until this
 * tab owns the database (another tab may hold it); the model catalog does not.
 */
export function useEngineQuery<TQueryFnData, TData = TQueryFnData, TKey extends QueryKey = QueryKey>(
  pick: (q: EngineQueries) => UseQueryOptions<TQueryFnData, Error, TData, TKey>,
) {
  const client = useEngineClient();
  const owner = useOwner();
  const queries = useMemo(() => engineQueries(client), [client]);
  const options = pick(queries);
  const allowed = options.meta?.ownerFree === true || owner;
  return useQuery({ ...options, enabled: allowed && ((options.enabled as boolean | undefined) ?? true) });
}

export interface Answerer {
  /** False until the settings have been read: before that nothing may claim "no endpoint". */
  readonly known: boolean;
  /** An endpoint is set, or a model on this device is chosen (false while not known). */
  readonly configured: boolean;
  /** Reads the settings, waiting for the database if need be: for a message sent while it opens. */
  whenKnown(): Promise<boolean>;
}

/**
 * Whether anything can answer: the endpoint (its settings are read from the engine, so only once
 * this tab owns the database) or a model on this device. While the memory opens this is not known
 * yet — the "No AI endpoint is connected" banner once showed then, although one was set.
 */
export function useAnswerer(): Answerer {
  const client = useEngineClient();
  const queryClient = useQueryClient();
  const queries = useMemo(() => engineQueries(client), [client]);
  const settings = useEngineQuery((q) => q.llmSettings());
  const onDevice = useEngineQuery((q) => q.deviceChoice());
  return {
    known: settings.isSuccess && onDevice.isSuccess,
    configured: (settings.data?.configured ?? false) || (onDevice.data ?? null) !== null,
    whenKnown: async () => {
      const [saved, device] = await Promise.all([
        queryClient.ensureQueryData(queries.llmSettings()),
        queryClient.ensureQueryData(queries.deviceChoice()),
      ]);
      return saved.configured || device !== null;
    },
  };
}

/** The Episodes list, read in pages by cursor to its true end; gated like useEngineQuery. */
export function useMemCellPages(query: Omit<MemCellQuery, 'cursor'>) {
  const client = useEngineClient();
  const owner = useOwner();
  const queries = useMemo(() => engineQueries(client), [client]);
  return useInfiniteQuery({ ...queries.memCellPages(query), enabled: owner });
}

/** Facts, newest first, read in pages by cursor (Saved memories). */
export function useFactPages(query: Omit<FactQuery, 'cursor'>) {
  const client = useEngineClient();
  const owner = useOwner();
  const queries = useMemo(() => engineQueries(client), [client]);
  return useInfiniteQuery({ ...queries.factPages(query), enabled: owner });
}

/** Foresight in time order, read in pages by cursor (Foresight, Saved memories' plans ahead). */
export function useForesightPages(query: Omit<ForesightQuery, 'cursor'>) {
  const client = useEngineClient();
  const owner = useOwner();
  const queries = useMemo(() => engineQueries(client), [client]);
  return useInfiniteQuery({ ...queries.foresightPages(query), enabled: owner });
}

function useReportError() {
  const notify = useUi((s) => s.notify);
  return (err: unknown) => notify('error', err instanceof Error ? err.message : String(err));
}

export interface EngineMutationOptions<R> {
  /** Keys to refetch after success (the engine's events cover most; these make the UI immediate). */
  readonly invalidate?: readonly QueryKey[];
  readonly onSuccess?: (result: R, queryClient: QueryClient) => void;
  /** False: the caller shows the error itself (a form field, a dialog); default: a notice. */
  readonly report?: boolean;
}

/** Changes engine data: `useEngineMutation((c, id: string) => c.engine.deleteMessage(id))`. */
export function useEngineMutation<A, R>(run: (client: EngineClient, args: A) => Promise<R>, options: EngineMutationOptions<R> = {}) {
  const client = useEngineClient();
  const queryClient = useQueryClient();
  const report = useReportError();
  return useMutation({
    mutationFn: (args: A) => run(client, args),
    onSuccess: (result) => {
      for (const key of options.invalidate ?? []) void queryClient.invalidateQueries({ queryKey: key });
      options.onSuccess?.(result, queryClient);
    },
    ...(options.report === false ? {} : { onError: report }),
  });
}

/** A mutation on memory; explorer views refetch afterwards (the engine also emits memory-changed). */
export function useMemoryMutation<A, R>(run: (engine: EngineClient['engine'], args: A) => Promise<R>) {
  return useEngineMutation((c, args: A) => run(c.engine, args), { invalidate: [queryKeys.explorer] });
}

// Named for the import/export controls (DataActions), which other work also edits.
export const useStats = () => useEngineQuery((q) => q.stats());
export const useExportDatabase = () => useEngineMutation((c, _: void) => c.engine.data.exportDatabase());
export const useImportDatabase = () => useEngineMutation((c, bytes: Uint8Array) => c.engine.data.importDatabase(bytes), { report: false });

/**
 * A model download from Settings → Models: progress, cancel, and why the last one stopped. The
 * list is refetched whatever the outcome, so a download that stopped part-way shows as one to
 * finish (its whole files stay cached).
 */
export function useModelDownload() {
  const client = useEngineClient();
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<ModelProgress | null>(null);
  const [stopped, setStopped] = useState<{ readonly modelId: string; readonly message: string; readonly cancelled: boolean } | null>(null);
  const [modelId, setModelId] = useState<string | null>(null);
  const cancelled = useRef(false);
  const start = async (id: string) => {
    cancelled.current = false;
    setStopped(null);
    setProgress(null);
    setModelId(id);
    try {
      queryClient.setQueryData(queryKeys.models, await client.models.downloadModel(id, Comlink.proxy(setProgress)));
    } catch (err) {
      setStopped({ modelId: id, message: toErrorInfo(err).message, cancelled: cancelled.current });
      await queryClient.invalidateQueries({ queryKey: queryKeys.models });
    } finally {
      setModelId(null);
      setProgress(null);
    }
  };
  const cancel = () => {
    cancelled.current = true;
    void client.models.cancelDownload();
  };
  return { modelId, progress, stopped, start, cancel };
}

/** `pollMs`: refetch while mounted (models load lazily in their worker, which sends no events). */
export const useModelStatus = (pollMs?: number) => useEngineQuery((q) => q.modelStatus(pollMs));

/** Where the embedder runs (auto, WebGPU, WASM): applied in the model worker and kept for this browser. */
export function useSetDevicePreference() {
  return useEngineMutation(
    async (c, preference: DevicePreference) => {
      saveDevicePreference(preference);
      return c.models.setDevicePreference(preference);
    },
    { invalidate: [queryKeys.modelStatus] },
  );
}
