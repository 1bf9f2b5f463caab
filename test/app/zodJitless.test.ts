/**
 * Zod must run jitless in the browser: its eval probe (`new Function("")`) is a reported violation
 * of our Content-Security-Policy, a console error on every load in Firefox. The setting has to be
 * made before any schema is built, so every browser entry imports src/core/base/zodJitless first.
 * The entries are found the way the build finds them — the module scripts of the HTML pages, every
 * `new Worker(new URL(…))`, the service worker named in vite.config.ts — so a new entry that forgets
 * the import fails here too.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { config } from 'zod';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const JITLESS = join(root, 'src/core/base/zodJitless.ts');

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sourceFiles(p);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) yield p;
  }
}

function resolveModule(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* not this one */
    }
  }
  return base;
}

/** Every file the browser starts running from. */
function browserEntries(): string[] {
  const entries = new Set<string>();
  for (const html of readdirSync(root).filter((n) => n.endsWith('.html'))) {
    for (const m of readFileSync(join(root, html), 'utf8').matchAll(/<script[^>]*type="module"[^>]*src="\/([^"]+)"/g))
      entries.add(join(root, m[1]!));
  }
  for (const dir of ['src', 'bench', 'workers']) {
    for (const file of sourceFiles(join(root, dir))) {
      for (const m of readFileSync(file, 'utf8').matchAll(
        /new (?:Shared)?Worker\(\s*new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url/g,
      ))
        entries.add(resolveModule(file, m[1]!));
    }
  }
  const vite = readFileSync(join(root, 'vite.config.ts'), 'utf8');
  const srcDir = /srcDir:\s*'([^']+)'/.exec(vite)?.[1];
  const filename = /filename:\s*'([^']+\.ts)'/.exec(vite)?.[1];
  if (srcDir && filename) entries.add(join(root, srcDir, filename));
  return [...entries].sort();
}

/** The module the file imports first (comments and `/// <reference>` lines before it are fine). */
function firstImport(file: string): string | null {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const m = /^\s*import\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/m.exec(text);
  return m ? m[1]! : null;
}

describe('Zod runs jitless in every browser entry', () => {
  it('finds the entries: the page, the bench page, the engine, model, device-LLM, bench and service workers', () => {
    const found = browserEntries().map((f) => relative(root, f));
    expect(found).toEqual(
      expect.arrayContaining([
        'src/app/main.tsx',
        'bench/page/benchPage.ts',
        'workers/engine.worker.ts',
        'workers/model.worker.ts',
        'workers/llm.worker.ts',
        'bench/page/bench.worker.ts',
        'workers/sw.ts',
      ]),
    );
  });

  it.each(browserEntries().map((f) => [relative(root, f), f]))('%s imports zodJitless before anything else', (_name, file) => {
    const spec = firstImport(file);
    expect(spec, 'no import at all').not.toBeNull();
    expect(resolveModule(file, spec!)).toBe(JITLESS);
  });

  it('the module turns Zod jitless', async () => {
    const { ZOD_JITLESS } = await import('../../src/core/base/zodJitless');
    expect(ZOD_JITLESS).toBe(true);
    expect(config().jitless).toBe(true);
  });
});
