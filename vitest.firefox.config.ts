import { defineConfig } from 'vitest/config';

/** The Firefox smoke run (test/firefox): served from dist/, so `npm run build` comes first. */
export default defineConfig({
  test: {
    include: ['test/firefox/**/*.firefox.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
