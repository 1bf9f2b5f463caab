/**
 * Settings → Sync's memory fingerprint hashes the whole synced memory (engine.sync.stateHash): it is
 * read only while the status says `synced`, never on the status events of a download, and a value
 * read before a sync is not shown once syncing starts.
 *
 * No DOM here: a QueryObserver stands for the mounted SyncFingerprint (each status event re-renders
 * it with the new status, which is observer.setOptions), and hooks.ts's own event handler runs first,
 * as in useEngineLifecycle. The rendered text is checked with renderToStaticMarkup.
 */
import { describe, expect, it, vi } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { QueryClient, QueryClientProvider, QueryObserver } from '@tanstack/react-query';
import { EngineContext, syncStatusChanged } from '../../src/app/hooks';
import { engineQueries, queryKeys } from '../../src/app/queries';
import type { EngineClient } from '../../src/app/engineClient';
import { FINGERPRINT_WHEN_SYNCED, SyncFingerprint } from '../../src/app/sync/SyncFingerprint';
import { useUi } from '../../src/app/uiStore';
import { SYNC_OFF, type SyncStatus } from '../../src/core/protocol/sync';

const HASH = '3f9a12c088be' + '0'.repeat(52);
const on: SyncStatus = { ...SYNC_OFF, relayUrl: 'http://127.0.0.1:4437', pending: 0 };
const synced: SyncStatus = { ...on, state: 'synced', lastSyncedAt: 1 };
const progress = (turns: number): SyncStatus => ({ ...on, state: 'syncing', progress: { turns, total: 10_000 } });

function setUp() {
  let state: SyncStatus['state'] = 'off';
  const reads: SyncStatus['state'][] = [];
  const stateHash = vi.fn(async () => {
    reads.push(state);
    return HASH;
  });
  const client = { engine: { sync: { stateHash } } } as unknown as EngineClient;
  const queries = engineQueries(client);
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  /** Settings → Sync open: the component's query, as useEngineQuery makes it. */
  const mount = (status: SyncStatus) => {
    const observer = new QueryObserver(queryClient, queries.syncFingerprint(status));
    const off = observer.subscribe(() => {});
    return { observer, off };
  };
  /** The engine sends a status: hooks.ts handles it, then the component re-renders with it. */
  const send = async (status: SyncStatus, shown?: ReturnType<typeof mount>) => {
    state = status.state;
    syncStatusChanged(queryClient, status);
    shown?.observer.setOptions(queries.syncFingerprint(status));
    await new Promise((r) => setTimeout(r, 0));
  };
  return { stateHash, reads, queryClient, mount, send };
}

describe('memory fingerprint', () => {
  it('is not read on the status events of a 10,000-turn download, and read again once synced', async () => {
    const { stateHash, reads, queryClient, mount, send } = setUp();
    await send(synced);
    const shown = mount(synced);
    await vi.waitFor(() => expect(queryClient.getQueryData(queryKeys.syncFingerprint)).toBe(HASH));
    expect(stateHash).toHaveBeenCalledTimes(1);

    for (let turns = 0; turns <= 10_000; turns += 100) await send(progress(turns), shown);
    expect(reads).not.toContain('syncing');
    expect(stateHash).toHaveBeenCalledTimes(1);
    // The value read before the download is gone: it no longer describes this memory.
    expect(queryClient.getQueryData(queryKeys.syncFingerprint)).toBeUndefined();

    await send(synced, shown);
    await vi.waitFor(() => expect(stateHash).toHaveBeenCalledTimes(2));
    expect(reads).toEqual(['synced', 'synced']);
    shown.off();
  });

  it('opened while syncing, waits for synced; offline and relay-unreachable do not read it either', async () => {
    const { stateHash, reads, mount, send } = setUp();
    await send(progress(10));
    const shown = mount(progress(10));
    await send(progress(20), shown);
    await send({ ...on, state: 'offline' }, shown);
    await send({ ...on, state: 'relay-unreachable', pending: 3 }, shown);
    await send({ ...on, state: 'syncing', pending: 3 }, shown);
    expect(stateHash).not.toHaveBeenCalled();
    await send(synced, shown);
    await vi.waitFor(() => expect(stateHash).toHaveBeenCalledTimes(1));
    expect(reads).toEqual(['synced']);
    shown.off();
  });

  it('shows the digits only while synced; while syncing it says when they will be shown', () => {
    const { queryClient } = setUp();
    useUi.setState({ ownership: 'owner' });
    const client = { engine: { sync: { stateHash: async () => HASH } } } as unknown as EngineClient;
    const render = (status: SyncStatus) =>
      renderToStaticMarkup(
        createElement(
          QueryClientProvider,
          { client: queryClient },
          createElement(EngineContext.Provider, { value: client }, createElement(SyncFingerprint, { status })),
        ),
      );
    queryClient.setQueryData(queryKeys.syncFingerprint, HASH);
    expect(render(synced)).toContain('<code data-testid="sync-fingerprint">3f9a 12c0 88be</code>');
    // Even with a value in the cache, none is shown while syncing.
    const syncing = render(progress(500));
    expect(syncing).not.toContain('sync-fingerprint"');
    expect(syncing).not.toContain('3f9a');
    expect(syncing).toContain(`Memory fingerprint: ${FINGERPRINT_WHEN_SYNCED}`);
  });
});
