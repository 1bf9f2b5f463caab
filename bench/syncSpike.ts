/**
 * Sync spike measurement (docs/sync-spike.md), not part of `npm run bench` yet:
 *   npx tsx bench/syncSpike.ts [--turns 10000]
 * Device A seals N real-length turns (≈1,150 characters) and appends them to a file-backed
 * Durable Streams relay on 127.0.0.1; device B, a fresh client, reads and opens all of them.
 * Prints seal+upload time, first-sync download+open (decrypt and validate) time, fold + state-hash
 * time, a steady-state round trip (median of 20 single appends seen by a long-polling reader) and
 * the relay's bytes on disk.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DurableStreamTestServer } from '@durable-streams/server';
import { DurableStream, stream } from '@durable-streams/client';
import { deriveSyncKeys, openEvent, sealEvent, type SealedEvent } from '../src/core/sync/syncEnvelope';
import { HybridClock } from '../src/core/sync/hybridClock';
import { generateRecoveryPhrase } from '../src/core/sync/recoveryPhrase';
import { stampEvent } from '../src/core/sync/syncEvents';
import { foldEvents, syncStateHash } from '../src/core/sync/SyncFold';
import { systemClock } from '../src/core/base/ports';

const { values } = parseArgs({ options: { turns: { type: 'string', default: '10000' } }, strict: true });
const turns = Number(values.turns);
const PHRASE = generateRecoveryPhrase();
const clock = new HybridClock('bench-device', systemClock);
const para = 'The humidity sensor under the grow light drifts four percent at night; the loop samples every 2.5 s. ';

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += (await stat(join(e.parentPath, e.name))).size;
  }
  return total;
}

const dataDir = await mkdtemp(join(tmpdir(), 'recollect-relay-bench-'));
const relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir });
await relay.start();
try {
  const keys = await deriveSyncKeys(PHRASE);
  const url = `${relay.url}/v1/stream/${keys.ownerId}`;
  const writer = await DurableStream.create({ url, contentType: 'application/json' });
  let plainChars = 0;
  const t0 = performance.now();
  let last: Promise<void> = Promise.resolve();
  for (let i = 0; i < turns; i++) {
    const text = `${i} ${para.repeat(11)}\n\n\`\`\`ts\nconst x${i} = sample(${i % 12});\n\`\`\``;
    plainChars += text.length;
    const sealed = await sealEvent(
      keys,
      stampEvent(
        {
          kind: 'turn.appended',
          conversationId: `c-${i >> 6}`,
          turnId: `t-${i}`,
          role: i % 2 ? 'assistant' : 'user',
          text,
          occurredAt: Date.now(),
        },
        clock,
      ),
    );
    last = writer.append(JSON.stringify(sealed));
  }
  await last;
  const upload = performance.now() - t0;

  const t1 = performance.now();
  const res = await stream<SealedEvent>({ url, live: false });
  const items = await res.json();
  const seen = new Set<string>();
  const opened = [];
  for (const item of items) {
    opened.push(await openEvent(keys, item));
    seen.add(item.id);
  }
  const firstSync = performance.now() - t1;
  const t2 = performance.now();
  const folded = foldEvents(opened);
  const stateHash = syncStateHash(folded);
  const foldAndHash = performance.now() - t2;
  if (folded.turns.length !== turns || !stateHash) throw new Error(`fold kept ${folded.turns.length} of ${turns} turns`);
  if (seen.size !== turns) throw new Error(`expected ${turns} events, got ${seen.size}`);

  const rtts: number[] = [];
  const tail = await stream<SealedEvent>({ url, live: 'long-poll', offset: res.offset });
  const arrivals: Array<() => void> = [];
  tail.subscribeJson(async (batch) => {
    for (const _ of batch.items) arrivals.shift()?.();
  });
  for (let i = 0; i < 20; i++) {
    const seenBack = new Promise<void>((resolve) => arrivals.push(resolve));
    const s = performance.now();
    await writer.append(
      JSON.stringify(await sealEvent(keys, stampEvent({ kind: 'memory.written', memoryId: `rt-${i}`, text: para.repeat(11) }, clock))),
    );
    await seenBack;
    rtts.push(performance.now() - s);
  }
  tail.cancel();
  rtts.sort((a, b) => a - b);
  const disk = await bytesUnder(dataDir);
  console.log(
    JSON.stringify(
      {
        turns,
        meanTurnChars: Math.round(plainChars / turns),
        sealAndUploadMs: Math.round(upload),
        firstSyncDownloadAndOpenMs: Math.round(firstSync),
        foldAndStateHashMs: Math.round(foldAndHash),
        steadyRoundTripMs: { median: +(rtts[10] ?? NaN).toFixed(1), p95: +(rtts[18] ?? NaN).toFixed(1) },
        relayBytesOnDisk: disk,
        relayBytesPerTurn: Math.round(disk / turns),
        loadavg1m: +(loadavg()[0] ?? NaN).toFixed(2),
        node: process.version,
      },
      null,
      2,
    ),
  );
} finally {
  await relay.stop();
  await rm(dataDir, { recursive: true, force: true });
}
