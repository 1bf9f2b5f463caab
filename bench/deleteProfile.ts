/**
 * Where the time of deleting a conversation goes, statement by statement, in the running app:
 *
 *   npm run bench -- delete-profile [--reps 3] [--conversations 470] [--dist dist] [--context incognito|profile|both] [--out report.json]
 *
 * Each context (a Playwright default, incognito-like context, where OPFS lives in the browser
 * process's memory; and a persistent profile on disk, as a person has) gets a fresh copy of the
 * fixture memory (scripts/build-fixture-memory.ts, 10 turns a conversation) as its OPFS file, opens
 * the app and waits for the first open's indexing to end. It then sets two probes in the engine
 * worker: every SQL statement's start and duration (WaSqliteDatabase's `__recollectSqlTrace`), and
 * every call on an OPFS sync access handle (read, write, flush, truncate, getSize) with its
 * duration and bytes. Each repetition deletes the first conversation through the app's own
 * controls (the row's Delete, the in-app confirmation) and records: click → the row is gone from
 * the list; click → the deletion's COMMIT ends; click → the last statement the deletion caused ends
 * (its full-text scrub and the log's truncation). The statements are grouped by transaction and
 * kind, with the OPFS calls made while each ran. Builds nothing: run `npm run build` first.
 */
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext, type Page, type Worker } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/browser';
import { buildOnce, cachedPath } from '../e2e/fileCache';
import { buildFixtureMemory } from '../scripts/build-fixture-memory';
import { seed } from './deleteDuringIndexing';
import { median } from './stats';
import { commandArgs, intFlag } from './cliArgs';

export const DELETE_PROFILE_USAGE =
  'usage: npm run bench -- delete-profile [--reps 3] [--conversations 470] [--dist dist] [--context incognito|profile|both] [--out report.json]';

/** One SQL statement as the worker ran it; times are epoch ms. */
interface Statement {
  readonly sql: string;
  readonly start: number;
  readonly ms: number;
}

/** One call on a sync access handle; times are epoch ms. */
interface IoCall {
  readonly op: string;
  readonly start: number;
  readonly ms: number;
  readonly bytes: number;
}

interface Probe {
  readonly statements: Statement[];
  readonly io: IoCall[];
}

/** Sets the probes in the engine worker (idempotent per worker). */
async function installProbes(worker: Worker): Promise<void> {
  await worker.evaluate(() => {
    const g = self as unknown as {
      __probe?: { statements: unknown[]; io: unknown[] };
      __recollectSqlTrace?: (sql: string, start: number, ms: number) => void;
      FileSystemSyncAccessHandle: { prototype: Record<string, unknown> };
    };
    if (g.__probe) return;
    const probe = { statements: [] as unknown[], io: [] as unknown[] };
    g.__probe = probe;
    const origin = performance.timeOrigin;
    g.__recollectSqlTrace = (sql, start, ms) =>
      probe.statements.push({ sql: sql.replace(/\s+/g, ' ').slice(0, 160), start: origin + start, ms });
    const proto = g.FileSystemSyncAccessHandle.prototype;
    for (const op of ['read', 'write', 'flush', 'truncate', 'getSize']) {
      const original = proto[op] as (...args: unknown[]) => unknown;
      proto[op] = function (this: unknown, ...args: unknown[]) {
        const start = performance.now();
        try {
          return original.apply(this, args);
        } finally {
          const buffer = args[0] as { byteLength?: number } | undefined;
          probe.io.push({
            op,
            start: origin + start,
            ms: performance.now() - start,
            bytes: op === 'read' || op === 'write' ? (buffer?.byteLength ?? 0) : 0,
          });
        }
      };
    }
  });
}

async function takeProbe(worker: Worker): Promise<Probe> {
  return worker.evaluate(() => {
    const g = self as unknown as { __probe: { statements: unknown[]; io: unknown[] } };
    const out = { statements: g.__probe.statements.splice(0), io: g.__probe.io.splice(0) };
    return out as unknown as { statements: Statement[]; io: IoCall[] };
  });
}

const ROWS = 'nav[aria-label="Conversations"] button.conversation';

/** What a statement is, for the breakdown. */
export function kindOf(sql: string): string {
  const s = sql.trim();
  if (/^BEGIN/i.test(s)) return 'BEGIN';
  if (/^COMMIT/i.test(s)) return 'COMMIT';
  if (/wal_checkpoint/i.test(s)) return 'checkpoint(TRUNCATE)';
  if (/VALUES \('merge'/i.test(s)) return 'FTS merge step';
  if (/^DELETE FROM messages\b/i.test(s)) return 'delete turns (+ FTS/vector triggers)';
  if (/^DELETE FROM conversations\b/i.test(s)) return 'delete conversation row';
  if (/llm_calls|stored|request/i.test(s) && /^(UPDATE|SELECT)/i.test(s)) return 'redact stored requests';
  if (/title/i.test(s) && /conversations/i.test(s)) return 'title';
  if (/memcells|facts|foresights|memscenes|profile/i.test(s)) return 'derived items';
  if (/_data WHERE id >=/i.test(s)) return 'find tombstones';
  if (/^SELECT|^WITH|^PRAGMA/i.test(s)) return 'read';
  return 'other write';
}

interface RepResult {
  readonly rowGoneMs: number;
  readonly commitMs: number;
  readonly settledMs: number;
  readonly byKind: Record<string, { n: number; ms: number; ioMs: number; ioCalls: number; writtenKb: number; flushes: number }>;
  readonly io: Record<string, { n: number; ms: number; kb: number }>;
  readonly slowest: readonly { sql: string; atMs: number; ms: number; ioMs: number }[];
}

function analyse(clickAt: number, goneAt: number, probe: Probe): RepResult {
  const statements = probe.statements.filter((s) => s.start + s.ms >= clickAt).sort((a, b) => a.start - b.start);
  const io = probe.io.filter((c) => c.start >= clickAt);
  const firstCommit = statements.find((s) => kindOf(s.sql) === 'COMMIT');
  const settled = statements.length ? Math.max(...statements.map((s) => s.start + s.ms)) : clickAt;
  const within = (s: Statement) => io.filter((c) => c.start >= s.start && c.start <= s.start + s.ms);
  const byKind: RepResult['byKind'] = {};
  for (const s of statements) {
    const k = kindOf(s.sql);
    const calls = within(s);
    const e = (byKind[k] ??= { n: 0, ms: 0, ioMs: 0, ioCalls: 0, writtenKb: 0, flushes: 0 });
    e.n++;
    e.ms += s.ms;
    e.ioMs += calls.reduce((a, c) => a + c.ms, 0);
    e.ioCalls += calls.length;
    e.writtenKb += calls.filter((c) => c.op === 'write').reduce((a, c) => a + c.bytes, 0) / 1024;
    e.flushes += calls.filter((c) => c.op === 'flush').length;
  }
  const ioByOp: RepResult['io'] = {};
  for (const c of io) {
    const e = (ioByOp[c.op] ??= { n: 0, ms: 0, kb: 0 });
    e.n++;
    e.ms += c.ms;
    e.kb += c.bytes / 1024;
  }
  const slowest = [...statements]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 8)
    .map((s) => ({ sql: s.sql.slice(0, 100), atMs: s.start - clickAt, ms: s.ms, ioMs: within(s).reduce((a, c) => a + c.ms, 0) }));
  return {
    rowGoneMs: goneAt - clickAt,
    commitMs: firstCommit ? firstCommit.start + firstCommit.ms - clickAt : NaN,
    settledMs: settled - clickAt,
    byKind,
    io: ioByOp,
    slowest,
  };
}

async function engineWorker(page: Page): Promise<Worker> {
  for (let i = 0; i < 600; i++) {
    const w = page.workers().find((x) => x.url().includes('engine'));
    if (w) return w;
    await page.waitForTimeout(100);
  }
  throw new Error('no engine worker');
}

async function deleteFirst(page: Page, worker: Worker): Promise<RepResult> {
  const rows = page.locator(ROWS);
  const before = await rows.count();
  const title = (await rows.first().locator('.title').textContent())!;
  await rows.first().click();
  await page.getByRole('button', { name: `Delete ${title}`, exact: true }).click();
  const confirm = page
    .getByRole('alertdialog', { name: 'Delete conversation' })
    .getByRole('button', { name: 'Delete conversation', exact: true });
  await confirm.waitFor();
  await takeProbe(worker); // drop what came before
  const clickAt = await page.evaluate(() => performance.timeOrigin + performance.now());
  await confirm.click();
  const gone = await page.waitForFunction(
    ({ sel, n }) => (document.querySelectorAll(sel).length === n ? performance.timeOrigin + performance.now() : false),
    { sel: ROWS, n: before - 1 },
    { polling: 'raf', timeout: 300_000 },
  );
  const goneAt = (await gone.jsonValue()) as number;
  // The scrub goes on after the list shows the deletion: wait until the worker has been quiet for 3 s.
  const statements: Statement[] = [];
  const io: IoCall[] = [];
  let quietSince = Date.now();
  while (Date.now() - quietSince < 3_000) {
    await page.waitForTimeout(500);
    const p = await takeProbe(worker);
    if (p.statements.length) quietSince = Date.now();
    statements.push(...p.statements);
    io.push(...p.io);
  }
  return analyse(clickAt, goneAt, { statements, io });
}

async function runContext(context: BrowserContext, file: string, reps: number, progress: (line: string) => void): Promise<RepResult[]> {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => process.stderr.write(`[page error] ${e.message}\n`));
  await seed(page, file);
  await page.goto('/');
  await page.getByText('Opening your memory…').waitFor({ state: 'hidden', timeout: 180_000 });
  await page.locator(ROWS).first().waitFor({ timeout: 180_000 });
  progress('opened; waiting for the first indexing to end');
  await page.locator('[data-testid="indexing-status"][data-state="running"]').waitFor({ state: 'detached', timeout: 900_000 });
  await page.waitForTimeout(3_000);
  const worker = await engineWorker(page);
  await installProbes(worker);
  const out: RepResult[] = [];
  for (let r = 0; r < reps; r++) {
    const result = await deleteFirst(page, worker);
    progress(
      `rep ${r + 1}/${reps}: row gone ${Math.round(result.rowGoneMs)} ms, commit ${Math.round(result.commitMs)} ms, settled ${Math.round(result.settledMs)} ms`,
    );
    out.push(result);
  }
  return out;
}

export async function deleteProfileCommand(
  argv: string[],
  progress: (line: string) => void,
  usage: (message?: string) => never,
): Promise<void> {
  const v = commandArgs(
    argv,
    {
      reps: { type: 'string' },
      conversations: { type: 'string' },
      dist: { type: 'string' },
      out: { type: 'string' },
      context: { type: 'string' },
    },
    usage,
  );
  const reps = intFlag(v, 'reps', 3, usage);
  const conversations = intFlag(v, 'conversations', 470, usage, { min: 10 });
  const which = (v.context as string | undefined) ?? 'both';
  if (!['incognito', 'profile', 'both'].includes(which)) usage(`--context is incognito, profile or both, not ${which}`);
  const dist = (v.dist as string | undefined) ?? 'dist';
  if (!existsSync(join(dist, 'index.html'))) usage(`${dist}/index.html is missing: run \`npm run build\` first.`);

  const name = conversations === 470 ? 'fixture-memory' : `fixture${conversations}-memory`;
  const file = cachedPath(name, 'sqlite', ['scripts/build-fixture-memory.ts', 'src']);
  progress(`fixture: ${file} (${conversations} conversations × 10 turns)`);
  await buildOnce(file, (out) => buildFixtureMemory(out, { conversations }), 12 * 3_600_000);

  const { preview } = await import('vite');
  const server = await preview({ preview: { host: '127.0.0.1', port: 0, strictPort: false }, build: { outDir: dist }, logLevel: 'error' });
  const home = server.resolvedUrls?.local[0];
  if (!home) throw new Error('The preview server did not report its URL.');
  const executablePath = chromiumExecutable();
  const launch = { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS };
  const results: Record<string, RepResult[]> = {};
  try {
    for (const kind of which === 'both' ? ['incognito', 'profile'] : [which]) {
      progress(`context: ${kind}`);
      if (kind === 'incognito') {
        const browser = await chromium.launch(launch);
        try {
          results[kind] = await runContext(await browser.newContext({ serviceWorkers: 'block', baseURL: home }), file, reps, progress);
        } finally {
          await browser.close();
        }
      } else {
        const dir = await mkdtemp(join(tmpdir(), 'recollect-delete-profile-'));
        const context = await chromium.launchPersistentContext(dir, { ...launch, serviceWorkers: 'block', baseURL: home });
        try {
          results[kind] = await runContext(context, file, reps, progress);
        } finally {
          await context.close();
          await rm(dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await server.close();
  }
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const lines: string[] = [
    `Delete a conversation (10 turns) from ${conversations * 10} turns, ${reps} repetitions per context, ${dist}, ${new Date().toISOString().slice(0, 10)}`,
    '',
  ];
  lines.push(
    '| context | click → row gone (median) | click → COMMIT ends | click → last statement | per rep (row gone) |',
    '|---|---:|---:|---:|---|',
  );
  for (const [kind, rs] of Object.entries(results))
    lines.push(
      `| ${kind} | ${f(median(rs.map((r) => r.rowGoneMs)))} ms | ${f(median(rs.map((r) => r.commitMs)))} ms | ${f(median(rs.map((r) => r.settledMs)))} ms | ${rs.map((r) => f(r.rowGoneMs)).join(', ')} |`,
    );
  for (const [kind, rs] of Object.entries(results)) {
    lines.push(
      '',
      `${kind}: time by kind of statement (median over repetitions; OPFS = time inside sync access handle calls made while it ran)`,
      '',
    );
    lines.push(
      '| statement kind | count | ms | of it OPFS ms | OPFS calls | KB written | flushes |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    const kinds = [...new Set(rs.flatMap((r) => Object.keys(r.byKind)))];
    const med = (k: string, field: 'n' | 'ms' | 'ioMs' | 'ioCalls' | 'writtenKb' | 'flushes') =>
      median(rs.map((r) => r.byKind[k]?.[field] ?? 0));
    for (const k of kinds.sort((a, b) => med(b, 'ms') - med(a, 'ms')))
      lines.push(
        `| ${k} | ${f(med(k, 'n'))} | ${f(med(k, 'ms'))} | ${f(med(k, 'ioMs'))} | ${f(med(k, 'ioCalls'))} | ${f(med(k, 'writtenKb'))} | ${f(med(k, 'flushes'))} |`,
      );
    const ops = [...new Set(rs.flatMap((r) => Object.keys(r.io)))];
    lines.push(
      '',
      `${kind}: OPFS calls after the click (median): ${ops.map((o) => `${o} ${f(median(rs.map((r) => r.io[o]?.n ?? 0)))}× ${f(median(rs.map((r) => r.io[o]?.ms ?? 0)))} ms (${f(median(rs.map((r) => r.io[o]?.kb ?? 0)))} KB)`).join('; ')}`,
    );
    lines.push('', `${kind}: slowest statements of the last repetition:`, '');
    for (const s of rs[rs.length - 1]!.slowest) lines.push(`- at +${f(s.atMs)} ms, ${f(s.ms)} ms (OPFS ${f(s.ioMs)} ms): \`${s.sql}\``);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (v.out) {
    const out = v.out as string;
    await writeFile(out, JSON.stringify({ conversations, reps, dist, createdAt: new Date().toISOString(), results }, null, 2));
    await writeFile(out.replace(/\.json$/, '') + '.md', `${lines.join('\n')}\n`);
    process.stdout.write(`wrote ${out}\n`);
  }
}
