/**
 * Sync through the engine, on loopback (docs/sync.md; the raw-transport spike is bench/syncSpike.ts):
 *
 *   npm run bench -- sync [--turns 10000] [--reps 20] [--warmup 3] [--out report.json]
 *
 * A Durable Streams relay runs in-process on 127.0.0.1 with its data on disk. Device A, a Node engine
 * over its own SQLite store, holds `turns` real-shaped turns (≈1,100 characters, some with a code
 * block or a table; bench/chatProse.ts) in conversations of 64 and turns sync on: the upload is
 * timed until A's status says nothing waits. Device B, a fresh engine, joins with A's phrase: the
 * first sync is timed from join until B holds every turn (stored, full-text indexed, the fold's
 * state hash equal to A's). Then the steady state: A appends one turn and B's long-poll brings it;
 * the round trip is timed until B's store holds it, `warmup` untimed then `reps` timed, median and
 * p95. The engines have no embedder (Node), so B's time is the sync path and the write path's
 * full-text indexing, not vectors, which a browser builds afterwards in the background.
 * The machine's load average is reported beside the times: this machine is shared.
 */
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableStreamTestServer } from '@durable-streams/server';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { createEngine } from '../src/host/createEngine';
import type { MemoryEngine } from '../src/core/engine/MemoryEngine';
import type { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import type { NewTurn } from '../src/core/base/types';
import { MemorySettingsStore } from '../test/support/MemorySettingsStore';
import { stopRelay } from '../test/support/relayServer';
import { chatTurn } from './chatProse';
import { seededRandom } from './seededRandom';
import { median, percentile } from './stats';
import { commandArgs, intFlag } from './cliArgs';

export const SYNC_USAGE = 'usage: npm run bench -- sync [--turns 10000] [--reps 20] [--warmup 3] [--out report.json]';

export interface SyncBenchReport {
  readonly turns: number;
  readonly turnChars: number;
  /** A: enable → nothing waits to go up. */
  readonly uploadMs: number;
  /** B: join → every turn held and the state hashes equal. */
  readonly firstSyncMs: number;
  readonly firstSyncTurnsPerS: number;
  /** A appends one turn → B's store holds it (long-poll), per timed repetition. */
  readonly roundTripMs: readonly number[];
  readonly roundTripMedianMs: number;
  readonly roundTripP95Ms: number;
  readonly relayBytes: number;
  readonly load: { readonly before: readonly number[]; readonly after: readonly number[] };
}

interface Device {
  readonly engine: MemoryEngine;
  readonly store: SqliteMemoryStore;
}

async function device(): Promise<Device> {
  const store = await openNodeStore();
  const engine = createEngine(store, { llm: null, settings: new MemorySettingsStore() });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  return { engine, store };
}

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) total += (await stat(join(e.parentPath, e.name))).size;
  return total;
}

const turnCount = async (d: Device) => Number((await d.store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages'))[0]!.n);

/** Polls `done` every `everyMs` until it holds, or fails after `limitMs` with `what`. */
async function until(done: () => Promise<boolean>, what: string, limitMs: number, everyMs = 5): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`sync bench: ${what} did not happen within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs the benchmark; `progress` gets one line per phase. */
export async function runSyncBench(
  options: { turns: number; reps: number; warmup: number },
  progress: (line: string) => void = () => undefined,
): Promise<SyncBenchReport> {
  const dataDir = await mkdtemp(join(tmpdir(), 'recollect-sync-bench-'));
  const relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir, longPollTimeout: 5_000 });
  await relay.start();
  const devices: Device[] = [];
  const load = { before: loadavg(), after: [] as number[] };
  try {
    const a = await device();
    devices.push(a);
    const rnd = seededRandom(41);
    let turnChars = 0;
    for (let start = 0; start < options.turns; start += 64) {
      const conversationId = `c-${start / 64}`;
      await a.engine.conversations.create({ id: conversationId, title: `Conversation ${start / 64}` });
      const batch: NewTurn[] = [];
      for (let i = start; i < Math.min(options.turns, start + 64); i++) {
        const content = chatTurn(`Turn ${i}.`, rnd);
        turnChars += content.length;
        batch.push({
          id: `t-${i}`,
          conversationId,
          role: i % 2 ? 'assistant' : 'user',
          content,
          occurredAt: Date.UTC(2026, 0, 1) + i * 60_000,
        });
      }
      await a.engine.conversations.appendTurns(batch);
      progress(`sync bench: device A holds ${Math.min(options.turns, start + 64)} of ${options.turns} turns`);
    }

    let t0 = performance.now();
    const { phrase } = await a.engine.sync.enable({ relayUrl: relay.url });
    let status = await a.engine.sync.syncNow();
    while (status.pending > 0) status = await a.engine.sync.syncNow();
    const uploadMs = performance.now() - t0;
    progress(`sync bench: upload ${(uploadMs / 1000).toFixed(1)} s (${status.state})`);

    const b = await device();
    devices.push(b);
    t0 = performance.now();
    await b.engine.sync.join({ phrase, relayUrl: relay.url });
    await until(async () => (await turnCount(b)) >= options.turns, 'the first sync', 30 * 60_000, 50);
    await until(async () => (await b.engine.sync.stateHash()) === (await a.engine.sync.stateHash()), 'equal state hashes', 60_000, 50);
    const firstSyncMs = performance.now() - t0;
    progress(`sync bench: first sync ${(firstSyncMs / 1000).toFixed(1)} s`);

    const roundTripMs: number[] = [];
    for (let r = 0; r < options.warmup + options.reps; r++) {
      const id = `rt-${r}`;
      const start = performance.now();
      await a.engine.conversations.appendTurn({
        id,
        conversationId: 'c-0',
        role: 'user',
        content: chatTurn(`Round trip ${r}.`, rnd),
        occurredAt: Date.now(),
      });
      await until(async () => (await b.store.getMessage(id)) !== null, `round trip ${r}`, 60_000);
      if (r >= options.warmup) roundTripMs.push(performance.now() - start);
    }
    load.after = loadavg();
    return {
      turns: options.turns,
      turnChars: Math.round(turnChars / Math.max(1, options.turns)),
      uploadMs,
      firstSyncMs,
      firstSyncTurnsPerS: options.turns / (firstSyncMs / 1000),
      roundTripMs,
      roundTripMedianMs: median(roundTripMs),
      roundTripP95Ms: percentile(roundTripMs, 95),
      relayBytes: await bytesUnder(dataDir),
      load,
    };
  } finally {
    for (const d of devices) {
      d.engine.stop();
      await d.store.db.close();
    }
    await stopRelay(relay);
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function syncBenchSummary(r: SyncBenchReport): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  return [
    `turns ${r.turns} (mean ${r.turnChars} characters)`,
    `upload (A, enable → nothing waits): ${(r.uploadMs / 1000).toFixed(2)} s`,
    `first sync (B, join → all turns, equal state hash): ${(r.firstSyncMs / 1000).toFixed(2)} s (${r.firstSyncTurnsPerS.toFixed(0)} turns/s)`,
    `steady-state round trip (A appends → B holds), ${r.roundTripMs.length} reps: median ${ms(r.roundTripMedianMs)}, p95 ${ms(r.roundTripP95Ms)}`,
    `relay on disk: ${(r.relayBytes / 1e6).toFixed(1)} MB`,
    `load average before ${r.load.before.map((n) => n.toFixed(2)).join(' ')}, after ${r.load.after.map((n) => n.toFixed(2)).join(' ')}`,
  ].join('\n');
}

export async function syncBenchCommand(
  argv: string[],
  progress: (line: string) => void,
  usage: (message?: string) => never,
): Promise<void> {
  const v = commandArgs(
    argv,
    { turns: { type: 'string' }, reps: { type: 'string' }, warmup: { type: 'string' }, out: { type: 'string' } },
    usage,
  );
  const report = await runSyncBench(
    { turns: intFlag(v, 'turns', 10_000, usage), reps: intFlag(v, 'reps', 20, usage), warmup: intFlag(v, 'warmup', 3, usage, { min: 0 }) },
    progress,
  );
  if (process.stderr.isTTY) process.stderr.write('\n');
  process.stdout.write(`${syncBenchSummary(report)}\n`);
  if (typeof v.out === 'string') {
    await writeFile(v.out, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`wrote ${v.out}\n`);
  }
}
