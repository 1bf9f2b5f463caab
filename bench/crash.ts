/**
 * Crash-safety benchmark: a killed worker or closed tab loses no acknowledged turn.
 *   npm run bench -- crash --trials N [--out report.json] [--seed S] [--no-build]
 *
 * Drives the built app (dist/, served by Vite's preview server) in headless Chromium with one
 * persistent profile, so OPFS survives every kill. Each trial opens the app, starts a workload
 * (bench/crashWorkloads.ts: turns appended at the engine's pace, typed into the composer, or
 * appended beside a history import or an embedder switch, or a memory import), and at a random
 * moment kills one of (bench/crashHarness.ts): the renderer (CDP Page.crash: the tab's process,
 * engine worker included), the engine worker alone (Worker.terminate()), or the whole browser
 * (SIGKILL). The app is then reopened (a new page, or a new browser on the same profile), the
 * memory exported through the engine (what the Export button writes) and checked in Node:
 * acknowledged turns missing, turns stored twice, `PRAGMA integrity_check`, and for the import
 * trials what docs/importing.md and docs/privacy.md promise — a killed history import leaves a part of the file, stored
 * once, and importing it again completes it without duplicates; a killed memory import leaves the
 * old memory or the new one, never a mix.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { preview } from 'vite';
import type { EmbeddingStatus } from '../src/core/capture/EmbeddingIndexer';
import { openMemoryDatabase } from '../src/storage/openNodeDatabase';
import { parseCrashArgs, type CrashArgs } from './cliArgs';
import { KILL_MODES, engineCall, exportMemory, kill, launch, openApp, type KillMode } from './crashHarness';
import {
  IMPORT_CONVERSATIONS, IMPORT_TURNS_PER_CONVERSATION, WORKLOAD_WEIGHTS, chatGptExport, newState, startWorkload, type Workload,
} from './crashWorkloads';
import { seededRandom } from './seededRandom';

export type { KillMode } from './crashHarness';
export type { Workload } from './crashWorkloads';

export interface CrashTrial {
  readonly trial: number;
  readonly workload: Workload;
  readonly mode: KillMode;
  readonly killAfterMs: number;
  readonly acknowledged: number;
  /** Turns sent whose acknowledgement had not come when the kill was ordered, found stored (once). */
  readonly inFlightStored: number;
  /** Import / switch trials: the operation had not finished when the kill was ordered. */
  readonly killedMidOperation: boolean | null;
  /** history-import: turns of the file stored after the kill (of IMPORTED_TURNS), and after importing again. */
  readonly importedAfterKill?: number;
  readonly importedAfterRetry?: number;
  /** memory-import: which memory the reopened app had. */
  readonly memoryAfterKill?: 'old' | 'new' | 'mixed';
  /** embedder-switch: what the reopened app reports ("active → target, embedded/total"). */
  readonly embedderAfterKill?: string;
  /** embedder-switch: the reopened app still re-embedding (so the kill came mid-switch). */
  readonly switchUnderWay?: boolean;
  /** embedder-switch: the reopened app's embedders are the old or the new one, as the switch got. */
  readonly embedderConsistent?: boolean;
  readonly operationMs?: number;
  readonly error?: string;
}

export interface WorkloadSummary {
  readonly trials: number;
  readonly acknowledgedTurns: number;
  readonly lostAcknowledged: number;
  /** Import trials killed before the operation finished; switch trials still re-embedding on reopen. */
  readonly killedMidOperation: number;
  /** Import trials whose state after the kill (or after importing again) broke what the docs promise. */
  readonly inconsistent: number;
}

export interface CrashReport {
  readonly trials: number;
  readonly byMode: Record<KillMode, number>;
  readonly byWorkload: Record<Workload, WorkloadSummary>;
  readonly acknowledgedTurns: number;
  readonly lostAcknowledged: number;
  readonly duplicates: number;
  readonly integrityFailures: number;
  readonly inconsistentImports: number;
  readonly storedTurns: number;
  readonly seconds: number;
  readonly perTrial: readonly CrashTrial[];
  readonly lostTurns: readonly string[];
}

export const IMPORTED_TURNS = IMPORT_CONVERSATIONS * IMPORT_TURNS_PER_CONVERSATION;
const WORKLOADS = WORKLOAD_WEIGHTS.map(([w]) => w);

function pickWorkload(r: number, trial: number, cycle?: readonly Workload[]): Workload {
  if (cycle) return cycle[(trial - 1) % cycle.length]!;
  let acc = 0;
  for (const [w, share] of WORKLOAD_WEIGHTS) if (r < (acc += share)) return w;
  return WORKLOAD_WEIGHTS[0]![0];
}

/** The crash-* turns of an exported memory, and its integrity. */
async function inspect(bytes: Uint8Array): Promise<{ contents: string[]; integrity: string }> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  try {
    await db.deserialize(bytes);
    const integrity = (await db.query<{ integrity_check: string }>('PRAGMA integrity_check')).map((r) => r.integrity_check).join('; ');
    const rows = await db.query<{ content: string }>("SELECT content FROM messages WHERE content LIKE 'crash-%'");
    return { contents: rows.map((r) => String(r.content)), integrity };
  } finally {
    await db.close();
  }
}

const countPrefix = (contents: readonly string[], prefix: string) => contents.filter((c) => c.startsWith(prefix)).length;

function duplicatesIn(contents: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const c of contents) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts.values()].reduce((a, n) => a + n - 1, 0);
}

async function importHistoryAgain(page: Page, trial: number): Promise<void> {
  await page.evaluate(([t, id]) => {
    const w = window as unknown as { __crashCall(m: string, a: unknown[]): Promise<{ ok: boolean; error?: { message: string } }>; __crashFile(n: string, t: string): File };
    return w.__crashCall('importHistory', [w.__crashFile('conversations.json', t), { format: 'chatgpt', importId: id, policy: 'off' }]).then((r) => {
      if (!r.ok) throw new Error(r.error!.message);
    });
  }, [chatGptExport(trial), `crash-import-${trial}-again`] as const);
}

export interface CrashOptions {
  readonly trials: number;
  readonly seed?: number;
  /** Run these workloads in turn (the smoke test runs each kind once); default: drawn by WORKLOAD_WEIGHTS. */
  readonly workloads?: readonly Workload[];
  readonly onProgress?: (line: string) => void;
  readonly onTrial?: (soFar: CrashReport) => Promise<void>;
}

export async function runCrash(options: CrashOptions): Promise<CrashReport> {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npm run build` first.');
  const random = seededRandom(options.seed ?? 12);
  // A copy of dist/ is served, so a rebuild during a long run does not change the app under test.
  const app = await mkdtemp(join(tmpdir(), 'recollect-crash-app-'));
  await cp('dist', app, { recursive: true });
  const server = await preview({ build: { outDir: app }, preview: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'error' });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('The preview server did not report its URL.');
  const profile = await mkdtemp(join(tmpdir(), 'recollect-crash-profile-'));
  const started = Date.now();
  const acked: string[] = [];
  const ackedTrial = new Map<string, number>();
  const perTrial: CrashTrial[] = [];
  const byMode: Record<KillMode, number> = { renderer: 0, 'engine-worker': 0, browser: 0 };
  let integrityFailures = 0;
  let context: BrowserContext = await launch(profile, url);
  let last: string[] = [];
  const operationMs = new Map<Workload, number>();
  try {
    for (let trial = 1; trial <= options.trials; trial++) {
      const workload = pickWorkload(random(), trial, options.workloads);
      const mode = KILL_MODES[Math.floor(random() * KILL_MODES.length)]!;
      // Imports are killed at a random moment within the time the last uninterrupted one took (they
      // grow with the memory); appends and embedder switches (re-embedding runs in the background
      // after setEmbedder resolves) 0.2–6 s in, typing 0.2–2.5 s in.
      const estimate = workload === 'embedder-switch' ? undefined : operationMs.get(workload);
      const killAfterMs = Math.round(estimate !== undefined ? 20 + random() * estimate : 200 + random() * (workload === 'ui-typing' ? 2300 : 5800));
      const page = await openApp(context, url);
      const state = newState();
      const stop = { now: false };
      // A workload that cannot start is recorded as this trial's error; the kill and checks still run.
      const { running } = await startWorkload(workload, page, trial, state, stop, () => exportMemory(page)).catch((err: unknown) => {
        state.operationError = `could not start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
        return { running: Promise.resolve() };
      });
      await page.waitForTimeout(killAfterMs).catch(() => undefined);
      stop.now = true;
      await kill(mode, context, page, profile).catch(() => undefined);
      await running.catch(() => undefined);
      if (state.operationMs !== null) operationMs.set(workload, state.operationMs);
      const mine = state.acked.filter((c) => c.startsWith('crash-t'));
      for (const c of mine) ackedTrial.set(c, trial);
      acked.push(...mine);
      byMode[mode]++;
      if (mode === 'browser') {
        await context.close().catch(() => undefined);
        context = await launch(profile, url);
      } else {
        await page.close().catch(() => undefined);
      }
      const check = await openApp(context, url);
      let { contents, integrity } = await inspect(await exportMemory(check));
      if (integrity !== 'ok') integrityFailures++;
      const present = new Set(contents);
      const extra: { -readonly [K in keyof CrashTrial]?: CrashTrial[K] } = {};
      const operationKind = workload === 'history-import' || workload === 'embedder-switch' || workload === 'memory-import';
      try {
        if (workload === 'history-import') {
          const prefix = `crash-h${trial}-`;
          const importedAfterKill = countPrefix(contents, prefix);
          await importHistoryAgain(check, trial);
          ({ contents, integrity } = await inspect(await exportMemory(check)));
          if (integrity !== 'ok') integrityFailures++;
          Object.assign(extra, { importedAfterKill, importedAfterRetry: countPrefix(contents, prefix) });
        } else if (workload === 'memory-import') {
          const markers = countPrefix(contents, `crash-m${trial}-`);
          const sent = state.acked.filter((c) => c.startsWith('crash-m')).length;
          extra.memoryAfterKill = markers === sent && sent > 0 ? 'old' : markers === 0 ? 'new' : 'mixed';
        } else if (workload === 'embedder-switch') {
          const s = await engineCall<EmbeddingStatus | null>(check, 'embeddingStatus');
          extra.embedderAfterKill = s ? `${s.activeModel} → ${s.targetModel}, ${s.embedded}/${s.total} ${s.state}${s.error ? ` (${s.error.code})` : ''}` : 'none';
          extra.switchUnderWay = s !== null && s.activeModel !== s.targetModel;
          // Once setEmbedder resolved the switch is stored: the reopened app builds the new target.
          extra.embedderConsistent = s !== null && (!state.operationDone || s.targetModel === state.target);
        }
      } catch (err) {
        extra.error = err instanceof Error ? err.message : String(err);
      }
      await check.close();
      last = contents;
      const inFlightStored = state.unacked.filter((t) => t.startsWith('crash-t') && present.has(t)).length;
      perTrial.push({
        trial, workload, mode, killAfterMs, acknowledged: mine.length, inFlightStored, killedMidOperation: operationKind ? !state.operationDone : null, ...extra,
        ...(state.operationMs !== null ? { operationMs: Math.round(state.operationMs) } : {}),
        ...(state.operationError ? { error: state.operationError } : {}),
      });
      const now = new Set(contents);
      const lost = acked.filter((t) => !now.has(t)).length;
      options.onProgress?.(`trial ${trial}/${options.trials} ${workload} / ${mode} at ${killAfterMs} ms: ${mine.length} acknowledged, ${lost} lost so far, integrity ${integrity}${extra.importedAfterKill !== undefined ? `, import ${extra.importedAfterKill} → ${extra.importedAfterRetry}/${IMPORTED_TURNS}` : ''}${extra.memoryAfterKill ? `, memory ${extra.memoryAfterKill}` : ''}${extra.embedderAfterKill !== undefined ? `, embedder ${extra.embedderAfterKill}` : ''}${extra.error ? `, error ${extra.error}` : ''}`);
      await options.onTrial?.(summarise());
    }
  } finally {
    await context.close().catch(() => undefined);
    await server.close();
    await rm(profile, { recursive: true, force: true });
    await rm(app, { recursive: true, force: true });
  }
  return summarise();

  function inconsistent(t: CrashTrial): boolean {
    if (t.workload === 'history-import') {
      return t.importedAfterKill === undefined || t.importedAfterKill > IMPORTED_TURNS || t.importedAfterRetry !== IMPORTED_TURNS;
    }
    if (t.workload === 'memory-import') return t.memoryAfterKill !== 'old' && t.memoryAfterKill !== 'new';
    if (t.workload === 'embedder-switch') return t.embedderConsistent !== true;
    return false;
  }

  function summarise(): CrashReport {
    const present = new Set(last);
    const lostTurns = acked.filter((t) => !present.has(t));
    const byWorkload = Object.fromEntries(WORKLOADS.map((w) => {
      const trials = perTrial.filter((t) => t.workload === w);
      const ids = new Set(trials.map((t) => t.trial));
      return [w, {
        trials: trials.length,
        acknowledgedTurns: trials.reduce((a, t) => a + t.acknowledged, 0),
        lostAcknowledged: lostTurns.filter((c) => ids.has(ackedTrial.get(c) ?? -1)).length,
        killedMidOperation: trials.filter((t) => t.killedMidOperation === true || t.switchUnderWay === true).length,
        inconsistent: trials.filter(inconsistent).length,
      } satisfies WorkloadSummary];
    })) as Record<Workload, WorkloadSummary>;
    return {
      trials: perTrial.length, byMode: { ...byMode }, byWorkload, acknowledgedTurns: acked.length, lostAcknowledged: lostTurns.length,
      duplicates: duplicatesIn(last), integrityFailures, inconsistentImports: perTrial.filter(inconsistent).length,
      storedTurns: countPrefix(last, 'crash-t'), seconds: Math.round((Date.now() - started) / 1000), perTrial: [...perTrial], lostTurns,
    };
  }
}

export function crashSummary(r: CrashReport): string {
  const rows = WORKLOADS.map((w) => {
    const s = r.byWorkload[w];
    return `| ${w} | ${s.trials} | ${s.acknowledgedTurns} | ${s.lostAcknowledged} | ${s.killedMidOperation} | ${s.inconsistent} |`;
  });
  return [
    `| trials | renderer / engine worker / browser | acknowledged turns | lost | duplicates | integrity failures | inconsistent imports | time |`,
    `|---|---|---|---|---|---|---|---|`,
    `| ${r.trials} | ${r.byMode.renderer} / ${r.byMode['engine-worker']} / ${r.byMode.browser} | ${r.acknowledgedTurns} | ${r.lostAcknowledged} | ${r.duplicates} | ${r.integrityFailures} | ${r.inconsistentImports} | ${r.seconds} s |`,
    '',
    `| workload | trials | acknowledged turns | lost | killed mid-operation | inconsistent after kill (or re-import) |`,
    `|---|---|---|---|---|---|`,
    ...rows,
  ].join('\n');
}

/** The Markdown summary written next to the JSON report. */
export function crashMarkdown(r: CrashReport, meta: { readonly seed: number; readonly argv: readonly string[] }): string {
  const history = r.perTrial.filter((t) => t.workload === 'history-import');
  const memory = r.perTrial.filter((t) => t.workload === 'memory-import');
  const switches = r.perTrial.filter((t) => t.workload === 'embedder-switch');
  const inFlight = r.perTrial.reduce((a, t) => a + t.inFlightStored, 0);
  return [
    `# Crash safety: ${r.trials} trials`,
    '',
    `\`npm run bench -- crash ${meta.argv.join(' ')}\` (seed ${meta.seed}), headless Debian Chromium on OPFS.`,
    '',
    crashSummary(r),
    '',
    `- Turns sent but not acknowledged when the kill was ordered, found stored (once): ${inFlight}.`,
    `- History imports killed: ${history.length}; turns of the ${IMPORTED_TURNS}-turn file stored after the kill: ${history.map((t) => t.importedAfterKill ?? '?').join(', ') || '—'}; after importing again: ${history.filter((t) => t.importedAfterRetry === IMPORTED_TURNS).length} of ${history.length} complete, each turn once.`,
    `- Memory imports killed: ${memory.length}; the reopened app had the old memory ${memory.filter((t) => t.memoryAfterKill === 'old').length}×, the new one ${memory.filter((t) => t.memoryAfterKill === 'new').length}×, a mix ${memory.filter((t) => t.memoryAfterKill === 'mixed').length}×.`,
    `- Embedder switches killed: ${switches.length}; still re-embedding on reopen ${switches.filter((t) => t.switchUnderWay).length}×; building the embedder the switch had stored ${switches.filter((t) => t.embedderConsistent).length} of ${switches.length}.`,
    '',
  ].join('\n');
}

export async function crashCommand(argv: string[], usage: (m?: string) => never): Promise<void> {
  let parsed: CrashArgs;
  try {
    parsed = parseCrashArgs(argv);
  } catch (err) {
    return usage(err instanceof Error ? err.message : String(err));
  }
  const { trials, out, seed, build } = parsed;
  if (build) execFileSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const save = async (r: CrashReport, partial: boolean) => {
    if (out) await writeFile(out, `${JSON.stringify({ ...r, seed, partial, at: new Date().toISOString() }, null, 2)}\n`);
  };
  // The report is rewritten after every trial, so an interrupted run still leaves its figures.
  const report = await runCrash({ trials, seed, onProgress: (line) => process.stderr.write(`${line}\n`), onTrial: (r) => save(r, true) });
  process.stdout.write(`${crashSummary(report)}\n`);
  await save(report, false);
  if (out) await writeFile(out.replace(/\.json$/, '') + '.md', crashMarkdown(report, { seed, argv }));
  if (report.lostAcknowledged > 0 || report.duplicates > 0 || report.integrityFailures > 0 || report.inconsistentImports > 0) process.exitCode = 1;
}
