/**
 * Segmenting one long conversation: the episode lifecycle (segmentation, encoding scores, scenes)
 * over a single conversation of n turns, for several n. Work should grow with n, not with n².
 *
 *   npx tsx bench/segmentLong.ts [--sizes 2500,5000,10000,20000] [--reps 1]
 *
 * Turns are appended in 1,000-turn batches (as a history import does) into an in-memory database
 * with the test topic embedder (vectors, so topic drift and scenes run), then the lifecycle is
 * waited for. Reported per size: CPU seconds of this process (the machine is shared: wall time
 * mostly measures the queue for a core), SQLite VM steps (counted by a progress handler: the
 * database's work, independent of load) and both per turn. A baseline in the same run appends
 * the same turns with the lifecycle off, so the lifecycle's own cost is the difference.
 */
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { createEngine, type EngineStage } from '../src/host/createEngine';
import { topicProvider } from '../test/support/topicEmbedder';
import { countVmSteps, longConversation } from '../test/support/longConversation';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '2500,5000,10000,20000' }, reps: { type: 'string', default: '1' } },
});
const sizes = values.sizes.split(',').map(Number);
const reps = Number(values.reps);
const provider = topicProvider(['dog', 'flight', 'guitar', 'rent']);

async function run(n: number, stages: EngineStage[]) {
  const store = await openNodeStore();
  try {
    const engine = createEngine(store, { only: stages, embedders: provider });
    await engine.start();
    await store.createConversation({ id: 'c', title: 'long' });
    const steps = countVmSteps(store.db);
    const t0 = performance.now();
    const cpu = process.cpuUsage();
    const turns = longConversation('c', n);
    for (let at = 0; at < n; at += 1000) await engine.conversations.appendTurns(turns.slice(at, at + 1000));
    await engine.idle();
    const c = process.cpuUsage(cpu);
    const result = { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, steps: steps.stop() };
    engine.stop();
    return result;
  } finally {
    await store.db.close();
  }
}

console.log(`| turns | lifecycle CPU s | baseline CPU s | lifecycle CPU ms / turn | lifecycle VM steps / turn | wall s |`);
console.log('|---:|---:|---:|---:|---:|---:|');
for (const n of sizes) {
  for (let r = 0; r < reps; r++) {
    const base = await run(n, []);
    const full = await run(n, ['episodes']);
    console.log(
      `| ${n.toLocaleString('en')} | ${full.cpu.toFixed(1)} | ${base.cpu.toFixed(1)} | ${((1000 * (full.cpu - base.cpu)) / n).toFixed(2)} | ${Math.round((full.steps - base.steps) / n).toLocaleString('en')} | ${full.wall.toFixed(1)} |`,
    );
  }
}
console.log(
  `\nLoad average: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')}`,
);
