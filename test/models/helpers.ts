/** Shared setup for model tests: build the bundled model once (cached) and forbid the network. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { env } from '@huggingface/transformers';
import { configureNodeEnv } from '../../src/models/nodeEnv';
import type { ModelPlatform } from '../../src/models/transformersEnv';

const script = fileURLToPath(new URL('../../scripts/build-offline-model.mjs', import.meta.url));

export const fetchCalls: string[] = [];

export function setUpOfflineModels(): ModelPlatform {
  // Idempotent: exits in milliseconds when build-info.json matches.
  execFileSync(process.execPath, [script], { stdio: 'pipe' });
  const platform = configureNodeEnv();
  env.allowRemoteModels = false;
  // Any network attempt by transformers.js goes through env.fetch: record and refuse it.
  env.fetch = (async (input: string | URL | Request) => {
    fetchCalls.push(String(input));
    throw new Error(`network access in a test: ${String(input)}`);
  }) as typeof fetch;
  return platform;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
