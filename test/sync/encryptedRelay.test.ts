/**
 * Sync spike proof (docs/sync-spike.md): the Durable Streams reference relay from npm runs on
 * 127.0.0.1 with file-backed storage; device A seals a real-length capture-log entry with a key
 * derived from the recovery phrase and appends it; device B, a separate client holding only the
 * phrase, reads and opens it. Every byte the relay wrote to disk is then searched for the
 * plaintext marker — and, as a control, for the ciphertext, so an empty search cannot pass.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DurableStreamTestServer } from '@durable-streams/server';
import { DurableStream, stream } from '@durable-streams/client';
import { deriveSyncKeys, openEvent, sealEvent, type SealedEvent } from '../../src/core/sync/syncEnvelope';
import type { SyncEvent } from '../../src/core/sync/syncEvents';
import { PHRASE, T0, TestDevice, turnText } from './syncFixtures';

async function filesUnder(dir: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(await readFile(join(entry.parentPath, entry.name)));
  }
  return out;
}

const holds = (files: Buffer[], needle: string) => files.some((bytes) => bytes.includes(Buffer.from(needle, 'utf8')));

/** The marker as it would read inside base64 at each of the three byte alignments. */
const base64Forms = (needle: string) =>
  [0, 1, 2].map((k) =>
    Buffer.concat([Buffer.alloc(k), Buffer.from(needle)])
      .toString('base64')
      .slice(4, -4),
  );

async function readAll(url: string): Promise<SealedEvent[]> {
  const res = await stream<SealedEvent>({ url, live: false });
  return res.json();
}

describe('sync spike: encrypted capture log through a relay started from npm', () => {
  let dataDir: string;
  let relay: DurableStreamTestServer;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'recollect-relay-'));
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir });
    await relay.start();
  });

  afterEach(async () => {
    await relay.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('carries a turn from device A to device B while the relay only ever stores ciphertext', async () => {
    const marker = `MARKER-${randomUUID()}`;
    const text = turnText(marker);
    expect(text.length).toBeGreaterThan(1_000);
    const event = new TestDevice('laptop', T0).emit({
      kind: 'turn.appended',
      conversationId: 'c-greenhouse',
      turnId: 't-1',
      role: 'user',
      text,
      occurredAt: T0,
    });

    const deviceA = await deriveSyncKeys(PHRASE);
    const url = `${relay.url}/v1/stream/${deviceA.ownerId}`;
    const writer = await DurableStream.create({ url, contentType: 'application/json' });
    const sealed = await sealEvent(deviceA, event);
    await writer.append(JSON.stringify(sealed));
    // A retried POST after a lost response: the same sealed event arrives twice.
    await writer.append(JSON.stringify(sealed));

    const deviceB = await deriveSyncKeys(` ${PHRASE.toUpperCase()} `);
    expect(deviceB.ownerId).toBe(deviceA.ownerId);
    const received = await readAll(`${relay.url}/v1/stream/${deviceB.ownerId}`);
    expect(received).toHaveLength(2);
    const folded = new Map<string, SyncEvent>();
    for (const item of received) folded.set(item.id, await openEvent(deviceB, item));
    expect([...folded.values()]).toEqual([event]);

    await relay.stop();
    const files = await filesUnder(dataDir);
    expect(files.length).toBeGreaterThan(0);
    expect(holds(files, sealed.ct.slice(0, 64))).toBe(true);
    expect(holds(files, marker)).toBe(false);
    expect(holds(files, 'read_humidity')).toBe(false);
    for (const form of base64Forms(marker)) expect(holds(files, form)).toBe(false);
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir });
    await relay.start();
  });

  it('would have caught plaintext: an unsealed append is found in the relay files', async () => {
    const marker = `MARKER-${randomUUID()}`;
    const writer = await DurableStream.create({ url: `${relay.url}/v1/stream/control`, contentType: 'application/json' });
    await writer.append(JSON.stringify({ text: turnText(marker) }));
    await relay.stop();
    expect(holds(await filesUnder(dataDir), marker)).toBe(true);
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir });
    await relay.start();
  });

  it('refuses an event opened with another phrase or altered on the relay', async () => {
    const keys = await deriveSyncKeys(PHRASE);
    const device = new TestDevice('laptop', T0);
    const sealed = await sealEvent(keys, device.emit({ kind: 'memory.written', memoryId: 'm-1', text: 'Prefers metric units.' }));
    const other = await deriveSyncKeys('legal winner thank year wave sausage worth useful legal winner thank yellow');
    await expect(openEvent(other, sealed)).rejects.toThrow(/could not be decrypted/);
    const bytes = Buffer.from(sealed.ct, 'base64');
    bytes.writeUInt8(bytes.readUInt8(10) ^ 1, 10);
    await expect(openEvent(keys, { ...sealed, ct: bytes.toString('base64') })).rejects.toThrow(/could not be decrypted/);
    const otherId = device.emit({ kind: 'memory.deleted', memoryId: 'm-1' }).id;
    await expect(openEvent(keys, { ...sealed, id: otherId })).rejects.toThrow(/could not be decrypted/);
    await expect(deriveSyncKeys('too short a phrase')).rejects.toThrow(/has 12 words; this one has 4/);
  });

  it('pads so a short and a 1,100-character turn have the same ciphertext length', async () => {
    const keys = await deriveSyncKeys(PHRASE);
    const device = new TestDevice('laptop', T0);
    const short = await sealEvent(keys, device.emit({ kind: 'memory.written', memoryId: 'a', text: 'ok' }));
    const long = await sealEvent(keys, device.emit({ kind: 'memory.written', memoryId: 'b', text: turnText('x') }));
    expect(Buffer.from(short.ct, 'base64').length).toBe(Buffer.from(long.ct, 'base64').length);
  });
});
