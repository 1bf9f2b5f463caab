/**
 * The relay transport against the reference Durable Streams server on 127.0.0.1: an append made
 * while the relay is down fails (and stays in the device's outbox), and after the relay restarts
 * the next appends are stored. A producer started again under the same name would begin its
 * sequence at 0 and the relay would acknowledge its first batches as repeats, storing nothing.
 */
import { afterEach, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableStreamTestServer } from '@durable-streams/server';
import { DurableStreamsRelay } from '../../src/relay/durableStreamsRelay';
import { SyncRelayError } from '../../src/core/sync/syncPorts';
import type { SealedEvent } from '../../src/core/sync/syncEnvelope';
import { stopRelay } from '../support/relayServer';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const item = (n: number) => ({ n }) as unknown as SealedEvent;

it('appends after the relay was down and restarted are stored, not dropped as repeats', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'recollect-relay-'));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  let server = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir, longPollTimeout: 1_000 });
  await server.start();
  cleanup.push(() => stopRelay(server));
  const port = Number(new URL(server.url).port);
  const relay = new DurableStreamsRelay(server.url);
  await relay.ensure('owner');
  await relay.append('owner', 'device', [item(1), item(2)]);

  await stopRelay(server);
  const failed = await relay.append('owner', 'device', [item(3)]).catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(SyncRelayError);
  expect((failed as SyncRelayError).code).toBe('relay-unreachable');

  server = new DurableStreamTestServer({ host: '127.0.0.1', port, dataDir, longPollTimeout: 1_000 });
  await server.start();
  // The device sends its outbox again (3 was never acknowledged), then something new.
  await relay.append('owner', 'device', [item(3)]);
  await relay.append('owner', 'device', [item(4)]);
  const read = await relay.read('owner', null);
  expect(read.items).toEqual([1, 2, 3, 4].map(item));
}, 60_000);
