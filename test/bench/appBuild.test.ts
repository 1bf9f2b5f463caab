import { mkdtempSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newestMtime, staleBuild } from '../../bench/appBuild';

function tree(): { root: string; touch: (path: string, at: number) => void } {
  const root = mkdtempSync(join(tmpdir(), 'recollect-appbuild-'));
  const touch = (path: string, at: number) => {
    const full = join(root, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, 'x');
    utimesSync(full, at / 1000, at / 1000);
  };
  return { root, touch };
}

describe('staleBuild (a browser benchmark measures the current source)', () => {
  it('refuses a missing build', () => {
    const { root, touch } = tree();
    touch('src/a.ts', 1_000_000);
    expect(staleBuild(join(root, 'dist'), [join(root, 'src')])).toMatch(/bench\.html is missing/);
  });

  it('refuses a build older than a source file deep in a folder, and names both times', () => {
    const { root, touch } = tree();
    touch('dist/bench.html', 2_000_000_000);
    touch('src/core/recall/Retriever.ts', 2_000_500_000);
    touch('src/app/App.tsx', 1_000_000_000);
    const why = staleBuild(join(root, 'dist'), [join(root, 'src')]);
    expect(why).toMatch(/older than the source/);
    expect(why).toContain(new Date(2_000_500_000).toISOString());
  });

  it('accepts a build newer than every source file, and a single file counts as a source', () => {
    const { root, touch } = tree();
    touch('src/a.ts', 1_000_000_000);
    touch('index.html', 1_500_000_000);
    touch('dist/bench.html', 2_000_000_000);
    expect(staleBuild(join(root, 'dist'), [join(root, 'src'), join(root, 'index.html')])).toBeNull();
    expect(newestMtime([join(root, 'src'), join(root, 'index.html'), join(root, 'absent')])).toBe(1_500_000_000);
  });
});
