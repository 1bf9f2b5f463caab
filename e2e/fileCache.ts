/**
 * Files the browser tests build in Node (memories at scale) are kept between runs in .cache/,
 * because Playwright empties test-results/ at the start of every run. Each file is named after a
 * hash of what it is built from — the builder script and every source file its write path runs
 * through — so a change to any of them builds a new file and a stale one is never reused. A build
 * goes to a temporary name and is renamed into place, so a run stopped half-way leaves no partial
 * file under the final name; older builds of the same file are removed. Playwright runs spec files
 * in parallel workers (separate processes): a build holds a lock directory beside its file, so a
 * second worker that needs the same file waits for it instead of building it again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const CACHE_DIR = '.cache';

/** Every file under `path` (or `path` itself), sorted, so the hash does not depend on listing order. */
function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

/** A short hash of the named files' paths and contents (directories are walked). */
export function hashInputs(inputs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(filesUnder)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** `.cache/<name>-<hash of inputs>.<ext>`. */
export function cachedPath(name: string, ext: string, inputs: readonly string[]): string {
  return join(CACHE_DIR, `${name}-${hashInputs(inputs)}.${ext}`);
}

/** A lock older than this belongs to a process that died while building: it is taken over. */
const STALE_LOCK_MS = 60 * 60_000;

/** Runs `work` holding `<path>.lock` (a directory: mkdir is atomic across processes). */
async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const fresh = (path: string, maxAgeMs: number) => existsSync(path) && Date.now() - statSync(path).mtimeMs < maxAgeMs;

/**
 * Builds `path` with `build` (which writes the file it is given) unless a build younger than
 * `maxAgeMs` is there; returns whether it built. Another process building the same file is waited
 * for, and its build used.
 */
export async function buildOnce(path: string, build: (file: string) => Promise<unknown>, maxAgeMs = Infinity): Promise<boolean> {
  if (fresh(path, maxAgeMs)) return false;
  return withLock(path, async () => {
    if (fresh(path, maxAgeMs)) return false;
    const temporary = `${path}.${process.pid}.tmp`;
    await build(temporary);
    renameSync(temporary, path);
    // Older builds of the same file (other hashes): the name up to the hash is shared.
    const prefix = basename(path).replace(/-[0-9a-f]{16}\.[^.]+$/, '-');
    for (const name of readdirSync(dirname(path))) {
      if (name !== basename(path) && name.startsWith(prefix) && /-[0-9a-f]{16}\.[^.]+$/.test(name))
        rmSync(join(dirname(path), name), { force: true });
    }
    return true;
  });
}
