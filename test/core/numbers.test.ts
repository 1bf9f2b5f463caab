import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/core/base/numbers';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('numbers are written one way', () => {
  it("by the interface language, whatever the machine's locale", () => {
    expect(formatCount(4700)).toBe('4,700');
    expect(formatCount(1_467_000)).toBe('1,467,000');
    expect(formatCount(0)).toBe('0');
    expect(formatCount(12.6)).toBe('13');
    expect(formatCount(Number.NaN)).toBe('NaN');
  });

  it('and nowhere else: no number in src is formatted with toLocaleString (dates may be)', () => {
    const offenders = sources('src')
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ file, line: i + 1, text: line })),
      )
      .filter((l) => /\.toLocaleString\(/.test(l.text) && !/Date\(|toLocaleString\(undefined, \{ dateStyle/.test(l.text));
    expect(offenders).toEqual([]);
  });
});
