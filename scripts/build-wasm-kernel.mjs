#!/usr/bin/env node
// Builds the vector index's WASM SIMD kernel (src/wasm/int8Dot.wat → src/wasm/int8Dot.wasm) with
// wabt from npm, so a fresh clone + `npm ci` has it without any other toolchain. Cached: skipped
// when the .wasm is newer than both the source and this script. The .wasm is generated, not committed.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtFactory from 'wabt';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/wasm/int8Dot.wat');
const target = join(root, 'src/wasm/int8Dot.wasm');

const newest = Math.max(statSync(source).mtimeMs, statSync(fileURLToPath(import.meta.url)).mtimeMs);
if (existsSync(target) && statSync(target).mtimeMs >= newest) {
  console.log('build-wasm-kernel: src/wasm/int8Dot.wasm up to date');
} else {
  const wabt = await wabtFactory();
  const module = wabt.parseWat('int8Dot.wat', readFileSync(source, 'utf8'), { simd: true });
  module.validate();
  const { buffer } = module.toBinary({ log: false, write_debug_names: false });
  module.destroy();
  writeFileSync(target, buffer);
  console.log(`build-wasm-kernel: built src/wasm/int8Dot.wasm (${buffer.length} bytes)`);
}
