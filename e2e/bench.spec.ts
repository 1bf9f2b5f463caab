/**
 * The recall benchmark page (bench.html) on a tiny hand-made corpus: the benchmark worker ingests
 * it into its own OPFS file through the engine, embeds with the model worker, ranks each question,
 * then deletes its file; the app's own database is left byte for byte as it was.
 */
import { expect, test } from '@playwright/test';
import type { BenchCorpusInput } from '../bench/host/benchProtocol';
import { expectDatabaseBytes, PAGE_BYTES } from './appSteps';

const day = (d: number, h = 18) => Date.UTC(2023, 4, d, h);

const turns = (session: string, lines: readonly (readonly [string, string])[]) =>
  lines.map(([speaker, text], i) => ({ id: `${session}:${i + 1}`, role: 'user' as const, speaker, text }));

const CORPUS: BenchCorpusInput = {
  id: 'e2e-tiny',
  speakers: ['Ann', 'Bob'],
  sessions: [
    {
      id: 'S1',
      date: day(8),
      turns: turns('S1', [
        ['Ann', 'Hey Bob, how was your week?'],
        ['Bob', 'Busy! I started pottery classes downtown on Tuesday.'],
        ['Ann', 'Pottery? That sounds relaxing.'],
        ['Bob', 'It is. I made a lopsided blue bowl for my mum.'],
        ['Ann', 'I am training for the Lisbon half marathon in October.'],
        ['Bob', 'Wow, how far do you run now?'],
        ['Ann', 'About fifteen kilometres every Sunday morning.'],
        ['Bob', 'Impressive. Any injuries?'],
        ['Ann', 'Just a sore knee, my physio says it is fine.'],
        ['Bob', 'Good luck with it!'],
      ]),
    },
    {
      id: 'S2',
      date: day(20),
      turns: turns('S2', [
        ['Bob', 'Ann! We adopted a dog yesterday.'],
        ['Ann', 'No way, what kind of dog?'],
        ['Bob', 'A beagle puppy. We named her Toast.'],
        ['Ann', 'Toast is the best name ever.'],
        ['Bob', 'She already chewed my running shoes.'],
        ['Ann', 'Classic puppy. I got a new job offer at the museum, by the way.'],
        ['Bob', 'Congratulations! Which museum?'],
        ['Ann', 'The maritime museum by the harbour, as a curator.'],
        ['Bob', 'That suits you perfectly.'],
        ['Ann', 'Thanks, I start in June.'],
      ]),
    },
  ],
  questions: [
    { id: 'q1', text: 'What did Bob make in his pottery class?', askedAt: day(30) },
    { id: 'q2', text: 'What is the name of the dog Bob adopted?', askedAt: day(30) },
    { id: 'q3', text: 'Where will Ann work as a curator?', askedAt: day(30) },
  ],
};
const EVIDENCE = ['S1:4', 'S2:3', 'S2:8'];
const K = 5;

test('the benchmark page ranks the evidence turn in the top k on OPFS and cleans up after itself', async ({ page }) => {
  test.setTimeout(120_000);
  // Let the app create its own database first, then leave it (its workers close their handles).
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await page.goto('/bench.html');
  await page.waitForFunction(() => document.getElementById('status')?.dataset.ready === 'true');
  const appFile = async () => (await page.evaluate(() => window.recollectBench!.opfsFiles())).find((f) => f.name === 'recollect.sqlite');
  // The app's file is written: a whole number of database pages.
  await expect
    .poll(async () => {
      const size = (await appFile())?.size ?? 0;
      return size > 0 && size % PAGE_BYTES === 0 ? 'whole pages' : `${size} bytes`;
    })
    .toBe('whole pages');
  const filesBefore = await page.evaluate(() => window.recollectBench!.opfsFiles());
  const digestBefore = await page.evaluate(() => window.recollectBench!.opfsDigest('recollect.sqlite'));

  const result = await page.evaluate((corpus) => window.recollectBench!.recallCorpus(corpus, { depth: 20 }), CORPUS);

  expect(result.fileName).toBe('bench-e2e-tiny.sqlite');
  expect(result.ingest.turns).toBe(20);
  expect(result.embedderId).not.toBeNull();
  expectDatabaseBytes(result.dbBytes);
  expect(result.ranked).toHaveLength(CORPUS.questions.length);
  expect(result.latenciesMs).toHaveLength(CORPUS.questions.length);
  EVIDENCE.forEach((turnId, i) => expect(result.ranked[i]!.slice(0, K), `question ${CORPUS.questions[i]!.id}`).toContain(turnId));

  // The benchmark file (and its journals) is gone; the app's database is untouched.
  const filesAfter = await page.evaluate(() => window.recollectBench!.opfsFiles());
  expect(filesAfter.filter((f) => f.name.startsWith('bench-'))).toEqual([]);
  expect(filesAfter).toEqual(filesBefore);
  expect(await page.evaluate(() => window.recollectBench!.opfsDigest('recollect.sqlite'))).toBe(digestBefore);

  // A second run of the same corpus starts from a fresh file (nothing left from the first).
  const again = await page.evaluate((corpus) => window.recollectBench!.recallCorpus(corpus, { depth: 20 }), CORPUS);
  expect(again.ingest.turns).toBe(20);
  // The same long-lived worker ran it, under a name it had not used (its VFS keeps per-path state).
  expect(again.fileName).toBe('bench-e2e-tiny-2.sqlite');
  expect(again.ranked).toEqual(result.ranked);
  expect((await page.evaluate(() => window.recollectBench!.opfsFiles())).filter((f) => f.name.startsWith('bench-'))).toEqual([]);
});
