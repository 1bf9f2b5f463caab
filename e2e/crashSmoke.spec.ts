/**
 * Smoke version of the crash benchmark (bench/crash.ts; the full run is
 * `npm run bench -- crash --trials N`): three kills of the renderer, engine worker or browser
 * while turns are typed, then no acknowledged turn lost, none stored twice, integrity ok.
 */
import { expect, test } from '@playwright/test';
import { runCrash } from '../bench/crash';

test('crash smoke: three random kills lose no acknowledged turn', async () => {
  test.setTimeout(300_000);
  const report = await runCrash({ trials: 3, seed: 7 });
  expect(report.perTrial).toHaveLength(3);
  expect(report.lostTurns).toEqual([]);
  expect(report.duplicates).toBe(0);
  expect(report.integrityFailures).toBe(0);
});
