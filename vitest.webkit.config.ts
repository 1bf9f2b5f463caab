import { defineConfig } from 'vitest/config';

/** The WebKit smoke run (test/webkit): served from dist/, so `npm run build` comes first; needs a display (xvfb-run). */
export default defineConfig({
  test: {
    include: ['test/webkit/**/*.webkit.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
