/**
 * A reload is not another tab: the previous page's engine worker may still hold the owner lock for
 * a moment after the new page asks for it. A first acquire given `graceMs` waits that long for the
 * lock before it answers 'elsewhere' (which would refuse every call as "open in another tab");
 * a lock that stays held past the grace is another tab, and is said so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineHost, OWNER_LOCK } from '../../src/host/EngineHost';
import { openMemoryDatabase } from '../../src/storage/openNodeDatabase';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { MemorySettingsStore } from '../support/MemorySettingsStore';

type Callback = (lock: object | null) => Promise<unknown>;

/** Web Locks for one name at a time, enough for the owner lock: ifAvailable, signal, a FIFO queue. */
class FakeLocks {
  #held = false;
  readonly #queue: (() => void)[] = [];

  request(_name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: Callback): Promise<unknown> {
    if (!this.#held) return this.#run(callback);
    if (options.ifAvailable) return callback(null);
    return new Promise((resolve, reject) => {
      const grant = () => {
        options.signal?.removeEventListener('abort', abort);
        this.#run(callback).then(resolve, reject);
      };
      const abort = () => {
        this.#queue.splice(this.#queue.indexOf(grant), 1);
        reject(options.signal!.reason);
      };
      options.signal?.addEventListener('abort', abort);
      this.#queue.push(grant);
    });
  }

  /** Holds the lock as another worker would, until the returned function is called. */
  holdElsewhere(): () => void {
    let release!: () => void;
    void this.request(OWNER_LOCK, {}, () => new Promise<void>((r) => (release = r)));
    return () => release();
  }

  async #run(callback: Callback): Promise<unknown> {
    this.#held = true;
    try {
      return await callback({});
    } finally {
      this.#held = false;
      this.#queue.shift()?.();
    }
  }
}

describe('EngineHost.acquire with a grace for the previous page', () => {
  const realNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  let locks: FakeLocks;
  beforeEach(() => {
    locks = new FakeLocks();
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true });
  });
  afterEach(() => {
    if (realNavigator) Object.defineProperty(globalThis, 'navigator', realNavigator);
  });

  const host = () =>
    new EngineHost({
      openStore: async () =>
        new SqliteMemoryStore(await openMemoryDatabase(), { openTemp: () => openMemoryDatabase({ migrateSchema: false }) }),
      settings: new MemorySettingsStore(),
    });

  it("a lock let go within the grace is this page's: it becomes the owner and serves calls", async () => {
    const releasePrevious = locks.holdElsewhere();
    const h = host();
    const owner = h.acquire({ wait: false, graceMs: 2_000 });
    setTimeout(releasePrevious, 100);
    expect(await owner).toEqual({ state: 'owner' });
    const created = await h.engine.conversations.create({ title: 'after the reload' });
    expect(created.ok).toBe(true);
  });

  it('a lock still held after the grace is another tab: elsewhere, and calls are refused as DB_BUSY', async () => {
    const releaseOther = locks.holdElsewhere();
    const h = host();
    expect(await h.acquire({ wait: false, graceMs: 150 })).toEqual({ state: 'elsewhere' });
    const refused = await h.engine.conversations.list();
    expect(refused).toMatchObject({ ok: false, error: { code: 'DB_BUSY' } });
    releaseOther();
  });

  it('without a grace the answer is immediate, as before', async () => {
    const releaseOther = locks.holdElsewhere();
    expect(await host().acquire({ wait: false })).toEqual({ state: 'elsewhere' });
    releaseOther();
  });
});
