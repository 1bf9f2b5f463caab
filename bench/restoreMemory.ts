/**
 * Restoring a memory file (Import… → Replace memory) in Node, on the same storage code the app's
 * worker runs: the file is validated, rebuilt in a fresh database and swapped in
 * (SqliteMemoryStore.importDatabase). Compares the restore as it is (above
 * RETRIEVAL_CONFIG.large.above turns the turn index trails it) with the restore that builds the
 * whole turn index (`turnIndexUpTo: -1`, what every restore did before), alternating in the same
 * run, so load on a shared machine hits both alike.
 *
 *   npx tsx bench/restoreMemory.ts .cache/long-conversation-100000x800.sqlite [--reps 2] [--warmups 0] [--no-compare]
 *
 * Build the file first: npx tsx scripts/build-long-conversation.ts .cache/long-conversation-100000x800.sqlite --turns 100000 --chars 800
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { openMemoryDatabase } from '../src/storage/openNodeDatabase';
import { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import { median, percentile } from './stats';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    reps: { type: 'string', default: '2' },
    warmups: { type: 'string', default: '0' },
    'no-compare': { type: 'boolean', default: false },
  },
});
const file = positionals[0];
if (!file) throw new Error('usage: npx tsx bench/restoreMemory.ts <file.sqlite> [--reps 2] [--warmups 0] [--no-compare]');
const reps = Number(values.reps);
const warmups = Number(values.warmups);
const bytes = new Uint8Array(readFileSync(file));

interface Mode {
  readonly name: string;
  readonly turnIndexUpTo?: number;
}
const modes: Mode[] = [{ name: 'restore (turn index trails above the large-memory size)' }];
if (!values['no-compare']) modes.push({ name: 'baseline: restore building the whole turn index', turnIndexUpTo: -1 });

async function once(mode: Mode): Promise<{ wallMs: number; cpuMs: number; messages: number; queued: number }> {
  const db = await openMemoryDatabase();
  const store = new SqliteMemoryStore(db, {
    openTemp: () => openMemoryDatabase({ migrateSchema: false }),
    ...(mode.turnIndexUpTo === undefined ? {} : { turnIndexUpTo: mode.turnIndexUpTo }),
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await store.importDatabase(bytes);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const [q] = await db.query<{ n: number }>('SELECT count(*) AS n FROM turn_index_queue');
  await db.close();
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, messages: summary.messageCount, queued: Number(q?.n ?? 0) };
}

console.log(
  `${file}: ${(bytes.length / 1e6).toFixed(1)} MB, ${warmups} warm-up, ${reps} reps per mode, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (let i = 0; i < warmups; i++) for (const m of modes) await once(m);
const results = new Map<string, { wall: number[]; cpu: number[] }>(modes.map((m) => [m.name, { wall: [], cpu: [] }]));
for (let r = 0; r < reps; r++) {
  for (const m of r % 2 ? [...modes].reverse() : modes) {
    const out = await once(m);
    results.get(m.name)!.wall.push(out.wallMs);
    results.get(m.name)!.cpu.push(out.cpuMs);
    console.log(
      `  rep ${r + 1} ${m.name}: ${(out.wallMs / 1000).toFixed(1)} s wall, ${(out.cpuMs / 1000).toFixed(1)} s CPU, ${out.messages.toLocaleString('en')} turns, ${out.queued.toLocaleString('en')} queued for the turn index (load ${loadavg()[0]!.toFixed(1)})`,
    );
  }
}
for (const [name, r] of results) {
  console.log(
    `${name}: wall median ${(median(r.wall) / 1000).toFixed(1)} s, p95 ${(percentile(r.wall, 95) / 1000).toFixed(1)} s; CPU median ${(median(r.cpu) / 1000).toFixed(1)} s`,
  );
}
if (modes.length === 2) {
  const [a, b] = modes.map((m) => results.get(m.name)!);
  console.log(
    `speed-up (baseline / restore, median): wall ${(median(b!.wall) / median(a!.wall)).toFixed(2)}×, CPU ${(median(b!.cpu) / median(a!.cpu)).toFixed(2)}×`,
  );
}
