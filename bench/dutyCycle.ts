/**
 * The pure parts of the CPU slowdown (bench/cpuSlowdown.ts): how long each slice of a period is,
 * which processes are a browser's renderers, and the stop/continue loop itself over injected
 * capabilities (clock, sleep, signals, process table), so Node tests can run it on a fake clock.
 *
 * Invariant of `runDutyCycle`: every process it stopped is continued before it returns, and a
 * renderer that appears while the others are stopped is stopped in the same slice.
 */

/** One row of the process table (Linux /proc): its parent and its command line joined by spaces. */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number | null;
  readonly cmdline: string;
}

/** Run for `onMs`, stop for `offMs`: each thread gets `1/factor` of the wall clock. */
export function dutySlices(factor: number, periodMs: number): { readonly onMs: number; readonly offMs: number } {
  if (!Number.isFinite(factor) || factor < 1) throw new Error(`A slowdown is a factor ≥ 1, not ${factor}.`);
  if (!Number.isFinite(periodMs) || periodMs <= 0) throw new Error(`A duty-cycle period is a positive number of ms, not ${periodMs}.`);
  const onMs = periodMs / factor;
  return { onMs, offMs: periodMs - onMs };
}

/** The Chromium browser process started with `--user-data-dir=<profileDir>` (not one of its children). */
export function browserPidIn(table: readonly ProcessEntry[], profileDir: string): number | null {
  const flag = `--user-data-dir=${profileDir}`;
  for (const p of table) {
    const args = p.cmdline.split(/[\0 ]/);
    if (args.includes(flag) && !args.some((a) => a.startsWith('--type='))) return p.pid;
  }
  return null;
}

/**
 * Renderer processes (`--type=renderer`) descending from `browserPid` (Chromium forks them from its
 * zygote, so they are grandchildren or deeper). A renderer of another browser is never included.
 */
export function renderersOf(table: readonly ProcessEntry[], browserPid: number): number[] {
  const parent = new Map(table.map((p) => [p.pid, p.ppid]));
  const descends = (pid: number): boolean => {
    // Bounded walk: a broken table (a cycle) cannot hang the loop.
    for (let p = parent.get(pid), hops = 0; p != null && hops < 16; p = parent.get(p), hops++) if (p === browserPid) return true;
    return false;
  };
  return table.filter((p) => p.cmdline.includes('--type=renderer') && descends(p.pid)).map((p) => p.pid);
}

/** `rootPid` and every process descending from it (a browser and all its helpers: zygote, renderers, GPU, network). */
export function processTree(table: readonly ProcessEntry[], rootPid: number): number[] {
  const parent = new Map(table.map((p) => [p.pid, p.ppid]));
  const under = (pid: number): boolean => {
    for (let p: number | null | undefined = pid, hops = 0; p != null && hops < 16; p = parent.get(p), hops++)
      if (p === rootPid) return true;
    return false;
  };
  return table.filter((p) => under(p.pid)).map((p) => p.pid);
}

/** What the loop needs from the machine. */
export interface DutyCycleIo {
  now(): number;
  /** Sleeps up to `ms`; returns early when asked to end. */
  sleep(ms: number): void;
  ended(): boolean;
  renderers(): number[];
  signal(pids: readonly number[], sig: 'SIGSTOP' | 'SIGCONT'): void;
}

/** What a cycle did: wall time with the renderers running and stopped (their ratio is the real slowdown). */
export interface DutyCycleResult {
  readonly periods: number;
  readonly runningMs: number;
  readonly stoppedMs: number;
}

/**
 * Runs the stop/continue cycle until `io.ended()`. The stopped time is kept at (factor − 1) × the
 * running time *measured*, summed over the whole cycle, not per slice: on a loaded machine this
 * thread wakes late, a 5 ms running slice can last 15, and a fixed stopped slice would then give a
 * much smaller slowdown than asked for.
 */
export function runDutyCycle(io: DutyCycleIo, factor: number, periodMs: number): DutyCycleResult {
  const { onMs } = dutySlices(factor, periodMs);
  let pids = io.renderers();
  let periods = 0;
  let runningMs = 0;
  let stoppedMs = 0;
  let stoppedAt: number | null = null;
  try {
    while (!io.ended()) {
      io.signal(pids, 'SIGCONT');
      const continuedAt = io.now();
      if (stoppedAt !== null) stoppedMs += continuedAt - stoppedAt;
      stoppedAt = null;
      io.sleep(onMs);
      if (io.ended()) break;
      io.signal(pids, 'SIGSTOP');
      stoppedAt = io.now();
      runningMs += stoppedAt - continuedAt;
      // Re-read the renderers while stopped, so a new page's renderer is caught within one period;
      // the time spent reading counts towards the stopped time.
      const next = io.renderers();
      io.signal(
        next.filter((p) => !pids.includes(p)),
        'SIGSTOP',
      );
      pids = next;
      const owed = (factor - 1) * runningMs - stoppedMs - (io.now() - stoppedAt);
      io.sleep(Math.max(0, owed));
      periods++;
    }
  } finally {
    io.signal(pids, 'SIGCONT');
    if (stoppedAt !== null) stoppedMs += io.now() - stoppedAt;
    const late = io.renderers().filter((p) => !pids.includes(p));
    if (late.length) io.signal(late, 'SIGCONT');
  }
  return { periods, runningMs, stoppedMs };
}
