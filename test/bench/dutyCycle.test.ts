import { describe, expect, it } from 'vitest';
import { browserPidIn, dutySlices, renderersOf, runDutyCycle, type DutyCycleIo, type ProcessEntry } from '../../bench/dutyCycle';
import { BenchUsageError, parseScaleArgs, slowdownFactor } from '../../bench/cliArgs';

// A Chromium tree as /proc shows it: browser 100 → zygote 110 → renderers 120, 121; GPU 105; and
// another browser (200) with its own renderer 220, which must never be touched.
const TABLE: ProcessEntry[] = [
  { pid: 100, ppid: 1, cmdline: '/usr/lib/chromium/chromium --headless --user-data-dir=/tmp/p1 --no-sandbox' },
  { pid: 105, ppid: 100, cmdline: '/usr/lib/chromium/chromium --type=gpu-process --user-data-dir=/tmp/p1' },
  { pid: 110, ppid: 100, cmdline: '/usr/lib/chromium/chromium --type=zygote --user-data-dir=/tmp/p1' },
  { pid: 120, ppid: 110, cmdline: '/usr/lib/chromium/chromium --type=renderer --renderer-client-id=5' },
  { pid: 121, ppid: 110, cmdline: '/usr/lib/chromium/chromium --type=renderer --renderer-client-id=6' },
  { pid: 130, ppid: 100, cmdline: '/usr/lib/chromium/chromium --type=utility --utility-sub-type=network.mojom.NetworkService' },
  { pid: 200, ppid: 1, cmdline: '/usr/lib/chromium/chromium --headless --user-data-dir=/tmp/p10' },
  { pid: 210, ppid: 200, cmdline: '/usr/lib/chromium/chromium --type=zygote' },
  { pid: 220, ppid: 210, cmdline: '/usr/lib/chromium/chromium --type=renderer' },
];

describe('the slowdown duty cycle: pure parts', () => {
  it('splits a period into running and stopped slices, refusing factors below 1', () => {
    expect(dutySlices(4, 20)).toEqual({ onMs: 5, offMs: 15 });
    expect(dutySlices(1, 20)).toEqual({ onMs: 20, offMs: 0 });
    expect(() => dutySlices(0.5, 20)).toThrow(/factor ≥ 1/);
    expect(() => dutySlices(Number.NaN, 20)).toThrow(/factor ≥ 1/);
    expect(() => dutySlices(4, 0)).toThrow(/period/);
  });

  it("finds the browser of a profile (not a child, not a profile whose name starts the same) and only that browser's renderers", () => {
    expect(browserPidIn(TABLE, '/tmp/p1')).toBe(100);
    expect(browserPidIn(TABLE, '/tmp/p10')).toBe(200);
    expect(browserPidIn(TABLE, '/tmp/p2')).toBeNull();
    expect(renderersOf(TABLE, 100)).toEqual([120, 121]);
    expect(renderersOf(TABLE, 200)).toEqual([220]);
    // A cycle in a damaged table ends the walk instead of hanging.
    expect(
      renderersOf(
        [
          { pid: 1, ppid: 2, cmdline: '--type=renderer' },
          { pid: 2, ppid: 1, cmdline: '' },
        ],
        100,
      ),
    ).toEqual([]);
  });
});

/** A fake machine: a clock that sleeps advance (plus `lateMs` of wake-up delay), and a log of signals. */
function fakeIo(options: { periods: number; lateMs?: number; renderers?: (t: number) => number[] }) {
  let now = 0;
  let sleeps = 0;
  const stopped = new Set<number>();
  const running = { ms: 0 };
  let lastCont: number | null = null;
  const log: string[] = [];
  const io: DutyCycleIo = {
    now: () => now,
    sleep: (ms) => {
      sleeps++;
      now += ms + (ms > 0 ? (options.lateMs ?? 0) : 0);
    },
    ended: () => sleeps >= options.periods * 2,
    renderers: () => (options.renderers ?? (() => [120, 121]))(now),
    signal: (pids, sig) => {
      for (const p of pids) {
        if (sig === 'SIGSTOP') stopped.add(p);
        else stopped.delete(p);
        log.push(`${sig} ${p}`);
      }
      if (sig === 'SIGCONT' && lastCont === null) lastCont = now;
      if (sig === 'SIGSTOP' && lastCont !== null) {
        running.ms += now - lastCont;
        lastCont = null;
      }
    },
  };
  return { io, stopped, log, running, now: () => now };
}

describe('the slowdown duty cycle: the loop, on a fake clock', () => {
  it('keeps the renderers stopped (factor − 1) × as long as they ran, and resumes every one at the end', () => {
    const m = fakeIo({ periods: 50 });
    const r = runDutyCycle(m.io, 4, 20);
    expect(r.runningMs / (r.runningMs + r.stoppedMs)).toBeCloseTo(1 / 4, 2);
    expect(m.stopped.size).toBe(0);
  });

  it('keeps the ratio when its thread wakes late (a loaded machine): the stopped time follows the measured running time', () => {
    const m = fakeIo({ periods: 50, lateMs: 10 });
    const r = runDutyCycle(m.io, 4, 20);
    // Fixed slices would run 5 + 10 ms and stop 15 + 10 ms: a ratio of 0.375, a 2.7× slowdown.
    expect(r.runningMs / (r.runningMs + r.stoppedMs)).toBeGreaterThan(0.22);
    expect(r.runningMs / (r.runningMs + r.stoppedMs)).toBeLessThan(0.28);
  });

  it('stops a renderer that appears mid-cycle (a new page) in the same stopped slice, and resumes it at the end', () => {
    const m = fakeIo({ periods: 20, renderers: (t) => (t > 100 ? [120, 121, 122] : [120, 121]) });
    runDutyCycle(m.io, 4, 20);
    const first = m.log.indexOf('SIGSTOP 122');
    expect(first).toBeGreaterThan(0);
    expect(m.log.slice(first + 1).some((l) => l === 'SIGCONT 122')).toBe(true);
    expect(m.stopped.size).toBe(0);
  });
});

describe('--slowdown', () => {
  it('takes a factor from 1 to 20 for the browser runtime, and says what is wrong otherwise', () => {
    const base = ['--data', 'a', '--sizes', '10000', '--runtime', 'browser'];
    expect(parseScaleArgs([...base, '--slowdown', '4']).slowdown).toBe(4);
    expect(parseScaleArgs([...base, '--slowdown', '2.5']).slowdown).toBe(2.5);
    expect(parseScaleArgs(base).slowdown).toBeUndefined();
    expect(() => parseScaleArgs([...base, '--slowdown', 'fast'])).toThrow(/--slowdown needs a factor from 1 to 20/);
    expect(() => parseScaleArgs([...base, '--slowdown', '0.5'])).toThrow(BenchUsageError);
    expect(() => parseScaleArgs([...base, '--slowdown', '50'])).toThrow(BenchUsageError);
    expect(() => parseScaleArgs(['--data', 'a', '--sizes', '10000', '--slowdown', '4'])).toThrow(/only available with --runtime browser/);
    expect(slowdownFactor(undefined)).toBeUndefined();
    expect(slowdownFactor('1')).toBe(1);
  });
});
