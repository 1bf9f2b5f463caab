import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Vitest's default is one worker fewer than the cores, for its own process: on a 2-core CI
    // machine that is ONE worker, and the suite ran its files one after another while many of them
    // wait on sockets, timers and child processes. The main process only collects results.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
