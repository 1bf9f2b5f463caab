#!/usr/bin/env node
// Fails when code crosses a boundary that ESLint's import rules cannot express on their own:
//  1. src/core imports nothing outside src/core (type-only imports included: core must compile alone);
//  2. inside src/core, rooms follow the memory lifecycle and imports flow one way, from later rooms to
//     earlier ones: base ← sync ← capture ← episodes ← synthesis ← recall ← explorer ← protocol ← engine;
//  3. src/app talks to storage/models/llm/host only through the worker protocol (src/core/protocol.ts);
//  4. no import cycle anywhere under src/ (type-only imports count: a cycle of types is still a knot);
//  5. src/ imports nothing from test/ or bench/ (test doubles and benchmark runners live there, not in the product),
//     and no benchmark runner lives in src/ or workers/: no bench/ folder, no bench host, page or worker file
//     (BenchEngineHost.ts, benchPage.ts, bench.worker.ts …), no Bench… class or wire type, and bench.html's
//     script is not under src/ (src/import/benchmarkCorpora.ts is a product reader and is allowed);
//  6. comments cite only documents in this repository (no "DESIGN §n" or "issue n": a reader cannot follow them),
//     in src/ and in the tests, benchmarks and scripts beside it;
//  7. MemoryEngine only delegates: it never calls one of its own public methods (`this.name(`).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s(type\s)?[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) yield p;
  }
}

const problems = [];
const CITATION = /DESIGN(\.md)?\s*§|CONVENTIONS(\.md)?\s*§|\bissues?[ -]#?\d+/i;
/** Rule 6: a line citing a document outside the repository. */
function citations(where, text) {
  for (const [n, line] of text.split('\n').entries()) {
    if (CITATION.test(line))
      problems.push(`${where}:${n + 1}: cites a document that is not in the repository — say the reason, or link docs/architecture.md`);
  }
}

function resolveSpec(file, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(file), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

/** The rooms of src/core in lifecycle order; a room may import its own files and earlier rooms. */
const ROOMS = ['base', 'sync', 'capture', 'episodes', 'synthesis', 'recall', 'explorer', 'protocol', 'engine'];
function coreRoom(abs) {
  const rel = relative(join(root, 'src/core'), abs);
  if (rel.startsWith('..')) return null;
  const first = rel.split(/[\\/]/)[0].replace(/\.tsx?$/, '');
  return ROOMS.includes(first) ? first : `?${first}`;
}

const graph = new Map();
for (const file of files(join(root, 'src'))) {
  const text = readFileSync(file, 'utf8');
  const edges = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2] ?? m[3];
    const target = resolveSpec(file, spec);
    const where = relative(root, file);
    if (target) edges.push(target);
    if (where.startsWith('src/core/')) {
      if (target && !target.startsWith(join(root, 'src/core')))
        problems.push(`${where}: imports "${spec}" — src/core may import only other src/core modules`);
      if (target && target.startsWith(join(root, 'src/core'))) {
        const from = coreRoom(file);
        const to = coreRoom(target);
        if (from.startsWith('?')) problems.push(`${where}: is not in a room (${ROOMS.join(', ')})`);
        else if (!to.startsWith('?') && ROOMS.indexOf(to) > ROOMS.indexOf(from)) {
          problems.push(`${where}: imports "${spec}" — the ${from} room may not reach forward into ${to} (order: ${ROOMS.join(' ← ')})`);
        }
      }
    }
    if (target && /^(test|bench)[\\/]/.test(relative(root, target)))
      problems.push(`${where}: imports "${spec}" — src/ may not import test doubles or benchmark code`);
    // The engine's API groups (src/core/protocol/*.ts) are declarations only: no code to import.
    if (where.startsWith('src/core/protocol/') && !m[1])
      problems.push(`${where}: imports "${spec}" as a value — the API's groups declare types only (import type)`);
    // The page reaches the engine through the worker protocol only, never its implementation.
    if (where.startsWith('src/app/') && target && /src\/core\/engine\//.test(target)) {
      problems.push(`${where}: imports "${spec}" — the page reaches the engine through its API (src/core/protocol), not src/core/engine`);
    }
    if (where.startsWith('src/app/') && target && /src\/(storage|models|llm|host)\//.test(`${target}/`) && !m[1]) {
      problems.push(
        `${where}: imports "${spec}" — src/app talks to storage/models/llm/host only through the worker protocol (src/core/protocol.ts)`,
      );
    }
  }
  const where = relative(root, file);
  for (const m of text.matchAll(/\b(?:class|interface|type)\s+(\w*Bench(?!mark)\w*)/g))
    problems.push(`${where}: declares ${m[1]} — benchmark runners and their wire types live in bench/, not src/`);
  citations(where, text);
  if (where.endsWith('src/core/engine/MemoryEngine.ts')) {
    for (const m of text.matchAll(/\bthis\.([a-zA-Z]\w*)\(/g))
      problems.push(`${where}: calls its own method this.${m[1]}() — the engine only delegates`);
  }
  // Each API group and the facade that composes them stay short enough to read in one go.
  const limit = where.endsWith('src/core/engine/MemoryEngine.ts') ? 250 : where.startsWith('src/core/protocol/') ? 80 : null;
  const lineCount = text.split('\n').length;
  if (limit && lineCount > limit) problems.push(`${where}: ${lineCount} lines — at most ${limit} (split it by what its callers do)`);
  graph.set(file, edges);
}

// Benchmark runner files outside bench/ (rule 5): by name, in the product's source and worker entries.
const BENCH_RUNNER_NAME = /^bench$|^bench[.A-Z]|[a-z]Bench[A-Z.]|^Bench[A-Z.]/;
function* entries(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    yield p;
    if (statSync(p).isDirectory()) yield* entries(p);
  }
}
for (const dir of ['src', 'workers']) {
  if (!existsSync(join(root, dir))) continue;
  for (const p of entries(join(root, dir))) {
    const name = p.split(/[\\/]/).pop();
    if (BENCH_RUNNER_NAME.test(name)) problems.push(`${relative(root, p)}: benchmark runner code lives in bench/, not ${dir}/`);
  }
}
// Rule 6 beyond src/: the tests, benchmarks and scripts are read too (this file names the pattern).
const SELF = resolve(new URL(import.meta.url).pathname);
for (const dir of ['test', 'bench', 'e2e', 'scripts', 'workers']) {
  if (!existsSync(join(root, dir))) continue;
  for (const p of entries(join(root, dir))) {
    if (p === SELF || !/\.(ts|tsx|mjs)$/.test(p)) continue;
    citations(relative(root, p), readFileSync(p, 'utf8'));
  }
}

const benchHtml = join(root, 'bench.html');
if (existsSync(benchHtml)) {
  for (const m of readFileSync(benchHtml, 'utf8').matchAll(/<script[^>]*\ssrc="\/?([^"]+)"/g)) {
    if (!m[1].startsWith('bench/')) problems.push(`bench.html: loads ${m[1]} — the benchmark page's script lives in bench/`);
  }
}

// Cycles: depth-first search, reporting each cycle once by its path.
const state = new Map();
const stack = [];
const seen = new Set();
function visit(node) {
  state.set(node, 'open');
  stack.push(node);
  for (const next of graph.get(node) ?? []) {
    if (!graph.has(next)) continue;
    if (state.get(next) === 'open') {
      const cycle = stack.slice(stack.indexOf(next)).map((f) => relative(root, f));
      const key = [...cycle].sort().join('|');
      if (!seen.has(key)) {
        seen.add(key);
        problems.push(`import cycle: ${[...cycle, cycle[0]].join(' → ')}`);
      }
    } else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(node, 'done');
}
for (const node of graph.keys()) if (!state.has(node)) visit(node);

if (problems.length) {
  console.error(`Boundary check failed:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`Boundary check passed (${graph.size} modules, no cycles).`);
