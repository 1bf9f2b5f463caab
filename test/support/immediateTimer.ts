import type { Timer } from '../../src/core/base/jobs';

/** A Timer that fires on the next tick whatever the delay: backoffs pass at once (tests, benchmarks). */
export const immediateTimer: Timer = (fn) => {
  const g = globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown; clearTimeout(h: unknown): void };
  const h = g.setTimeout(fn, 0);
  return { cancel: () => g.clearTimeout(h) };
};
