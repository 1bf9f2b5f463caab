/**
 * Sync's code loads only when sync is used (core/engine/lazySync.ts): with no phrase kept, the
 * engine's start reads one setting and loads nothing; a kept phrase, turning sync on, or joining
 * loads the service once. The loader is counted, so a facade that imports eagerly fails here.
 */
import { describe, expect, it } from 'vitest';
import { LazySync } from '../../src/core/engine/lazySync';
import type { SyncServiceDeps } from '../../src/core/engine/SyncService';
import { SYNC_OFF, type SyncStatus } from '../../src/core/protocol/sync';

function setup(phrase: string | null) {
  const loads: string[] = [];
  const calls: string[] = [];
  const statuses: SyncStatus[] = [];
  const deps = {
    secrets: { loadSyncPhrase: async () => phrase, saveSyncPhrase: async () => undefined },
    onStatus: (s: SyncStatus) => statuses.push(s),
  } as unknown as SyncServiceDeps;
  class FakeService {
    on = false;
    async start() {
      calls.push('start');
      this.on = true;
    }
    stop() {
      calls.push('stop');
    }
    async enable(url: string) {
      calls.push(`enable ${url}`);
      return { phrase: 'p', status: SYNC_OFF };
    }
    status() {
      return { ...SYNC_OFF, state: 'synced' as const };
    }
    noteTurns(ids: readonly string[]) {
      calls.push(`noteTurns ${ids.join(',')}`);
    }
  }
  const sync = new LazySync(deps, async () => {
    loads.push('SyncService');
    return { SyncService: FakeService } as never;
  });
  return { sync, loads, calls, statuses };
}

describe('LazySync', () => {
  it('with no phrase kept, start loads nothing and every call answers as sync off', async () => {
    const { sync, loads, calls } = setup(null);
    await sync.start();
    sync.noteTurns(['t1']);
    sync.noteConversation('c1');
    expect(sync.on).toBe(false);
    expect(sync.status()).toEqual(SYNC_OFF);
    expect(await sync.syncNow()).toEqual(SYNC_OFF);
    expect(sync.stateHash()).toBeNull();
    expect(loads).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('a kept phrase loads the service once at start and then delegates', async () => {
    const { sync, loads, calls } = setup('twelve words');
    await sync.start();
    sync.noteTurns(['t1']);
    expect(sync.on).toBe(true);
    expect(sync.status().state).toBe('synced');
    await sync.enable('http://127.0.0.1:1');
    expect(loads).toEqual(['SyncService']);
    expect(calls).toEqual(['start', 'noteTurns t1', 'enable http://127.0.0.1:1']);
  });

  it('turning sync on loads the service (off until then)', async () => {
    const { sync, loads } = setup(null);
    await sync.start();
    expect(loads).toEqual([]);
    await sync.enable('http://127.0.0.1:1');
    expect(loads).toEqual(['SyncService']);
    expect(sync.loaded).toBe(true);
  });

  it('a stop while the service loads keeps it from starting', async () => {
    const { sync, calls } = setup('twelve words');
    const starting = sync.start();
    sync.stop();
    await starting;
    expect(calls).not.toContain('start');
  });

  it('a settings store that cannot be read says so in the status and loads nothing', async () => {
    const { sync, loads, statuses } = setup(null);
    const broken = new LazySync(
      {
        secrets: {
          loadSyncPhrase: async () => {
            throw new Error('IndexedDB is blocked');
          },
        },
        onStatus: (s: SyncStatus) => statuses.push(s),
      } as unknown as SyncServiceDeps,
      async () => {
        loads.push('SyncService');
        return {} as never;
      },
    );
    await broken.start();
    expect(loads).toEqual([]);
    expect(statuses.at(-1)?.message).toMatch(/could not resume: IndexedDB is blocked/);
    expect(sync.loaded).toBe(false);
  });
});
