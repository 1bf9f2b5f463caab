/**
 * Smoke version of the crash benchmark (bench/crash.ts; the full run is
 * `npm run bench -- crash --trials N`): one kill during each workload — turns appended at the
 * engine's pace, a history import, an embedder switch, a memory import, turns typed in the chat —
 * then no acknowledged turn lost, none stored twice, integrity ok, and each import left what the
 * docs promise (docs/importing.md, docs/privacy.md). It must also have put turns at risk: a run
 * that acknowledged (almost) nothing proves nothing, so a floor on acknowledged turns makes it fail.
 */
import { expect, test } from '@playwright/test';
import { runCrash } from '../bench/crash';
import { SMOKE_HISTORY, historyTurns } from '../bench/crashWorkloads';

test('crash smoke: a kill during each workload loses no acknowledged turn and leaves imports whole or resumable', async () => {
  test.setTimeout(600_000);
  const workloads = ['engine-appends', 'history-import', 'embedder-switch', 'memory-import', 'ui-typing'] as const;
  const report = await runCrash({ trials: workloads.length, seed: 7, workloads, history: SMOKE_HISTORY });

  expect(report.perTrial.map((t) => t.workload)).toEqual(workloads);
  expect(report.perTrial.filter((t) => t.error !== undefined)).toEqual([]);
  expect(report.lostTurns).toEqual([]);
  expect(report.duplicates).toBe(0);
  expect(report.integrityFailures).toBe(0);
  expect(report.inconsistentImports).toBe(0);
  // Appends at the engine's pace for at least 0.2 s (seed 7: about a second) acknowledge tens of turns.
  expect(report.byWorkload['engine-appends'].acknowledgedTurns).toBeGreaterThanOrEqual(5);
  expect(report.acknowledgedTurns).toBeGreaterThanOrEqual(10);
  const history = report.perTrial.find((t) => t.workload === 'history-import')!;
  expect(history.importedAfterRetry).toBe(historyTurns(SMOKE_HISTORY));
  expect(history.importedDistinct).toBe(historyTurns(SMOKE_HISTORY));
  const memory = report.perTrial.find((t) => t.workload === 'memory-import')!;
  expect(['old', 'new']).toContain(memory.memoryAfterKill);
  expect(report.perTrial.find((t) => t.workload === 'embedder-switch')!.embedderConsistent).toBe(true);
});
