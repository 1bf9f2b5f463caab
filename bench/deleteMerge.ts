/**
 * What a deletion's full-text scrub costs as the memory grows, in Node on a file database with the
 * browser's journal (write-ahead log, exclusive locking):
 *
 *   npx tsx bench/deleteMerge.ts [--turns 100000] [--reps 3] [--db kept.sqlite] [--out report.json]
 *
 * Grows one database to `--turns` real-length turns (≈ 1,100 characters, bench/chatProse.ts) in
 * batches of 500 through the store's write path (or reuses `--db` when it holds as many), merges
 * its indexes into one segment (the state every earlier deletion leaves them in), then for each
 * repetition deletes one turn and merges its words out of the indexes two ways, each timed as the
 * transactions a reader would wait behind:
 * - one transaction: the deletion and an `optimize` of every index holding deleted terms (before);
 * - steps: the deletion alone, then 'merge' steps of MERGE_STEP_PAGES pages, one transaction each
 *   (what WaSqliteDatabase does now): the longest step, the median step, the number of steps and
 *   their sum.
 * Reported: the median over repetitions of each figure (the first repetition is a warm-up).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { openFileStore } from '../src/storage/openNodeDatabase';
import { MERGE_STEP_PAGES, mergeDeletedTerms, mergeDeletedTermsStep } from '../src/storage/deletedTerms';
import { deleteMessage } from '../src/storage/messageRepo';
import { chatTurn } from './chatProse';
import { seededRandom } from './seededRandom';
import { median } from './stats';

const { values: v } = parseArgs({
  options: { turns: { type: 'string' }, reps: { type: 'string' }, db: { type: 'string' }, out: { type: 'string' } },
});
const turns = Number(v.turns ?? 100_000);
const reps = Number(v.reps ?? 3);
const path = v.db ?? `/tmp/recollect-delete-merge-${turns}.sqlite`;
const log = (line: string) => process.stderr.write(`${line}\n`);

const store = await openFileStore(path, { journal: 'wal' });
const db = store.db;
let have = await store.countItems('message');
const rnd = seededRandom(7);
if (have < turns) {
  log(`growing ${path} from ${have} to ${turns} turns…`);
  const started = performance.now();
  for (let c = Math.floor(have / 500); have < turns; c++) {
    const conversationId = `c${c}`;
    await store.createConversation({ id: conversationId, title: `Conversation ${c}` });
    const batch = Array.from({ length: Math.min(500, turns - have) }, (_, i) => ({
      id: `m${c}-${i}`,
      conversationId,
      role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
      speaker: i % 2 ? 'Assistant' : 'You',
      content: chatTurn(`Turn ${i} of ${c}.`, rnd),
      occurredAt: Date.UTC(2023, 0, 1) + (have + i) * 60_000,
    }));
    await store.appendTurns(batch);
    have += batch.length;
    if (c % 20 === 0) log(`  ${have} turns, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await store.indexQueuedTurns?.(Number.MAX_SAFE_INTEGER);
}
const pages = async (t: string) => Number((await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${t}_data`))[0]?.n ?? 0);
log('merging the indexes into one segment (the state a previous deletion leaves)…');
for (const t of ['messages_fts', 'turns_fts']) await db.exec(`INSERT INTO ${t}(${t}) VALUES ('optimize')`);
await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
const indexPages = { messages_fts: await pages('messages_fts'), turns_fts: await pages('turns_fts') };
log(`index pages: ${JSON.stringify(indexPages)}`);

const victims = (await db.query<{ id: string }>('SELECT id FROM messages ORDER BY pk LIMIT ?', [2 * (reps + 1)])).map((r) => r.id);
const oneTx: number[] = [];
const steps: { longest: number; median: number; count: number; sum: number; deleteMs: number }[] = [];
for (let r = 0; r <= reps; r++) {
  let t0 = performance.now();
  await db.transaction(async (tx) => {
    await deleteMessage(tx, victims[2 * r]!);
    await mergeDeletedTerms(tx);
  });
  const one = performance.now() - t0;
  await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');

  t0 = performance.now();
  await db.transaction(async (tx) => {
    await deleteMessage(tx, victims[2 * r + 1]!);
  });
  await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const deleteMs = performance.now() - t0;
  const each: number[] = [];
  for (;;) {
    const s0 = performance.now();
    const outcome = await db.transaction((tx) => mergeDeletedTermsStep(tx));
    each.push(performance.now() - s0);
    if (outcome !== 'merged') break;
  }
  await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const row = { longest: Math.max(...each), median: median(each), count: each.length, sum: each.reduce((a, b) => a + b, 0), deleteMs };
  log(
    `${r === 0 ? 'warm-up' : `rep ${r}/${reps}`}: one transaction ${Math.round(one)} ms; steps: delete ${Math.round(deleteMs)} ms, ${row.count} steps, longest ${Math.round(row.longest)} ms, sum ${Math.round(row.sum)} ms`,
  );
  if (r > 0) {
    oneTx.push(one);
    steps.push(row);
  }
}
await db.close();
const m = (f: (s: (typeof steps)[number]) => number) => Math.round(median(steps.map(f)));
const line = `| ${have.toLocaleString('en')} | ${indexPages.messages_fts + indexPages.turns_fts} | ${Math.round(median(oneTx))} ms | ${m((s) => s.deleteMs)} ms | ${m((s) => s.count)} | ${m((s) => s.longest)} ms | ${m((s) => s.median)} ms | ${m((s) => s.sum)} ms |`;
const table = [
  `Deletion's full-text scrub, Node, file database with WAL, step ${MERGE_STEP_PAGES} pages, median of ${reps} (${new Date().toISOString().slice(0, 10)}):`,
  '',
  '| turns | index pages | one transaction (before) | delete alone | steps | longest step | median step | steps summed |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|',
  line,
];
process.stdout.write(`${table.join('\n')}\n`);
if (v.out)
  await writeFile(
    v.out,
    JSON.stringify({ turns: have, indexPages, step: MERGE_STEP_PAGES, oneTx, steps, createdAt: new Date().toISOString() }, null, 2),
  );
if (!v.db && existsSync(path)) log(`kept ${path} for another run (--db ${path})`);
