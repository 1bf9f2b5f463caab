import type { Timer } from '../../src/core/base/jobs';

/** A clock and a timer that move only when told: `advance(ms)` runs every timer now due, in order of registration. */
export function fakeTime(start: number) {
  let now = start;
  const timers: { at: number; fn: () => void }[] = [];
  const timer: Timer = (fn, ms) => {
    const t = { at: now + ms, fn };
    timers.push(t);
    return { cancel: () => void (timers.includes(t) && timers.splice(timers.indexOf(t), 1)) };
  };
  return {
    clock: { now: () => now },
    timer,
    advance(ms: number) {
      now += ms;
      for (const t of timers.filter((x) => x.at <= now)) {
        timers.splice(timers.indexOf(t), 1);
        t.fn();
      }
    },
  };
}
