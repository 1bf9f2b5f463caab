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
 * event loop cannot stretch the slices; the renderer set is re-read in every stopped slice (new
 * pages start new renderers).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

export interface CpuSlowdown {
  readonly factor: number;
  readonly periodMs: number;
  /** One sentence for reports: what is slowed and how. */
  readonly covers: string;
  /** Resumes every process it stopped and ends the cycle. */
  stop(): Promise<void>;
}

/** The Chromium browser process using `profileDir` (Playwright passes `--user-data-dir=<dir>`). */
export function browserPidForProfile(profileDir: string): number {
  for (const pid of listPids()) {
    const cmd = cmdline(pid);
    if (cmd.some((a) => a === `--user-data-dir=${profileDir}`) && !cmd.some((a) => a.startsWith('--type='))) return pid;
  }
  throw new Error(`No Chromium browser process with --user-data-dir=${profileDir}.`);
}

function listPids(): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return []; // exited
  }
}

function parentOf(pid: number): number | null {
  try {
    // "pid (comm) state ppid …": comm may hold spaces or parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Renderer processes descending from `browserPid` (renderers are children of Chromium's zygote). */
export function rendererPids(browserPid: number): number[] {
  const pids = listPids();
  const parent = new Map(pids.map((p) => [p, parentOf(p)]));
  const descends = (pid: number): boolean => {
    for (let p: number | null | undefined = parent.get(pid), hops = 0; p && hops < 8; p = parent.get(p), hops++) if (p === browserPid) return true;
    return false;
  };
  // Zygote-forked children rewrite their title: the arguments become one space-separated string.
  return pids.filter((p) => descends(p) && cmdline(p).join(' ').includes('--type=renderer'));
}

// The cycle itself, run as a worker thread (eval'd: this file is loaded by tsx, the worker is plain JS).
const CYCLE = `
const { workerData } = require('node:worker_threads');
const { readdirSync, readFileSync } = require('node:fs');
const { browserPid, onMs, offMs, shared } = workerData;
const flag = new Int32Array(shared);
const sleep = (ms) => Atomics.wait(flag, 0, 0, ms);
const parentOf = (pid) => { try { const s = readFileSync('/proc/' + pid + '/stat', 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]); } catch { return null; } };
const isRenderer = (pid) => { try { return readFileSync('/proc/' + pid + '/cmdline', 'utf8').includes('--type=renderer'); } catch { return false; } };
const renderers = () => {
  const pids = readdirSync('/proc').filter((d) => /^\\d+$/.test(d)).map(Number);
  const parent = new Map(pids.map((p) => [p, parentOf(p)]));
  return pids.filter((pid) => { for (let p = parent.get(pid), h = 0; p && h < 8; p = parent.get(p), h++) if (p === browserPid) return isRenderer(pid); return false; });
};
const signal = (pids, sig) => { for (const p of pids) { try { process.kill(p, sig); } catch {} } };
let pids = renderers();
while (Atomics.load(flag, 0) === 0) {
  signal(pids, 'SIGCONT');
  sleep(onMs);
  if (Atomics.load(flag, 0) !== 0) break;
  signal(pids, 'SIGSTOP');
  // Re-read the renderers while they are stopped (≈ 2 ms), so a new page's renderer is caught
  // within one period; the time spent reading counts towards the stopped slice.
  const t = performance.now();
  const next = renderers();
  signal(next.filter((p) => !pids.includes(p)), 'SIGSTOP');
  pids = next;
  sleep(Math.max(0, offMs - (performance.now() - t)));
}
signal(pids, 'SIGCONT');
signal(renderers(), 'SIGCONT');
`;

export const SLOWDOWN_PERIOD_MS = 20;

/** What a slowdown of `factor` covers, for reports. */
export function describeSlowdown(factor: number, periodMs = SLOWDOWN_PERIOD_MS): string {
  if (factor === 1) return 'no slowdown';
  return `${factor}× slower CPU for the page and all its workers (Chromium's renderer processes paused ${Math.round(100 * (1 - 1 / factor))}% of every ${periodMs} ms ` +
    "with SIGSTOP/SIGCONT, since CDP CPU throttling does not reach dedicated workers); the browser process, network service and disk run at full speed";
}

/** Slows the renderers of the browser `browserPid` `factor`× (factor ≥ 1; 1 = a no-op). */
export function startCpuSlowdown(browserPid: number, factor: number, periodMs = SLOWDOWN_PERIOD_MS): CpuSlowdown {
  if (!(factor >= 1)) throw new Error(`A slowdown is a factor ≥ 1, not ${factor}.`);
  const covers = describeSlowdown(factor, periodMs);
  if (factor === 1) return { factor, periodMs, covers, stop: async () => undefined };
  const shared = new SharedArrayBuffer(4);
  const onMs = periodMs / factor;
  const worker = new Worker(CYCLE, { eval: true, workerData: { browserPid, onMs, offMs: periodMs - onMs, shared } });
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // A benchmark that dies must not leave Chromium stopped.
  const resumeOnExit = () => { for (const p of rendererPids(browserPid)) try { process.kill(p, 'SIGCONT'); } catch { /* exited */ } };
  process.once('exit', resumeOnExit);
  return {
    factor, periodMs, covers,
    async stop() {
      const flag = new Int32Array(shared);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await ended;
      process.off('exit', resumeOnExit);
    },
  };
}
