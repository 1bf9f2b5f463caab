#!/usr/bin/env node
// Fails when code crosses a folder boundary that ESLint's import rules cannot express on their own:
// src/core importing anything outside src/core (except type-free relative core files), and
// src/app importing storage/models internals instead of going through the worker protocol.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
// Type-only imports are erased at build time, so they do not cross a runtime boundary.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ts|tsx)$/.test(name)) yield p;
  }
}

const rules = [
  // Packages are vetted by ESLint's no-restricted-imports (pure libraries such as chrono-node are fine).
  { dir: 'src/core', allow: (spec, abs) => !spec.startsWith('.') || abs.startsWith(join(root, 'src/core')), why: 'src/core may import only other src/core modules' },
  { dir: 'src/app', allow: (spec, abs) => !spec.startsWith('.') || !/src\/(storage|models|llm)\//.test(abs + '/'), why: 'src/app talks to storage/models/llm only through the worker protocol (src/core/protocol.ts)' },
];

const problems = [];
for (const rule of rules) {
  for (const file of files(join(root, rule.dir))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      const abs = spec.startsWith('.') ? resolve(dirname(file), spec) : spec;
      if (!rule.allow(spec, abs)) problems.push(`${relative(root, file)}: imports "${spec}" — ${rule.why}`);
    }
  }
}
if (problems.length) {
  console.error(`Boundary check failed:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('Boundary check passed.');
