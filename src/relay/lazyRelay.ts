/**
 * A SyncRelay that loads the Durable Streams client on first use, so a device with sync off (the
 * default) never loads it: the engine worker's start-up reads no more code than before.
 */
import type { SealedEvent } from '../core/sync/syncEnvelope';
import type { RelayBatch, SyncRelay } from '../core/sync/syncPorts';

export function lazyRelay(relayUrl: string): SyncRelay {
  let loaded: Promise<SyncRelay> | null = null;
  const relay = () => (loaded ??= import('./durableStreamsRelay').then((m) => new m.DurableStreamsRelay(relayUrl)));
  return {
    ensure: async (ownerId: string) => (await relay()).ensure(ownerId),
    append: async (ownerId: string, producerId: string, items: readonly SealedEvent[]) =>
      (await relay()).append(ownerId, producerId, items),
    read: async (ownerId: string, offset: string | null) => (await relay()).read(ownerId, offset),
    retire: async (ownerId: string) => (await relay()).retire(ownerId),
    retired: async (ownerId: string) => (await relay()).retired(ownerId),
    wait(ownerId: string, offset: string | null) {
      let cancel: (() => void) | null = null;
      let cancelled = false;
      const result = relay().then((r): Promise<RelayBatch> => {
        if (cancelled) return Promise.resolve({ items: [], offset: offset ?? '-1' });
        const w = r.wait(ownerId, offset);
        cancel = w.cancel;
        return w.result;
      });
      return {
        result,
        cancel: () => {
          cancelled = true;
          cancel?.();
        },
      };
    },
  };
}
