/**
 * The sync benchmark's smoke run (the full one is `npm run bench -- sync`, 10,000 turns): a small
 * memory goes from device A to a new device B through a relay on 127.0.0.1, and the report's
 * numbers are the run's own (every turn arrived, every round trip was timed).
 */
import { describe, expect, it } from 'vitest';
import { runSyncBench, syncBenchSummary } from '../../bench/syncEngine';

describe('bench sync (smoke)', () => {
  it('syncs every turn to a new device and times each steady-state round trip', async () => {
    const lines: string[] = [];
    const report = await runSyncBench({ turns: 130, reps: 3, warmup: 1 }, (line) => lines.push(line));
    expect(report.turns).toBe(130);
    expect(report.turnChars).toBeGreaterThan(600);
    expect(report.roundTripMs).toHaveLength(3);
    expect(report.roundTripMs.every((ms) => ms > 0)).toBe(true);
    expect(report.firstSyncMs).toBeGreaterThan(0);
    expect(report.relayBytes).toBeGreaterThan(130 * 600);
    expect(lines.some((l) => l.includes('first sync'))).toBe(true);
    expect(syncBenchSummary(report)).toMatch(/round trip .* 3 reps: median/);
  }, 120_000);
});
