/**
 * The built app a browser benchmark serves must be the code it claims to measure: either build it
 * now, or (with --no-build) refuse a `dist/` that is missing or older than the newest source file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time (ms) of the files in `paths` and under its folders (0 when there is none). */
export function newestMtime(paths: readonly string[]): number {
  let newest = 0;
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    if (!statSync(dir).isDirectory()) {
      newest = Math.max(newest, statSync(dir).mtimeMs);
      return;
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const path of paths) walk(path);
  return newest;
}

/** Why `distDir` cannot be measured (missing, or older than a source file), or null when it is current. */
export function staleBuild(distDir: string, sources: readonly string[]): string | null {
  const marker = join(distDir, 'bench.html');
  if (!existsSync(marker)) return `${marker} is missing: run \`npm run build\` (or drop --no-build)`;
  const built = statSync(marker).mtimeMs;
  const newest = newestMtime(sources);
  if (newest > built)
    return `${distDir}/ is older than the source (built ${new Date(built).toISOString()}, a source file changed ${new Date(newest).toISOString()}): run \`npm run build\` (or drop --no-build)`;
  return null;
}

/** Builds the app, or with `build` false checks that dist/ is current; throws with the reason otherwise. */
export function ensureAppBuild(build: boolean, progress: (line: string) => void): void {
  if (build) {
    progress('building the app (npm run build)');
    execFileSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
    return;
  }
  const why = staleBuild('dist', ['src', 'public', 'index.html', 'bench.html']);
  if (why) throw new StaleBuildError(why);
}

export class StaleBuildError extends Error {}
