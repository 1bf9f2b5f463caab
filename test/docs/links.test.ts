/**
 * The README and docs/*.md stay usable: every relative link (and image) resolves to a file in the
 * repository, every `#anchor` names a heading of the page it points to, every `npm run <script>`
 * is a script in package.json, every `npm run bench -- <command>` is a command bench/cli.ts
 * dispatches, and every repository path a page names in code (`src/…`, `bench/….ts`,
 * `npx tsx <file>`) exists. A moved file or a renamed script fails here, not in a reader's shell.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');

/** The pages checked: the README and every Markdown page under docs/. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs.sort()];
}

/** The page without fenced code blocks and inline code, where link syntax is not a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of text.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** package.json's scripts and the commands bench/cli.ts dispatches. */
function knownCommands(root: string): { scripts: Set<string>; bench: Set<string> } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const cli = readFileSync(join(root, 'bench', 'cli.ts'), 'utf8');
  const bench = new Set([...cli.matchAll(/command === '([a-z-]+)'/g)].map((m) => m[1]!));
  return { scripts: new Set(Object.keys(pkg.scripts)), bench };
}

const REPO_PATH = /^(?:src|test|e2e|bench|scripts|docs|workers|screenshots)\/[\w./-]+$/;

/**
 * What is broken in one page (`file`, relative to `root`, with its `text`): one line per problem.
 * `read` gives another page's text for its anchors.
 */
export function problemsIn(
  file: string,
  text: string,
  root: string,
  read: (path: string) => string = (p) => readFileSync(join(root, p), 'utf8'),
): string[] {
  const problems: string[] = [];
  const { scripts, bench } = knownCommands(root);
  const exists = (path: string) => existsSync(join(root, path));

  for (const m of prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const resolved = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
    if (resolved.startsWith('..')) {
      problems.push(`${file}: ${target} leaves the repository`);
      continue;
    }
    if (!exists(resolved)) {
      problems.push(`${file}: ${target} — no such file ${resolved}`);
      continue;
    }
    if (anchor !== undefined) {
      if (!resolved.endsWith('.md')) {
        problems.push(`${file}: ${target} — an anchor into a file that is not Markdown`);
        continue;
      }
      const anchors = headingAnchors(resolved === file ? text : read(resolved));
      if (!anchors.has(anchor)) problems.push(`${file}: ${target} — ${relative('.', resolved)} has no heading #${anchor}`);
    }
  }

  for (const m of text.matchAll(/\bnpm run ([\w:-]+)(?:\s+--\s+([a-z][\w-]*))?/g)) {
    const [, script, command] = m;
    if (!scripts.has(script!)) problems.push(`${file}: npm run ${script} — no such script in package.json`);
    else if (script === 'bench' && command && !bench.has(command))
      problems.push(`${file}: npm run bench -- ${command} — bench/cli.ts has no such command`);
  }

  for (const m of text.matchAll(/\b(?:npx tsx|node|npx playwright test)\s+((?:bench|scripts|e2e|test|screenshots)\/[\w./-]+)/g)) {
    if (!exists(m[1]!)) problems.push(`${file}: ${m[0]} — no such file ${m[1]}`);
  }

  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const path = m[1]!.replace(/[.,:;]$/, '');
    if (REPO_PATH.test(path) && !exists(path)) problems.push(`${file}: \`${path}\` — no such file or folder`);
  }
  return problems;
}

describe('README and docs', () => {
  it('finds the README and the pages under docs/', () => {
    expect(pages()).toContain('README.md');
    expect(pages().length).toBeGreaterThan(5);
  });

  for (const file of pages()) {
    it(`${file}: every link, anchor, command and path resolves`, () => {
      expect(problemsIn(file, readFileSync(join(ROOT, file), 'utf8'), ROOT)).toEqual([]);
    });
  }

  it('every docs/ page (and #anchor) that source code comments point to exists', () => {
    const problems: string[] = [];
    for (const folder of ['src', 'workers', 'bench', 'scripts']) {
      for (const name of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
        if (!/\.(ts|tsx|mjs)$/.test(name)) continue;
        const file = join(folder, name);
        for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/\bdocs\/([\w/-]+\.md)(?:#([\w-]+))?/g)) {
          const page = join('docs', m[1]!);
          if (!existsSync(join(ROOT, page))) problems.push(`${file}: ${m[0]} — no such page`);
          else if (m[2] && !headingAnchors(readFileSync(join(ROOT, page), 'utf8')).has(m[2]))
            problems.push(`${file}: ${m[0]} — no such heading`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('README stays a page for people (at most 250 lines)', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('catches what is broken', () => {
    const page = [
      '# A page',
      '## Section two',
      '[fine](docs/architecture.md) [also fine](#section-two) [web](https://example.org/x)',
      '[gone](docs/no-such-page.md) [bad anchor](#section-three) ![missing](docs/screenshots/none.png)',
      '[bad anchor elsewhere](docs/architecture.md#no-such-heading)',
      '`npm run no-such-script` and `npm run bench -- no-such-command` but `npm run bench -- recall` is fine',
      '```sh',
      'npx tsx bench/noSuchRunner.ts --out x.json',
      '```',
      'See `src/core/recall/noSuchFile.ts` and `src/core/recall/fusion.ts`. [in code](`not a link`)',
    ].join('\n');
    const found = problemsIn('README.md', page, ROOT);
    expect(found).toEqual([
      'README.md: docs/no-such-page.md — no such file docs/no-such-page.md',
      'README.md: #section-three — README.md has no heading #section-three',
      'README.md: docs/screenshots/none.png — no such file docs/screenshots/none.png',
      'README.md: docs/architecture.md#no-such-heading — docs/architecture.md has no heading #no-such-heading',
      'README.md: npm run no-such-script — no such script in package.json',
      'README.md: npm run bench -- no-such-command — bench/cli.ts has no such command',
      'README.md: npx tsx bench/noSuchRunner.ts — no such file bench/noSuchRunner.ts',
      'README.md: `src/core/recall/noSuchFile.ts` — no such file or folder',
    ]);
  });

  it('reads anchors as GitHub writes them', () => {
    const anchors = headingAnchors(
      '# Install it as an app, use it offline\n## Bring your history (ChatGPT, Claude)\n## Results\n## Results\n### `npm test` — what runs',
    );
    expect([...anchors]).toEqual([
      'install-it-as-an-app-use-it-offline',
      'bring-your-history-chatgpt-claude',
      'results',
      'results-1',
      'npm-test--what-runs',
    ]);
  });
});
