/**
 * Which Chromium the browser tests drive: Debian's /usr/bin/chromium when present (this machine
 * and CI never download browsers), else $CHROMIUM_PATH, else Playwright's own browser.
 */
import { existsSync } from 'node:fs';

export function chromiumExecutable(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  return undefined;
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
