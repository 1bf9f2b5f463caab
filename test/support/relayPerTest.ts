/**
 * A Durable Streams relay on 127.0.0.1 for each test of a file, with its own data directory; after
 * each test the devices the test registered are closed, then the relay, and its files removed.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableStreamTestServer } from '@durable-streams/server';
import { closeDevices, stopRelay } from './relayServer';

export function relayPerTest(prefix: string, devices: Parameters<typeof closeDevices>[0]): { readonly url: string } {
  let dataDir = '';
  let relay: DurableStreamTestServer | null = null;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir, longPollTimeout: 1_000 });
    await relay.start();
  });
  afterEach(async () => {
    await closeDevices(devices);
    if (relay) await stopRelay(relay);
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get url() {
      if (!relay) throw new Error('The relay starts before each test.');
      return relay.url;
    },
  };
}

/** A device joins with the phrase and syncs (letting its synthesis settle) until `check` passes. */
export async function joinUntil(
  d: { readonly engine: Pick<MemoryEngine, 'sync' | 'idle'> },
  phrase: string,
  relayUrl: string,
  check: () => Promise<void>,
): Promise<void> {
  await d.engine.sync.join({ phrase, relayUrl });
  await vi.waitFor(
    async () => {
      await d.engine.sync.syncNow();
      await d.engine.idle();
      await check();
    },
    { timeout: 60_000, interval: 500 },
  );
}
