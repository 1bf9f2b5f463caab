import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from './e2e/browser';

const PORT = Number(process.env.E2E_PORT ?? 4311);
const executablePath = chromiumExecutable();

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Spec files run two at a time (tests inside a file stay in order): many specs spend their time
  // waiting (back-offs, reloads, streamed answers), so two overlap well on two cores. E2E_WORKERS=1
  // runs them one at a time. Files built for the tests are built once (e2e/fileCache.ts locks).
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    launchOptions: { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS },
    acceptDownloads: true,
    trace: 'retain-on-failure',
  },
  // Serves the production build (npm run test:e2e builds first).
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${PORT} --strictPort`,
    url: `http://127.0.0.1:${PORT}`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
