import { describe, expect, it } from 'vitest';
import { BenchUsageError, commandArgs, intFlag, parseCrashArgs, parseVectorsArgs } from '../../bench/cliArgs';

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

describe('commandArgs (the flags of cold-open, delete-profile, delete-during-indexing, markdown-limits)', () => {
  const usage = (message?: string): never => {
    throw new BenchUsageError(message ?? 'usage');
  };
  const options = { reps: { type: 'string' }, incognito: { type: 'boolean' } } as const;

  it('reads known flags', () => {
    expect(commandArgs(['--reps', '5', '--incognito'], options, usage)).toEqual({ reps: '5', incognito: true });
  });

  it('sends an unknown flag or a positional to usage with the reason', () => {
    expect(() => commandArgs(['--bogus'], options, usage)).toThrow(/Unknown option '--bogus'/);
    expect(() => commandArgs(['stray'], options, usage)).toThrow(BenchUsageError);
  });

  it('intFlag: the fallback when absent, the integer when valid, usage naming the flag otherwise', () => {
    expect(intFlag({}, 'reps', 5, usage)).toBe(5);
    expect(intFlag({ reps: '12' }, 'reps', 5, usage)).toBe(12);
    expect(intFlag({ warmup: '0' }, 'warmup', 1, usage, { min: 0 })).toBe(0);
    expect(() => intFlag({ reps: '0' }, 'reps', 5, usage)).toThrow('--reps needs an integer ≥ 1, not 0');
    expect(() => intFlag({ reps: '2.5' }, 'reps', 5, usage)).toThrow(/--reps/);
    expect(() => intFlag({ reps: '' }, 'reps', 5, usage)).toThrow(/--reps/);
    expect(() => intFlag({ reps: true }, 'reps', 5, usage)).toThrow(/--reps/);
    expect(() => intFlag({ port: '70000' }, 'port', 0, usage, { max: 65535 })).toThrow(
      '--port needs an integer from 1 to 65535, not 70000',
    );
  });
});
