/**
 * A 200 MB history import, the two shapes that once stalled the app: an export of many
 * conversations, and ONE conversation of ≈140,000 turns. Generates the ChatGPT export (the turn
 * lengths of bench/importHistory.ts) into .cache/, then imports it through the engine in Node
 * (stream + parse + store, in-memory database) and reports the progress timeline: when the first
 * progress report came, when the first turns were counted stored, how many reports there were and
 * the longest gap between two, and the total time.
 *
 * Also the peak resident memory of the process (sampled every 100 ms). `--whole` parses every
 * entry whole, as the reader did before huge entries were streamed: the baseline, in the same run.
 *
 *   npx tsx bench/hugeHistory.ts [--shape single|many] [--mb 200] [--whole]
 */
import { existsSync, mkdirSync, openAsBlob, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { MemoryEngine } from '../src/core/engine/MemoryEngine';
import { historyReader, readHistory } from '../src/import/readHistory';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import type { HistoryProgress } from '../src/core/base/historyImport';
import { syntheticExport } from './importHistory';

/** Bytes of JSON per generated turn (≈1,400 characters of text plus the mapping node around it). */
const BYTES_PER_TURN = 1_650;

export function hugeExportFile(shape: 'single' | 'many', mb: number): string {
  const file = `.cache/chatgpt-${shape}-${mb}mb.json`;
  if (existsSync(file)) return file;
  const turns = Math.round((mb * 1e6) / BYTES_PER_TURN);
  // "many": conversations of 20 turns, as the import benchmark; "single": all of them in one.
  const data = shape === 'single' ? syntheticExport(1, turns) : syntheticExport(Math.round(turns / 20), 20);
  mkdirSync('.cache', { recursive: true });
  writeFileSync(file, JSON.stringify(data));
  return file;
}

if (process.argv[1]?.endsWith('hugeHistory.ts')) {
  const { values } = parseArgs({
    options: {
      shape: { type: 'string', default: 'single' },
      mb: { type: 'string', default: '200' },
      whole: { type: 'boolean', default: false },
    },
  });
  const shape = values.shape === 'many' ? 'many' : 'single';
  const t0 = performance.now();
  const file = hugeExportFile(shape, Number(values.mb));
  // Streamed from disk in chunks, as a browser File is (an in-memory Blob comes as one 200 MB chunk).
  const blob = await openAsBlob(file);
  const size = statSync(file).size;
  console.log(
    `${file}: ${(size / 1e6).toFixed(1)} MB (ready in ${((performance.now() - t0) / 1000).toFixed(1)} s); load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const store = await openNodeStore();
  const engine = new MemoryEngine({
    store,
    historyReader: values.whole ? historyReader({ hugeEntryChars: Number.POSITIVE_INFINITY }) : readHistory,
  });
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100);
  const events: { at: number; p: HistoryProgress }[] = [];
  const start = performance.now();
  const cpu = process.cpuUsage();
  const report = await engine.data.importHistory(
    { name: 'conversations.json', size, stream: () => blob.stream() },
    { format: 'chatgpt', importId: 'huge' },
    (p) => events.push({ at: performance.now() - start, p }),
  );
  const total = (performance.now() - start) / 1000;
  clearInterval(sampler);
  const c = process.cpuUsage(cpu);
  const firstStored = events.find((e) => e.p.turns > 0);
  let gap = events[0]?.at ?? 0;
  for (let i = 1; i < events.length; i++) gap = Math.max(gap, events[i]!.at - events[i - 1]!.at);
  console.log(report.summary);
  console.log(
    `total ${total.toFixed(1)} s wall, ${((c.user + c.system) / 1e6).toFixed(1)} s CPU; ${events.length} progress reports, first at ${((events[0]?.at ?? 0) / 1000).toFixed(1)} s, first turns stored at ${((firstStored?.at ?? 0) / 1000).toFixed(1)} s, longest gap ${(gap / 1000).toFixed(1)} s; peak RSS ${(peakRss / 1e6).toFixed(0)} MB${values.whole ? ' (whole-entry parse)' : ''}; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  for (const e of events.filter((_, i) => i % Math.max(1, Math.floor(events.length / 12)) === 0)) {
    console.log(
      `  ${(e.at / 1000).toFixed(1)} s: ${(e.p.bytesRead / 1e6).toFixed(0)} of ${(e.p.bytesTotal / 1e6).toFixed(0)} MB read, ${e.p.turns.toLocaleString('en')} turns stored`,
    );
  }
  await store.db.close();
}
