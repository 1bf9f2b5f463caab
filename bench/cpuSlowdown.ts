/**
 * A phone's speed for the browser benchmarks: makes Chromium's renderer processes — the page and
 * every dedicated worker in it (engine, SQLite, models) — run `factor`× slower.
 *
 * Why not Chromium's own CPU throttling: CDP `Emulation.setCPUThrottlingRate` slows only a page's
 * main thread. Measured on Debian Chromium 156 (bench/results/phone-4x-s15.md): rate 4 on the page
 * made a fixed loop in the page 3.1× slower and the same loop in a dedicated worker 1.1× (noise);
 * sent to the worker's own target (Target.setAutoAttach, non-flattened) it is refused ("Operation
 * is only supported for pages, not workers"). Recollect's work happens in workers, so that
 * throttle would leave everything measured at desktop speed.
 *
 * What this does instead: a duty cycle on the renderer processes (Linux signals): SIGCONT for
 * 1/factor of every period, SIGSTOP for the rest, so every thread of those processes gets at most
 * 1/factor of the wall clock — each core "factor× slower", the number of cores unchanged. It
 * covers CPU work in the page and its workers, including WebAssembly; it does not slow the browser
 * process, the network service or the disk (OPFS writes finish at desktop speed once issued).
 * Latencies gain up to one stopped slice (period − period/factor) of jitter, so short operations
 * are measured over many repetitions. The loop runs in a Node worker thread so the benchmark's own
 * event loop cannot stretch the slices (bench/cpuSlowdownCycle.ts); the renderer set is re-read in
 * every stopped slice (new pages start new renderers). The loop and its arithmetic are in
 * bench/dutyCycle.ts, tested on a fake clock.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { browserPidIn, dutySlices, renderersOf, type DutyCycleResult } from './dutyCycle';
import { readProcessTable, signalAll } from './cpuSlowdownCycle';

export interface CpuSlowdown {
  readonly factor: number;
  readonly periodMs: number;
  /** One sentence for reports: what is slowed and how. */
  readonly covers: string;
  /** Resumes every process it stopped and ends the cycle; returns the measured running/stopped time. */
  stop(): Promise<DutyCycleResult | null>;
}

/** The Chromium browser process using `profileDir` (Playwright passes `--user-data-dir=<dir>`). */
export function browserPidForProfile(profileDir: string): number {
  const pid = browserPidIn(readProcessTable(), profileDir);
  if (pid === null) throw new Error(`No Chromium browser process with --user-data-dir=${profileDir}.`);
  return pid;
}

export const SLOWDOWN_PERIOD_MS = 20;

/** What a slowdown of `factor` covers, for reports. */
export function describeSlowdown(factor: number, periodMs = SLOWDOWN_PERIOD_MS): string {
  if (factor === 1) return 'no slowdown';
  return (
    `${factor}× slower CPU for the page and all its workers (Chromium's renderer processes paused ${Math.round(100 * (1 - 1 / factor))}% of every ${periodMs} ms ` +
    'with SIGSTOP/SIGCONT, since CDP CPU throttling does not reach dedicated workers); the browser process, network service and disk run at full speed'
  );
}

const CYCLE_FILE = fileURLToPath(new URL('./cpuSlowdownCycle.ts', import.meta.url));

/** Slows the renderers of the browser `browserPid` `factor`× (factor ≥ 1; 1 = a no-op). */
export function startCpuSlowdown(browserPid: number, factor: number, periodMs = SLOWDOWN_PERIOD_MS): CpuSlowdown {
  dutySlices(factor, periodMs); // validates
  const covers = describeSlowdown(factor, periodMs);
  if (factor === 1) return { factor, periodMs, covers, stop: async () => null };
  const shared = new SharedArrayBuffer(4);
  // The bench runs under tsx; a worker thread does not inherit its loader, so register it first.
  const worker = new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(CYCLE_FILE)});`, {
    eval: true,
    workerData: { dutyCycle: { browserPid, factor, periodMs, shared } },
  });
  let result: DutyCycleResult | null = null;
  worker.once('message', (r: DutyCycleResult) => {
    result = r;
  });
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (e) => process.stderr.write(`[cpu slowdown] ${e.message}\n`));
  // A benchmark that dies must not leave Chromium stopped.
  const resumeOnExit = () => signalAll(renderersOf(readProcessTable(), browserPid), 'SIGCONT');
  process.once('exit', resumeOnExit);
  return {
    factor,
    periodMs,
    covers,
    async stop() {
      const flag = new Int32Array(shared);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await ended;
      resumeOnExit();
      process.off('exit', resumeOnExit);
      return result;
    },
  };
}
