/**
 * The duty cycle's thread (bench/cpuSlowdown.ts starts it as a Node worker thread): real clock,
 * real signals, the real process table, and the loop of bench/dutyCycle.ts. Its own thread keeps
 * the benchmark's event loop (page.evaluate round trips, JSON of results) from stretching a slice.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { processTree, renderersOf, runDutyCycle, type ProcessEntry } from './dutyCycle';

/** The process table from /proc (processes that exit while it is read are left out). */
export function readProcessTable(): ProcessEntry[] {
  const out: ProcessEntry[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // "pid (comm) state ppid …": comm may hold spaces or parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      // Zygote-forked children rewrite their title: the arguments become one space-separated string.
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.push({ pid: Number(d), ppid: Number.isFinite(ppid) ? ppid : null, cmdline });
    } catch {
      // exited between readdir and read
    }
  }
  return out;
}

export function signalAll(pids: readonly number[], sig: 'SIGSTOP' | 'SIGCONT'): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      // exited
    }
  }
}

/**
 * Sets the scheduling priority (nice, −20…19) of every thread of `rootPid`'s process tree. On Linux
 * a nice value belongs to a thread, and new threads and forked processes inherit their creator's,
 * so a browser's zygote and renderers passed on to the workers and pages they start later.
 * Returns the number of threads changed (0 when not permitted).
 */
export function setTreePriority(rootPid: number, nice: number): number {
  let changed = 0;
  for (const pid of processTree(readProcessTable(), rootPid)) {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited
    }
    for (const tid of tids) {
      try {
        setPriority(Number(tid), nice);
        changed++;
      } catch {
        // exited, or not permitted
      }
    }
  }
  return changed;
}

if (!isMainThread && workerData?.dutyCycle) {
  const { browserPid, factor, periodMs, shared } = workerData.dutyCycle as {
    browserPid: number;
    factor: number;
    periodMs: number;
    shared: SharedArrayBuffer;
  };
  raiseThisThread();
  const flag = new Int32Array(shared);
  const result = runDutyCycle(
    {
      now: () => performance.now(),
      sleep: (ms) => void Atomics.wait(flag, 0, 0, ms),
      ended: () => Atomics.load(flag, 0) !== 0,
      renderers: () => renderersOf(readProcessTable(), browserPid),
      signal: signalAll,
    },
    factor,
    periodMs,
  );
  parentPort?.postMessage(result);
}

/** Wakes this thread ahead of ordinary work (root may; others keep their priority): slices stay near their length under load. */
function raiseThisThread(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, -15);
  } catch {
    // not permitted: the cycle still keeps the ratio, with longer slices
  }
}
