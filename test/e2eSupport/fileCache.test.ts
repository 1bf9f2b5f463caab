/**
 * e2e/fileCache.ts under parallel Playwright workers: two builders of the same cached file at once
 * build it once (the second waits and uses the first one's file); a lock left by a dead builder
 * does not block for ever.
 */
import { mkdtempSync, mkdirSync, readFileSync, existsSync, utimesSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOnce } from '../../e2e/fileCache';

const path = () => join(mkdtempSync(join(tmpdir(), 'recollect-cache-')), 'fixture-memory-0123456789abcdef.sqlite');

describe('buildOnce', () => {
  it('builds a file once when two builders ask for it at the same time', async () => {
    const file = path();
    let builds = 0;
    const build = async (out: string) => {
      builds++;
      await new Promise((r) => setTimeout(r, 300));
      await writeFile(out, `build ${builds}`);
    };
    const results = await Promise.all([buildOnce(file, build), buildOnce(file, build)]);
    expect(builds).toBe(1);
    expect(results.sort()).toEqual([false, true]);
    expect(readFileSync(file, 'utf8')).toBe('build 1');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('takes over a lock left by a builder that died an hour ago', async () => {
    const file = path();
    mkdirSync(`${file}.lock`);
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    utimesSync(`${file}.lock`, old, old);
    expect(await buildOnce(file, (out) => writeFile(out, 'fresh'))).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('fresh');
  });
});
