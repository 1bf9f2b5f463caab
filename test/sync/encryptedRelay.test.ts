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
import { deriveSyncKeys, openEvent, sealEvent, type SealedEvent } from './syncEnvelope';

const PHRASE = 'orbit velvet canal spice harbor lunar timber quiet fossil ember gravel window';

/** A real-shaped turn: ≈1,100 characters with prose, a fenced code block and a table. */
function turnText(marker: string): string {
  return [
    `I moved the greenhouse sensors to the new board last weekend (${marker}), and the humidity readings now drift`,
    'by about four percent every night. Here is the loop that samples them; the delay was copied from the old sketch:',
    '',
    '```python',
    'import time',
    'from sensors import read_humidity, read_temperature',
    '',
    'def sample(n: int = 12) -> list[tuple[float, float]]:',
    '    out = []',
    '    for _ in range(n):',
    '        out.append((read_humidity(), read_temperature()))',
    '        time.sleep(2.5)',
    '    return out',
    '```',
    '',
    '| night | min RH % | max RH % | drift |',
    '|-------|----------|----------|-------|',
    '| Mon   | 61.2     | 65.0     | 3.8   |',
    '| Tue   | 60.9     | 65.3     | 4.4   |',
    '| Wed   | 61.4     | 65.6     | 4.2   |',
    '',
    'Is the drift more likely the sensor warming up inside the enclosure, or condensation on the probe? The enclosure',
    'has two vents but no fan, and the board sits right under the grow light, which switches off at 22:00 each night.',
    'Last spring the same probe read within one percent of the handheld meter, so I doubt it is simply ageing.',
  ].join('\n');
}

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
    const event = {
      kind: 'turn.appended',
      conversationId: 'c-greenhouse',
      turnId: 't-1',
      role: 'user',
      text,
      at: '2026-11-28T02:00:00.000Z',
    };

    const deviceA = await deriveSyncKeys(PHRASE);
    const url = `${relay.url}/v1/stream/${deviceA.ownerId}`;
    const writer = await DurableStream.create({ url, contentType: 'application/json' });
    const sealed = await sealEvent(deviceA, 'evt-1', event);
    await writer.append(JSON.stringify(sealed));
    // A retried POST after a lost response: the same sealed event arrives twice.
    await writer.append(JSON.stringify(sealed));

    const deviceB = await deriveSyncKeys(` ${PHRASE.toUpperCase()} `);
    expect(deviceB.ownerId).toBe(deviceA.ownerId);
    const received = await readAll(`${relay.url}/v1/stream/${deviceB.ownerId}`);
    expect(received).toHaveLength(2);
    const folded = new Map<string, unknown>();
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
    const sealed = await sealEvent(keys, 'evt-2', { kind: 'memory.written', text: 'Prefers metric units.' });
    const other = await deriveSyncKeys(PHRASE.replace('orbit', 'planet'));
    await expect(openEvent(other, sealed)).rejects.toThrow(/could not be decrypted/);
    const bytes = Buffer.from(sealed.ct, 'base64');
    bytes.writeUInt8(bytes.readUInt8(10) ^ 1, 10);
    await expect(openEvent(keys, { ...sealed, ct: bytes.toString('base64') })).rejects.toThrow(/could not be decrypted/);
    await expect(openEvent(keys, { ...sealed, id: 'evt-3' })).rejects.toThrow(/could not be decrypted/);
    await expect(deriveSyncKeys('too short a phrase')).rejects.toThrow(/at least 12 words/);
  });

  it('pads so a short and a 1,100-character turn have the same ciphertext length', async () => {
    const keys = await deriveSyncKeys(PHRASE);
    const short = await sealEvent(keys, 'a', { text: 'ok' });
    const long = await sealEvent(keys, 'b', { text: turnText('x') });
    expect(Buffer.from(short.ct, 'base64').length).toBe(Buffer.from(long.ct, 'base64').length);
  });
});
