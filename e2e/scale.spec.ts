/**
 * The scale benchmark's browser runtime in miniature: the benchmark worker grows ONE OPFS file by
 * appending two corpora, ranks questions with our recall and with BM25, releases the file so a
 * NEW page can open it cold and search it (timed from navigation), takes it back, reports its
 * worker heap over CDP, and finally deletes it.
 */
import { expect, test } from '@playwright/test';
import type { BenchCorpusInput } from '../bench/host/benchProtocol';
import { measureColdOpen, workerHeapBytes } from '../bench/scaleBrowser';
import { expectDatabaseBytes } from './appSteps';

const day = (d: number) => Date.UTC(2023, 4, d, 18);
const FILE = 'bench-scale-e2e.sqlite';

function corpus(id: string, fact: string, d: number): BenchCorpusInput {
  const lines = ['How was your week?', `I finally started ${fact} classes on Tuesday.`, 'That sounds fun.', 'It was, see you soon.'];
  return {
    id,
    speakers: ['Ann', 'Bob'],
    sessions: [
      {
        id: `${id}/S1`,
        date: day(d),
        turns: lines.map((text, i) => ({ id: `${id}/S1:${i + 1}`, role: 'user' as const, speaker: i % 2 ? 'Bob' : 'Ann', text })),
      },
    ],
    questions: [],
  };
}

test('the scale benchmark grows one OPFS database, measures it, opens it cold in a new page, then deletes it', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/bench.html');
  await page.waitForFunction(() => document.getElementById('status')?.dataset.ready === 'true');
  const opened = await page.evaluate((f) => window.recollectBench!.scale.open(f), FILE);
  expect(opened.embedderId).not.toBeNull();

  const a = await page.evaluate((c) => window.recollectBench!.scale.append(c), corpus('a', 'pottery', 8));
  const b = await page.evaluate((c) => window.recollectBench!.scale.append(c), corpus('b', 'kayaking', 20));
  expect([a.turns, b.turns]).toEqual([4, 4]);

  const questions = [
    { id: 'q1', text: 'What classes did Bob start, pottery?', askedAt: day(30) },
    { id: 'q2', text: 'Which kayaking classes were started?', askedAt: day(30) },
  ];
  const m = await page.evaluate((qs) => window.recollectBench!.scale.measure(qs), questions);
  expect(m.turns).toBe(8);
  expectDatabaseBytes(m.dbBytes);
  expect(m.wasmBytes).toBeGreaterThan(1_000_000);
  expect(m.ours.ranked[0]!.slice(0, 3)).toContain('a/S1:2');
  expect(m.ours.ranked[1]!.slice(0, 3)).toContain('b/S1:2');
  expect(m.bm25.ranked[1]![0]).toBe('b/S1:2');
  // Three timed passes by default, every one counted: a time per question and pass, per system;
  // the ranking is scored once (one per question).
  expect([m.ours.latenciesMs.length, m.bm25.latenciesMs.length, m.ours.ranked.length]).toEqual([6, 6, 2]);
  const once = await page.evaluate((qs) => window.recollectBench!.scale.measure(qs, { reps: 1 }), questions);
  expect([once.ours.latenciesMs.length, once.ours.ranked]).toEqual([2, m.ours.ranked]);

  expect(await workerHeapBytes(page, 'bench.worker')).toBeGreaterThan(1_000_000);

  await page.evaluate(() => window.recollectBench!.scale.close());
  const cold = await measureColdOpen(page, FILE, questions[0]!);
  expect(cold.navigationToResultMs).toBeGreaterThan(cold.openMs + cold.firstRecallMs);

  // The first page takes the file back and still sees every turn.
  await page.evaluate((f) => window.recollectBench!.scale.open(f, true), FILE);
  expect((await page.evaluate((qs) => window.recollectBench!.scale.measure(qs), questions)).turns).toBe(8);
  await page.evaluate((f) => window.recollectBench!.scale.delete(f), FILE);
  expect((await page.evaluate(() => window.recollectBench!.opfsFiles())).filter((f) => f.name.startsWith('bench-'))).toEqual([]);
});
