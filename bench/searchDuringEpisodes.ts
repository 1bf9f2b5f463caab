/**
 * Keyword search while the episodes of many stored turns are being built — the work that follows
 * a history import's indexing — in Node, on the engine code the worker runs. Each search is posted
 * as a macrotask (setImmediate), as a request from the page reaches the worker as a message, and is
 * timed from posting to answer, so whatever it waited for the background work is in the time.
 * Baseline, same run and same memory: the same kind of searches with the engine idle.
 *
 *   npx tsx bench/searchDuringEpisodes.ts [--turns 1500] [--warmups 5] [--searches 30] [--every 20]
 *
 * Needs the bundled model's files (npm run build, or node scripts/build-offline-model.mjs).
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { createEngine } from '../src/host/createEngine';
import type { MemoryEngine } from '../src/core/engine/MemoryEngine';
import type { Timer } from '../src/core/base/jobs';
import { localEmbedderProvider } from '../src/models/localEmbedderProvider';
import { configureNodeEnv } from '../src/models/nodeEnv';
import { nodeVectorIndex } from '../src/wasm/nodeVectorKernel';
import { createBenchEngine, warmUpEmbedder } from './host/BenchEngineHost';
import { median, percentile } from './stats';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '1500' },
    warmups: { type: 'string', default: '5' },
    searches: { type: 'string', default: '30' },
    every: { type: 'string', default: '20' },
  },
});
const TURNS = Number(values.turns);
const WARMUPS = Number(values.warmups);
const SEARCHES = Number(values.searches);
const EVERY_MS = Number(values.every);
const PER_CHAT = 10;
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 1, 9);
const WORDS = ['ferries', 'gardens', 'bread', 'rent', 'guitar', 'flight', 'puppy', 'lisbon', 'tax', 'recipe'];

/** The open's hold ends through idle(), not a timer. */
const neverTimer: Timer = () => ({ cancel: () => undefined });
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One search posted as the next macrotask; resolves with its time from posting to answer. */
function postedSearch(engine: MemoryEngine, query: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const posted = performance.now();
    setImmediate(() => {
      engine.conversations.search(query, { limit: 30 }).then((hits) => {
        if (hits.length === 0) reject(new Error(`no hit for ${query}`));
        else resolve(performance.now() - posted);
      }, reject);
    });
  });
}

const marker = (i: number) => `zq${Math.floor(i / PER_CHAT)}k${i % PER_CHAT}`;
let pick = 0;
/** Markers spread over the memory, the same sequence in both phases. */
const nextQuery = () => marker((pick++ * 7919) % TURNS);

const summary = (ms: readonly number[]) =>
  `median ${median(ms).toFixed(1)} ms, p95 ${percentile(ms, 95).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (${ms.length} searches)`;

const embedders = localEmbedderProvider(configureNodeEnv());
await warmUpEmbedder(embedders);
const vectorIndex = (await nodeVectorIndex()).factory;
const store = await openNodeStore();
const writer = createBenchEngine(store, embedders, vectorIndex);
await writer.start();
for (let c = 0; c * PER_CHAT < TURNS; c++) {
  await writer.conversations.create({ id: `chat-${c}`, title: `Chat ${c}` });
  await writer.conversations.appendTurns(
    Array.from({ length: Math.min(PER_CHAT, TURNS - c * PER_CHAT) }, (_, k) => ({
      id: `t${c}-${k}`,
      conversationId: `chat-${c}`,
      role: k % 2 ? ('assistant' as const) : ('user' as const),
      content: `Turn ${k} of chat ${c}: the marker ${marker(c * PER_CHAT + k)} and a word about ${WORDS[(c + k) % WORDS.length]} and ${WORDS[(c * 3 + k) % WORDS.length]}.`,
      occurredAt: T0 + c * DAY + k * 30_000,
    })),
  );
}
await writer.idle();

console.log(
  `${TURNS} turns (embedded, no episodes yet); load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (let i = 0; i < WARMUPS; i++) await postedSearch(writer, nextQuery());
const idle: number[] = [];
for (let i = 0; i < SEARCHES; i++) {
  idle.push(await postedSearch(writer, nextQuery()));
  await later(EVERY_MS);
}
writer.stop();
console.log(`idle engine:            ${summary(idle)}`);

const engine = createEngine(store, { only: ['episodes', 'recall'], embedders, vectorIndex, timer: neverTimer });
await engine.start();
const t0 = performance.now();
let building = true;
const built = engine.idle().then(() => {
  building = false;
});
const during: number[] = [];
while (building) {
  during.push(await postedSearch(engine, nextQuery()));
  await later(EVERY_MS);
}
await built;
const buildMs = performance.now() - t0;
const [cells] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM memcells');
engine.stop();
console.log(
  `first searches while building: ${during
    .slice(0, 6)
    .map((m) => m.toFixed(0))
    .join(', ')} ms`,
);
console.log(`while episodes build:   ${during.length ? summary(during) : 'no search got in before the work ended'}`);
console.log(
  `episodes built: ${Number(cells?.n ?? 0)} in ${(buildMs / 1000).toFixed(1)} s; p95 during / idle: ${during.length ? (percentile(during, 95) / percentile(idle, 95)).toFixed(2) : 'n/a'}×; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
