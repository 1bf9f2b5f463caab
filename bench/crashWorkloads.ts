/**
 * What the crash benchmark (bench/crash.ts) does to the memory while it waits to kill it. Each
 * workload runs until `stop.now` or until the page dies, records what was acknowledged, and never
 * counts an acknowledgement that arrived after the kill was ordered (conservative: such a turn may
 * or may not be kept). Every turn is real-length (≈1,100 characters, some with a code block or a
 * table: bench/chatProse.ts), as people write them.
 *
 * - `ui-typing`: turns typed into the composer as a person does (the first words key by key, the
 *   rest pasted) and sent with Enter; acknowledged when shown in the chat list. After an
 *   engine-worker kill the restart notice says the unsent message is still in the box: the bench
 *   presses Enter again, as invited (resendAfterRestart).
 * - `engine-appends`: `appendTurn` called back to back at the engine's pace (APPEND_LANES callers);
 *   acknowledged when the call resolved.
 * - `history-import`: a generated ChatGPT export of many real-length turns (HistoryShape: many
 *   write transactions of ≈150 KB) imported with `importHistory` (the call the Import chats…
 *   dialog makes), appends running beside it; killed once the import's own conversations hold a
 *   random share of the file (polled), so the kill lands part-way.
 * - `embedder-switch`: `setEmbedder` to the other embedder (every turn is re-embedded), appends
 *   running beside it; killed once a random share of the turns has the new model's vector.
 * - `memory-import`: `importDatabase` of a snapshot exported at the start of the trial; the marker
 *   turns appended after the snapshot tell the old memory (all of them) from the new (none). The
 *   kill lands inside the swap: the harness holds the engine worker at a random write to its OPFS
 *   files after the import began (crashHarness.ts, armSwapKill) and kills it there.
 */
import type { Page } from '@playwright/test';
import type { EmbeddingStatus } from '../src/core/capture/embeddingStatus';
import type { Conversation } from '../src/core/base/types';
import { BUNDLED_MODEL_ID } from '../src/models/catalog';
import { chatTurn } from './chatProse';
import { SECOND_EMBEDDER, armSwapKill, engineCall, swapHit, waitForQuietStorage, type SwapHit } from './crashHarness';
import { seededRandom } from './seededRandom';

export type Workload = 'ui-typing' | 'engine-appends' | 'history-import' | 'embedder-switch' | 'memory-import';

/** Trial shares: appends at the engine's pace carry most acknowledged turns; every other kind has weight. */
export const WORKLOAD_WEIGHTS: readonly (readonly [Workload, number])[] = [
  ['engine-appends', 0.4], ['ui-typing', 0.2], ['history-import', 0.14], ['embedder-switch', 0.13], ['memory-import', 0.13],
];

export interface Stop { now: boolean }

export interface WorkloadState {
  /** Turn contents acknowledged before the kill was ordered. */
  readonly acked: string[];
  /** Turn contents sent (call made, Enter pressed) whose acknowledgement did not come before the kill was ordered. */
  readonly unacked: string[];
  /** Turn contents whose call (or Enter) is under way now: at the kill, these are in flight. */
  readonly sending: Set<string>;
  /** Whether the long operation (import, switch) had resolved before the kill was ordered. */
  operationDone: boolean;
  /** How long the operation took when it finished before the kill. */
  operationMs: number | null;
  operationError: string | null;
  /** embedder-switch: the embedder switched to. */
  target: string | null;
  /** history-import: turns of the file its conversations held at the last poll before the kill; embedder-switch: turns with the target's vector. */
  progressBeforeKill: number | null;
  /** memory-import: where the harness held the worker for the kill (null: the import ended first). */
  swapHit: SwapHit | null;
  /** memory-import: pages of the snapshot (the swap writes about two OPFS writes a page). */
  swapPages: number | null;
  /** ui-typing after an engine-worker kill: the unsent draft re-sent with Enter, and whether it was already shown stored. */
  resent: { readonly content: string; readonly alreadyStored: boolean } | null;
  /** ui-typing after an engine-worker kill: why nothing was re-sent (the box was emptied: the send had been acknowledged to the app). */
  resendSkipped: string | null;
}

export const newState = (): WorkloadState => ({
  acked: [], unacked: [], sending: new Set(), operationDone: false, operationMs: null, operationError: null, target: null, progressBeforeKill: null, swapHit: null, swapPages: null, resent: null, resendSkipped: null,
});

/** The head that names a turn (the checks find turns by it); the rest of the turn is generated text. */
export const turnHead = (trial: number, i: number, lane = 0) => `crash-t${trial}-l${lane}-n${i}`;
const turnSeed = (trial: number, i: number, lane: number) => trial * 1_000_003 + lane * 100_003 + i;
export const turnContent = (trial: number, i: number, lane = 0) => chatTurn(turnHead(trial, i, lane), seededRandom(turnSeed(trial, i, lane)));
export const markerContent = (trial: number, i: number) => chatTurn(`crash-m${trial}-n${i}`, seededRandom(trial * 31 + i));
export const importedContent = (trial: number, c: number, k: number) => chatTurn(`crash-h${trial}-c${c}-k${k}`, seededRandom(trial * 7_919 + c * 101 + k));

/** The generated history: many real-length turns, so its import takes many write transactions (≈150 KB each). */
export interface HistoryShape { readonly conversations: number; readonly turnsPerConversation: number }
/** ≈1,200 turns, ≈1.3 MB of text: ≈9 transactions. */
export const FULL_HISTORY: HistoryShape = { conversations: 100, turnsPerConversation: 12 };
/** The smoke test's: ≈360 turns, ≈400 KB: 3 transactions, still enough to be killed part-way. */
export const SMOKE_HISTORY: HistoryShape = { conversations: 36, turnsPerConversation: 10 };
export const historyTurns = (s: HistoryShape) => s.conversations * s.turnsPerConversation;
export const importTitle = (trial: number) => `Crash import ${trial}/`;

/** A ChatGPT `conversations.json` whose turns are all distinct and named after the trial. */
export function chatGptExport(trial: number, shape: HistoryShape): string {
  const t0 = 1_700_000_000 - trial * 10_000_000;
  const conversations = Array.from({ length: shape.conversations }, (_, c) => {
    const node = (k: number) => `crash-h${trial}-c${c}-k${k}`;
    const last = shape.turnsPerConversation - 1;
    const mapping = Object.fromEntries(Array.from({ length: shape.turnsPerConversation }, (__, k) => [node(k), {
      id: node(k), parent: k ? node(k - 1) : null, children: k < last ? [node(k + 1)] : [],
      message: {
        id: node(k), author: { role: k % 2 ? 'assistant' : 'user' }, create_time: t0 + c * 600 + k * 30 + 0.123456,
        content: { content_type: 'text', parts: [importedContent(trial, c, k)] },
      },
    }]));
    return { id: `crash-h${trial}-c${c}`, title: `${importTitle(trial)}${c}`, create_time: t0 + c * 600, current_node: node(last), mapping };
  });
  return JSON.stringify(conversations);
}

/** Turns the trial's imported conversations hold (their own count, as the sidebar shows it). */
export async function importedSoFar(page: Page, trial: number): Promise<number> {
  const list = await engineCall<Conversation[]>(page, 'listConversations');
  return list.filter((c) => c.title.startsWith(importTitle(trial))).reduce((a, c) => a + c.messageCount, 0);
}

/**
 * Appends from this many callers at once: the engine commits one turn at a time, and a caller
 * waiting for a round trip through the page would otherwise leave it idle on a loaded machine.
 */
export const APPEND_LANES = 4;

/** Appends turns back to back through the engine until stopped or the page dies. */
async function appendLoop(page: Page, conversationId: string, name: (i: number) => string, state: WorkloadState, stop: Stop, max = Infinity, lane = 0): Promise<void> {
  for (let i = 0; !stop.now && i < max; i++) {
    const content = name(i);
    state.sending.add(content);
    try {
      await engineCall(page, 'appendTurn', [{ id: `${conversationId}-l${lane}-${i}`, conversationId, role: i % 2 ? 'assistant' : 'user', content }]);
      (stop.now ? state.unacked : state.acked).push(content);
    } catch { // the call failed or the page died mid-call: not acknowledged
      state.unacked.push(content);
      return;
    } finally {
      state.sending.delete(content);
    }
  }
}

async function newConversation(page: Page, trial: number): Promise<string> {
  return (await engineCall<{ id: string }>(page, 'createConversation', [{ id: `crash-conv-${trial}`, title: `Crash trial ${trial}` }])).id;
}

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });
const shown = (page: Page, content: string) => page.getByTestId('message').filter({ hasText: content.slice(0, 60) });

/** Types turns into the composer until stopped or the page dies. */
async function typeLoop(page: Page, trial: number, state: WorkloadState, stop: Stop): Promise<void> {
  try {
    // A dialog the last trial left (a restored memory asking before spending) would cover the chat.
    if (await page.locator('dialog[open]').count() > 0) await page.keyboard.press('Escape');
    await page.getByRole('button', { name: '+ New conversation' }).click({ timeout: 30_000 });
  } catch (err) {
    state.operationError = `no conversation to type in: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    return;
  }
  const box = messageBox(page);
  for (let i = 0; !stop.now; i++) {
    const content = turnContent(trial, i);
    const head = turnHead(trial, i);
    let pressed = false;
    try {
      // As a person does: the first words typed key by key, the rest pasted, then Enter.
      await box.click({ timeout: 5_000 });
      await box.pressSequentially(head, { timeout: 5_000 });
      await page.keyboard.insertText(content.slice(head.length));
      if (stop.now) return;
      state.sending.add(content);
      await box.press('Enter', { timeout: 5_000 });
      pressed = true;
      await shown(page, content).waitFor({ timeout: 15_000 });
      // Acknowledged: shown stored and the box emptied (the send's reply came), as a person sees it.
      await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.value === '', undefined, { timeout: 10_000 });
      (stop.now ? state.unacked : state.acked).push(content);
    } catch { // the page died or stalled mid-send: not acknowledged (a turn never sent is not at risk)
      if (pressed) state.unacked.push(content);
      return;
    } finally {
      state.sending.delete(content);
    }
  }
}

/**
 * After an engine-worker kill during typing: when the restart notice is shown and the unsent
 * message is still in the box, press Enter as the notice invites. Records whether the turn was
 * already shown stored (committed before the kill, its acknowledgement lost): re-sending it must
 * not store it twice.
 */
export async function resendAfterRestart(page: Page, state: WorkloadState): Promise<void> {
  const draft = state.unacked.at(-1);
  if (!draft) return;
  await page.getByRole('alert').filter({ hasText: 'The memory engine stopped unexpectedly and was restarted' }).waitFor({ timeout: 60_000 });
  const box = messageBox(page);
  const value = await box.inputValue({ timeout: 10_000 });
  if (value !== draft) {
    state.resendSkipped = value === '' ? 'the box was empty (the app had its acknowledgement)' : `the box held other text (${value.length} characters)`;
    return;
  }
  // The restarted engine's list is read again: give it the time to show a turn stored before the kill.
  await page.waitForTimeout(1_500);
  const alreadyStored = (await shown(page, draft).count()) > 0;
  await box.press('Enter', { timeout: 10_000 });
  await shown(page, draft).first().waitFor({ timeout: 30_000 });
  state.resent = { content: draft, alreadyStored };
}

async function operation(state: WorkloadState, stop: Stop, run: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  try {
    await run();
    if (!stop.now) {
      state.operationDone = true;
      state.operationMs = performance.now() - t0;
    }
  } catch (err) {
    if (!stop.now) state.operationError = err instanceof Error ? err.message : String(err);
  }
}

/**
 * Resolves once `progress` reports at least `threshold` (polled), or once `done` is true or the
 * page stops answering. `onValue` sees every value read, so the last one before the kill is known.
 */
async function whenProgress(page: Page, threshold: number, progress: () => Promise<number | null>, done: () => boolean, onValue: (n: number) => void): Promise<void> {
  for (;;) {
    if (done()) return;
    let value: number | null;
    try {
      value = await progress();
    } catch {
      return;
    }
    if (value !== null) {
      onValue(value);
      if (value >= threshold) return;
    }
    await page.waitForTimeout(150).catch(() => undefined);
  }
}

export interface RunningWorkload {
  readonly running: Promise<unknown>;
  /** Resolves when the workload wants its kill (it reached a random point of its operation); absent: a random time. */
  readonly killWhen?: Promise<void>;
}

export interface WorkloadOptions {
  readonly history: HistoryShape;
  /** Draws where in the operation the kill lands (0–1). */
  readonly random: () => number;
  /** The memory-import file (the memory exported at the trial's start). */
  readonly snapshot: () => Promise<Uint8Array>;
}

/** Prepares a trial (anything that must finish before the kill window opens) and returns the running workload. */
export async function startWorkload(workload: Workload, page: Page, trial: number, state: WorkloadState, stop: Stop, options: WorkloadOptions): Promise<RunningWorkload> {
  // The running promise is returned wrapped: an async function returning it bare would wait for it.
  if (workload === 'ui-typing') return { running: typeLoop(page, trial, state, stop) };
  const conversationId = await newConversation(page, trial);
  const appends = () => Promise.all(Array.from({ length: APPEND_LANES }, (_, lane) => appendLoop(page, conversationId, (i) => turnContent(trial, i, lane), state, stop, Infinity, lane)));
  switch (workload) {
    case 'engine-appends':
      return { running: appends() };
    case 'history-import': {
      const text = chatGptExport(trial, options.history);
      const share = 0.05 + options.random() * 0.85;
      const run = operation(state, stop, () => page.evaluate(([t, id]) => {
        const w = window as unknown as { __crashCall(m: string, a: unknown[]): Promise<{ ok: boolean; error?: { message: string } }>; __crashFile(n: string, t: string): File };
        return w.__crashCall('importHistory', [w.__crashFile('conversations.json', t), { format: 'chatgpt', importId: id, policy: 'off' }]).then((r) => {
          if (!r.ok) throw new Error(r.error!.message);
        });
      }, [text, `crash-import-${trial}`] as const));
      const killWhen = whenProgress(page, Math.ceil(share * historyTurns(options.history)), () => importedSoFar(page, trial),
        () => state.operationDone || state.operationError !== null, (n) => { state.progressBeforeKill = n; });
      return { running: Promise.all([run, appends()]), killWhen };
    }
    case 'embedder-switch': {
      const status = await engineCall<EmbeddingStatus | null>(page, 'embeddingStatus');
      const target = status?.targetModel === SECOND_EMBEDDER ? BUNDLED_MODEL_ID : SECOND_EMBEDDER;
      state.target = target;
      // As the Models panel does: a catalog embedder is downloaded (here: from the stand-in hub) before use.
      if (target === SECOND_EMBEDDER) await engineCall(page, 'downloadModel', [target], 'models');
      const share = 0.05 + options.random() * 0.85;
      let finished = false;
      const killWhen = whenProgress(page, 0, async () => {
        const s = await engineCall<EmbeddingStatus | null>(page, 'embeddingStatus');
        if (!s || s.targetModel !== target) return null; // the switch is not stored yet
        if (s.activeModel === target) finished = true;
        return s.embedded >= share * s.total ? s.embedded : null;
      }, () => finished, (n) => { state.progressBeforeKill = n; });
      return { running: Promise.all([operation(state, stop, () => engineCall(page, 'setEmbedder', [target])), appends()]), killWhen };
    }
    case 'memory-import': {
      const bytes = await options.snapshot();
      // Acknowledged after the snapshot: present in the old memory, absent from the imported one.
      await appendLoop(page, conversationId, (i) => markerContent(trial, i), state, { now: false }, 3);
      // The swap writes the file's pages into the write-ahead log (two writes a page) and, once
      // committed, checkpoints them: a write drawn from the first ≈2.2 pages' worth lands mostly
      // inside the swap, some just after its commit.
      state.swapPages = Math.ceil(bytes.byteLength / 4096);
      await waitForQuietStorage(page);
      await armSwapKill(page, 1 + Math.floor(options.random() * 2.2 * state.swapPages));
      const run = operation(state, stop, () => page.evaluate(async (b64) => {
        const w = window as unknown as { __crashCall(m: string, a: unknown[]): Promise<{ ok: boolean; error?: { message: string } }>; __crashFromBase64(s: string): Uint8Array };
        const r = await w.__crashCall('importDatabase', [w.__crashFromBase64(b64)]);
        if (!r.ok) throw new Error(r.error!.message);
      }, Buffer.from(bytes).toString('base64')));
      const killWhen = (async () => {
        let ended = false;
        void run.finally(() => { ended = true; });
        for (;;) {
          const hit = await swapHit(page).catch(() => null);
          if (hit) {
            state.swapHit = hit;
            return;
          }
          if (ended) return;
          await page.waitForTimeout(20).catch(() => undefined);
        }
      })();
      return { running: run, killWhen };
    }
  }
}
