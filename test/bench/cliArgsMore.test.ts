import { describe, expect, it } from 'vitest';
import { BenchUsageError, parseCrashArgs, parseVectorsArgs } from '../../bench/cliArgs';

describe('bench crash and vectors arguments (node:util parseArgs, strict)', () => {
  it('reads the crash flags with their defaults and refuses bad ones', () => {
    expect(parseCrashArgs([])).toEqual({ trials: 20, out: undefined, seed: 12, build: true });
    expect(parseCrashArgs(['--trials', '100', '--seed', '3', '--no-build', '--out', 'r.json'])).toEqual({
      trials: 100,
      out: 'r.json',
      seed: 3,
      build: false,
    });
    expect(() => parseCrashArgs(['--trials', '0'])).toThrow(BenchUsageError);
    expect(() => parseCrashArgs(['--trails', '5'])).toThrow(/trails/);
  });

  it('reads the vectors flags with their defaults and refuses bad ones', () => {
    expect(parseVectorsArgs([])).toEqual({ runtime: 'node', out: undefined, n: 100_000, dim: 384, queries: 200, k: 100 });
    expect(parseVectorsArgs(['--runtime', 'browser', '--n', '5000', '--k', '10'])).toMatchObject({ runtime: 'browser', n: 5000, k: 10 });
    expect(() => parseVectorsArgs(['--runtime', 'gpu'])).toThrow(/node or browser/);
    expect(() => parseVectorsArgs(['--dim', 'x'])).toThrow(BenchUsageError);
  });
});
