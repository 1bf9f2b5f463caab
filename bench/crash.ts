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
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { preview } from 'vite';
import type { EmbeddingStatus } from '../src/core/capture/embeddingStatus';
import { openMemoryDatabase } from '../src/storage/openNodeDatabase';
import { parseCrashArgs, type CrashArgs } from './cliArgs';
import { KILL_MODES, engineCall, exportMemory, kill, launch, openApp, type KillMode } from './crashHarness';
import {
  FULL_HISTORY, WORKLOAD_WEIGHTS, chatGptExport, historyTurns, importTitle, newState, resendAfterRestart, startWorkload, type HistoryShape, type Workload,
} from './crashWorkloads';
import type { SwapHit } from './crashHarness';
import type { Conversation } from '../src/core/base/types';
import { seededRandom } from './seededRandom';

export type { KillMode } from './crashHarness';
export type { Workload } from './crashWorkloads';

export interface CrashTrial {
  readonly trial: number;
  readonly workload: Workload;
  readonly mode: KillMode;
  readonly killAfterMs: number;
  readonly acknowledged: number;
  /** Turns sent (call made, Enter pressed) whose acknowledgement had not come when the kill was ordered. */
  readonly inFlight: number;
  /** Of those, found stored (once) after the kill. */
  readonly inFlightStored: number;
  /** The kill landed mid-operation, as defined per workload in MID_OPERATION. */
  readonly killedMidOperation: boolean;
  /** history-import: turns of the file its conversations held at the last poll before the kill; embedder-switch: turns with the new model's vector then. */
  readonly progressBeforeKill?: number;
  /** history-import: turns of the file stored after the kill (of the file's total), and after importing again. */
  readonly importedAfterKill?: number;
  readonly importedAfterRetry?: number;
  /** history-import: distinct turns of the file after importing again (each stored once when it equals the count). */
  readonly importedDistinct?: number;
  /** memory-import: which memory the reopened app had. */
  readonly memoryAfterKill?: 'old' | 'new' | 'mixed';
  /** memory-import: where in the swap's writes the engine worker was killed (null: the import ended first), and the snapshot's pages. */
  readonly swapHit?: SwapHit | null;
  readonly swapPages?: number;
  /** ui-typing after an engine-worker kill: the unsent message was re-sent with Enter; it had been stored before the kill (its acknowledgement lost). */
  readonly resent?: boolean;
  readonly resentAlreadyStored?: boolean;
  readonly resendSkipped?: string;
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
  /** Typed or appended turns of these trials stored more than once. */
  readonly duplicates: number;
  /** Trials whose kill landed mid-operation (MID_OPERATION). */
  readonly killedMidOperation: number;
  /** Import trials whose state after the kill (or after importing again) broke what the docs promise. */
  readonly inconsistent: number;
}

export interface CrashReport {
  readonly trials: number;
  /** Turns in the generated history file (history-import trials). */
  readonly historyTurns: number;
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

const WORKLOADS = WORKLOAD_WEIGHTS.map(([w]) => w);

/** What "killed mid-operation" means for each workload, and the evidence the trial records for it. */
export const MID_OPERATION: Record<Workload, string> = {
  'engine-appends': 'at least one append had been called and not acknowledged when the kill was ordered (the in-flight turns are then found stored or not)',
  'ui-typing': 'at least one typed message had been sent with Enter and not acknowledged (shown stored, box emptied) when the kill was ordered',
  'history-import': 'the import call had not returned, and after the kill the memory held part of the file: more than none and fewer than all of its turns (counted in the export)',
  'embedder-switch': 'the switch had been stored and part of the memory re-embedded (polled) when the kill was ordered, and the reopened app was still re-embedding',
  'memory-import': 'the engine worker was held and killed at a write of the swap (the backup into the live file, drawn at random among its writes), and the reopened app had the old memory: the swap had begun and not committed',
};

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

async function importHistoryAgain(page: Page, trial: number, shape: HistoryShape): Promise<void> {
  await page.evaluate(([t, id]) => {
    const w = window as unknown as { __crashCall(m: string, a: unknown[]): Promise<{ ok: boolean; error?: { message: string } }>; __crashFile(n: string, t: string): File };
    return w.__crashCall('importHistory', [w.__crashFile('conversations.json', t), { format: 'chatgpt', importId: id, policy: 'off' }]).then((r) => {
      if (!r.ok) throw new Error(r.error!.message);
    });
  }, [chatGptExport(trial, shape), `crash-import-${trial}-again`] as const);
}

/**
 * Deletes a history trial's imported conversations once checked, so the memory every later trial
 * exports, snapshots and restores stays the size of what was typed and appended.
 */
async function deleteImported(page: Page, trial: number): Promise<void> {
  const list = await engineCall<Conversation[]>(page, 'listConversations');
  for (const c of list) if (c.title.startsWith(importTitle(trial))) await engineCall(page, 'deleteConversation', [c.id]);
}

export interface CrashOptions {
  readonly trials: number;
  /** The generated history's size: FULL_HISTORY by default; the smoke test's is smaller. */
  readonly history?: HistoryShape;
  readonly seed?: number;
  /** Run these workloads in turn (the smoke test runs each kind once); default: drawn by WORKLOAD_WEIGHTS. */
  readonly workloads?: readonly Workload[];
  readonly onProgress?: (line: string) => void;
  readonly onTrial?: (soFar: CrashReport) => Promise<void>;
}

export async function runCrash(options: CrashOptions): Promise<CrashReport> {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npm run build` first.');
  const random = seededRandom(options.seed ?? 12);
  const shape = options.history ?? FULL_HISTORY;
  const total = historyTurns(shape);
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
  try {
    for (let trial = 1; trial <= options.trials; trial++) {
      const workload = pickWorkload(random(), trial, options.workloads);
      const mode = KILL_MODES[Math.floor(random() * KILL_MODES.length)]!;
      // Appends are killed 1–6 s in, typing 2–10 s in (a typed turn takes about a second through the
      // page); imports and switches when they reach a random point of their own progress
      // (crashWorkloads.ts), at the latest after 120 s.
      const waitMs = workload === 'engine-appends' ? 1_000 + random() * 5_000 : workload === 'ui-typing' ? 2_000 + random() * 8_000 : 120_000;
      const page = await openApp(context, url);
      const state = newState();
      const stop = { now: false };
      // A workload that cannot start is recorded as this trial's error; the kill and checks still run.
      const started = performance.now();
      const { running, killWhen } = await startWorkload(workload, page, trial, state, stop, { history: shape, random, snapshot: () => exportMemory(page) }).catch((err: unknown) => {
        state.operationError = `could not start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
        return { running: Promise.resolve(), killWhen: undefined };
      });
      await Promise.race([page.waitForTimeout(waitMs).catch(() => undefined), ...(killWhen ? [killWhen] : [])]);
      const killAfterMs = Math.round(performance.now() - started);
      stop.now = true;
      const inFlight = state.sending.size + state.unacked.length;
      await kill(mode, context, page, profile).catch(() => undefined);
      await running.catch(() => undefined);
      // As the restart notice invites: the unsent message is still in the box; press Enter.
      if (workload === 'ui-typing' && mode === 'engine-worker') {
        await resendAfterRestart(page, state).catch((err: unknown) => {
          state.operationError = `re-send after the restart: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
        });
      }
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
      if (state.progressBeforeKill !== null) extra.progressBeforeKill = state.progressBeforeKill;
      try {
        if (workload === 'history-import') {
          const prefix = `crash-h${trial}-`;
          const importedAfterKill = countPrefix(contents, prefix);
          await importHistoryAgain(check, trial, shape);
          ({ contents, integrity } = await inspect(await exportMemory(check)));
          if (integrity !== 'ok') integrityFailures++;
          Object.assign(extra, { importedAfterKill, importedAfterRetry: countPrefix(contents, prefix), importedDistinct: new Set(contents.filter((c) => c.startsWith(prefix))).size });
          await deleteImported(check, trial);
          ({ contents } = await inspect(await exportMemory(check)));
        } else if (workload === 'memory-import') {
          const markers = countPrefix(contents, `crash-m${trial}-`);
          const sent = state.acked.filter((c) => c.startsWith('crash-m')).length;
          extra.memoryAfterKill = markers === sent && sent > 0 ? 'old' : markers === 0 ? 'new' : 'mixed';
          extra.swapHit = state.swapHit;
          if (state.swapPages !== null) extra.swapPages = state.swapPages;
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
      if (state.resent) Object.assign(extra, { resent: true, resentAlreadyStored: state.resent.alreadyStored });
      if (state.resendSkipped) extra.resendSkipped = state.resendSkipped;
      const killedMidOperation = workload === 'engine-appends' || workload === 'ui-typing' ? inFlight > 0
        : workload === 'history-import' ? !state.operationDone && (extra.importedAfterKill ?? 0) > 0 && (extra.importedAfterKill ?? total) < total
          : workload === 'embedder-switch' ? (extra.progressBeforeKill ?? 0) > 0 && extra.switchUnderWay === true
            : state.swapHit !== null && !state.operationDone && extra.memoryAfterKill === 'old';
      perTrial.push({
        trial, workload, mode, killAfterMs, acknowledged: mine.length, inFlight, inFlightStored, killedMidOperation, ...extra,
        ...(state.operationMs !== null ? { operationMs: Math.round(state.operationMs) } : {}),
        ...(state.operationError ? { error: state.operationError } : {}),
      });
      const now = new Set(contents);
      const lost = acked.filter((t) => !now.has(t)).length;
      options.onProgress?.(`trial ${trial}/${options.trials} ${workload} / ${mode} at ${killAfterMs} ms: ${mine.length} acknowledged, ${inFlight} in flight, ${lost} lost so far, integrity ${integrity}, ${killedMidOperation ? 'mid-operation' : 'not mid-operation'}${extra.progressBeforeKill !== undefined ? `, progress ${extra.progressBeforeKill} before the kill` : ''}${extra.importedAfterKill !== undefined ? `, import ${extra.importedAfterKill} → ${extra.importedAfterRetry}/${total}` : ''}${extra.memoryAfterKill ? `, memory ${extra.memoryAfterKill}${extra.swapHit ? ` (killed before write ${extra.swapHit.target} of the swap, ${extra.swapHit.flushes} syncs before; ${extra.swapPages} pages)` : ' (the import ended first)'}` : ''}${extra.resent ? `, re-sent after the restart${extra.resentAlreadyStored ? ' (already stored)' : ''}` : ''}${extra.embedderAfterKill !== undefined ? `, embedder ${extra.embedderAfterKill}` : ''}${extra.error ? `, error ${extra.error}` : ''}`);
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
      return t.importedAfterKill === undefined || t.importedAfterKill > total || t.importedAfterRetry !== total || t.importedDistinct !== total;
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
        killedMidOperation: trials.filter((t) => t.killedMidOperation).length,
        duplicates: duplicatesIn(last.filter((c) => ids.has(Number(/^crash-[tm](\d+)-/.exec(c)?.[1])))),
        inconsistent: trials.filter(inconsistent).length,
      } satisfies WorkloadSummary];
    })) as Record<Workload, WorkloadSummary>;
    return {
      trials: perTrial.length, historyTurns: total, byMode: { ...byMode }, byWorkload, acknowledgedTurns: acked.length, lostAcknowledged: lostTurns.length,
      duplicates: duplicatesIn(last), integrityFailures, inconsistentImports: perTrial.filter(inconsistent).length,
      storedTurns: countPrefix(last, 'crash-t'), seconds: Math.round((Date.now() - started) / 1000), perTrial: [...perTrial], lostTurns,
    };
  }
}

export function crashSummary(r: CrashReport): string {
  const rows = WORKLOADS.map((w) => {
    const s = r.byWorkload[w];
    return `| ${w} | ${s.trials} | ${s.acknowledgedTurns} | ${s.lostAcknowledged} | ${s.duplicates} | ${s.killedMidOperation} of ${s.trials} | ${s.inconsistent} |`;
  });
  return [
    `| trials | renderer / engine worker / browser | acknowledged turns | lost | duplicates | integrity failures | inconsistent imports | time |`,
    `|---|---|---|---|---|---|---|---|`,
    `| ${r.trials} | ${r.byMode.renderer} / ${r.byMode['engine-worker']} / ${r.byMode.browser} | ${r.acknowledgedTurns} | ${r.lostAcknowledged} | ${r.duplicates} | ${r.integrityFailures} | ${r.inconsistentImports} | ${r.seconds} s |`,
    '',
    `| workload | trials | acknowledged turns | lost | stored twice | killed mid-operation | inconsistent after kill (or re-import) |`,
    `|---|---|---|---|---|---|---|`,
    ...rows,
  ].join('\n');
}

const list = (values: readonly (string | number)[]) => values.join(', ') || '—';

/** The Markdown summary written next to the JSON report. */
export function crashMarkdown(r: CrashReport, meta: { readonly seed: number; readonly argv: readonly string[]; readonly preamble?: readonly string[] }): string {
  const of = (w: Workload) => r.perTrial.filter((t) => t.workload === w);
  const history = of('history-import');
  const memory = of('memory-import');
  const switches = of('embedder-switch');
  const typing = of('ui-typing');
  const turns = [...of('engine-appends'), ...typing];
  const inFlightStored = turns.reduce((a, t) => a + t.inFlightStored, 0);
  const besideStored = [...history, ...switches].reduce((a, t) => a + t.inFlightStored, 0);
  const held = memory.filter((t) => t.swapHit);
  const resent = typing.filter((t) => t.resent);
  return [
    `# Crash safety: ${r.trials} trials`,
    '',
    ...(meta.preamble ?? []),
    `\`npm run bench -- crash ${meta.argv.join(' ')}\` (seed ${meta.seed}), headless Debian Chromium on OPFS.`,
    '',
    crashSummary(r),
    '',
    '"Killed mid-operation", per workload (the evidence each trial records is in the JSON report):',
    '',
    ...WORKLOADS.map((w) => `- **${w}**: ${MID_OPERATION[w]}.`),
    '',
    '## Evidence',
    '',
    `- Appends and typing: ${turns.filter((t) => t.inFlight > 0).length} of ${turns.length} kills came with turns in flight (${turns.reduce((a, t) => a + t.inFlight, 0)} turns); found stored after the kill (once each): ${inFlightStored} (turns in flight are counted when the kill is ordered, found stored when reopened: a call answered after the order is among the latter). Appends beside imports and switches: ${besideStored} more found stored.`,
    `- Typing: ${typing.length} trials, ${r.byWorkload['ui-typing'].acknowledgedTurns} turns typed and acknowledged; after ${typing.filter((t) => t.mode === 'engine-worker').length} engine-worker kills the unsent message was re-sent with Enter ${resent.length}×, ${resent.filter((t) => t.resentAlreadyStored).length} of them already stored before the kill (acknowledgement lost); not re-sent: ${list(typing.filter((t) => t.resendSkipped).map((t) => `trial ${t.trial}, ${t.resendSkipped}`))}; stored twice: ${r.byWorkload['ui-typing'].duplicates}.`,
    `- History imports (${r.historyTurns}-turn file, ≈150 KB a transaction): ${history.length} killed; turns of the file seen stored at the last poll before the kill → stored after the kill: ${list(history.map((t) => `${t.progressBeforeKill ?? '?'} → ${t.importedAfterKill ?? '?'}`))}; after importing again: ${history.filter((t) => t.importedAfterRetry === r.historyTurns && t.importedDistinct === r.historyTurns).length} of ${history.length} complete, each turn once.`,
    `- Memory imports: ${memory.length} killed, ${held.length} held at a write of the swap (write drawn / snapshot pages, syncs before it → memory after): ${list(held.map((t) => `${t.swapHit!.target}/${t.swapPages ?? '?'}, ${t.swapHit!.flushes} → ${t.memoryAfterKill}`))}; the reopened app had the old memory ${memory.filter((t) => t.memoryAfterKill === 'old').length}×, the new one ${memory.filter((t) => t.memoryAfterKill === 'new').length}×, a mix ${memory.filter((t) => t.memoryAfterKill === 'mixed').length}×.`,
    `- Embedder switches: ${switches.length} killed; turns re-embedded at the last poll before the kill: ${list(switches.map((t) => t.progressBeforeKill ?? '?'))}; still re-embedding on reopen ${switches.filter((t) => t.switchUnderWay).length}×; building the embedder the switch had stored ${switches.filter((t) => t.embedderConsistent).length} of ${switches.length}.`,
    ...(r.perTrial.some((t) => t.error) ? ['', `Trial errors: ${list(r.perTrial.filter((t) => t.error).map((t) => `${t.trial} (${t.workload}): ${t.error}`))}.`] : []),
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
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ');
  const loadBefore = load();
  const startedAt = new Date().toISOString();
  // The report is rewritten after every trial, so an interrupted run still leaves its figures.
  const report = await runCrash({ trials, seed, onProgress: (line) => process.stderr.write(`${line}\n`), onTrial: (r) => save(r, true) });
  process.stdout.write(`${crashSummary(report)}\n`);
  await save(report, false);
  const preamble = [`Run ${startedAt.slice(0, 16).replace('T', ' ')} UTC, commit ${commit}, ${cpus().length} cores, load average (1 / 5 / 15 min) ${loadBefore} at the start, ${load()} at the end.`, ''];
  if (out) await writeFile(out.replace(/\.json$/, '') + '.md', crashMarkdown(report, { seed, argv, preamble }));
  if (report.lostAcknowledged > 0 || report.duplicates > 0 || report.integrityFailures > 0 || report.inconsistentImports > 0) process.exitCode = 1;
}
