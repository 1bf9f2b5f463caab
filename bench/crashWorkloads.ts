/**
 * What the crash benchmark (bench/crash.ts) does to the memory while it waits to kill it. Each
 * workload runs until `stop.now` or until the page dies, records what was acknowledged, and never
 * counts an acknowledgement that arrived after the kill was ordered (conservative: such a turn may
 * or may not be kept).
 *
 * - `ui-typing`: turns typed into the composer; acknowledged when shown in the chat list.
 * - `engine-appends`: `appendTurn` called back to back at the engine's pace (APPEND_LANES callers);
 *   acknowledged when the call resolved.
 * - `history-import`: a generated ChatGPT export imported with `importHistory` (the call the
 *   Import chats… dialog makes), appends running beside it.
 * - `embedder-switch`: `setEmbedder` to the other embedder (every turn is re-embedded), appends
 *   running beside it.
 * - `memory-import`: `importDatabase` of a snapshot exported at the start of the trial; the marker
 *   turns appended after the snapshot tell the old memory (all of them) from the new (none).
 */
import type { Page } from '@playwright/test';
import type { EmbeddingStatus } from '../src/core/capture/EmbeddingIndexer';
import { BUNDLED_MODEL_ID } from '../src/models/catalog';
import { SECOND_EMBEDDER, engineCall } from './crashHarness';

export type Workload = 'ui-typing' | 'engine-appends' | 'history-import' | 'embedder-switch' | 'memory-import';

/**
 * Trial shares: mostly appends at the engine's pace; some of each other kind. Typing through the
 * UI acknowledged almost nothing on the loaded machine (0–1 turns a trial), so the full run leaves
 * it to the smoke test (e2e/crashSmoke.spec.ts), which runs every workload.
 */
export const WORKLOAD_WEIGHTS: readonly (readonly [Workload, number])[] = [
  ['engine-appends', 0.6], ['history-import', 0.15], ['embedder-switch', 0.15], ['memory-import', 0.1], ['ui-typing', 0],
];

export interface Stop { now: boolean }

export interface WorkloadState {
  /** Turn contents acknowledged before the kill was ordered. */
  readonly acked: string[];
  /** Turn contents sent whose acknowledgement did not come (or came after the kill was ordered). */
  readonly unacked: string[];
  /** Whether the long operation (import, switch) had resolved before the kill was ordered. */
  operationDone: boolean;
  /** How long the operation took when it finished before the kill. */
  operationMs: number | null;
  operationError: string | null;
  /** embedder-switch: the embedder switched to. */
  target: string | null;
}

export const newState = (): WorkloadState => ({ acked: [], unacked: [], operationDone: false, operationMs: null, operationError: null, target: null });

export const turnContent = (trial: number, i: number, lane = 0) => `crash-t${trial}-l${lane}-n${i} remembered turn`;
export const markerContent = (trial: number, i: number) => `crash-m${trial}-n${i} marker turn`;
export const importedContent = (trial: number, c: number, k: number) => `crash-h${trial}-c${c}-k${k} imported turn`;

/** Turns in the generated ChatGPT export of a history-import trial. */
export const IMPORT_CONVERSATIONS = 100;
export const IMPORT_TURNS_PER_CONVERSATION = 4;

/** A ChatGPT `conversations.json` whose turns are all distinct and named after the trial. */
export function chatGptExport(trial: number): string {
  const t0 = 1_700_000_000 - trial * 10_000_000;
  const conversations = Array.from({ length: IMPORT_CONVERSATIONS }, (_, c) => {
    const node = (k: number) => `crash-h${trial}-c${c}-k${k}`;
    const mapping = Object.fromEntries(Array.from({ length: IMPORT_TURNS_PER_CONVERSATION }, (__, k) => [node(k), {
      id: node(k), parent: k ? node(k - 1) : null, children: k < IMPORT_TURNS_PER_CONVERSATION - 1 ? [node(k + 1)] : [],
      message: {
        id: node(k), author: { role: k % 2 ? 'assistant' : 'user' }, create_time: t0 + c * 600 + k * 30,
        content: { content_type: 'text', parts: [importedContent(trial, c, k)] },
      },
    }]));
    return { id: `crash-h${trial}-c${c}`, title: `Crash import ${trial}/${c}`, create_time: t0 + c * 600, current_node: node(IMPORT_TURNS_PER_CONVERSATION - 1), mapping };
  });
  return JSON.stringify(conversations);
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
    try {
      await engineCall(page, 'appendTurn', [{ id: `${conversationId}-l${lane}-${i}`, conversationId, role: i % 2 ? 'assistant' : 'user', content }]);
      (stop.now ? state.unacked : state.acked).push(content);
    } catch { // the call failed or the page died mid-call: not acknowledged
      state.unacked.push(content);
      return;
    }
  }
}

async function newConversation(page: Page, trial: number): Promise<string> {
  return (await engineCall<{ id: string }>(page, 'createConversation', [{ id: `crash-conv-${trial}`, title: `Crash trial ${trial}` }])).id;
}

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
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  for (let i = 0; !stop.now; i++) {
    const content = turnContent(trial, i);
    try {
      await box.fill(content, { timeout: 5_000 });
      await box.press('Enter', { timeout: 5_000 });
      await page.getByTestId('message').filter({ hasText: content }).waitFor({ timeout: 10_000 });
      (stop.now ? state.unacked : state.acked).push(content);
    } catch { // the page died or stalled mid-send: not acknowledged
      state.unacked.push(content);
      return;
    }
  }
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
 * Prepares a trial (anything that must finish before the kill window opens) and returns the
 * running workload. `snapshot` is the memory-import file (the memory exported at the trial's start).
 */
export async function startWorkload(workload: Workload, page: Page, trial: number, state: WorkloadState, stop: Stop, snapshot: () => Promise<Uint8Array>): Promise<{ readonly running: Promise<unknown> }> {
  // The running promise is returned wrapped: an async function returning it bare would wait for it.
  if (workload === 'ui-typing') return { running: typeLoop(page, trial, state, stop) };
  const conversationId = await newConversation(page, trial);
  const appends = () => Promise.all(Array.from({ length: APPEND_LANES }, (_, lane) => appendLoop(page, conversationId, (i) => turnContent(trial, i, lane), state, stop, Infinity, lane)));
  switch (workload) {
    case 'engine-appends':
      return { running: appends() };
    case 'history-import': {
      const text = chatGptExport(trial);
      const run = operation(state, stop, () => page.evaluate(([t, id]) => {
        const w = window as unknown as { __crashCall(m: string, a: unknown[]): Promise<{ ok: boolean; error?: { message: string } }>; __crashFile(n: string, t: string): File };
        return w.__crashCall('importHistory', [w.__crashFile('conversations.json', t), { format: 'chatgpt', importId: id, policy: 'off' }]).then((r) => {
          if (!r.ok) throw new Error(r.error!.message);
        });
      }, [text, `crash-import-${trial}`] as const));
      return { running: Promise.all([run, appends()]) };
    }
    case 'embedder-switch': {
      const status = await engineCall<EmbeddingStatus | null>(page, 'embeddingStatus');
      const target = status?.targetModel === SECOND_EMBEDDER ? BUNDLED_MODEL_ID : SECOND_EMBEDDER;
      state.target = target;
      // As the Models panel does: a catalog embedder is downloaded (here: from the stand-in hub) before use.
      if (target === SECOND_EMBEDDER) await engineCall(page, 'downloadModel', [target], 'models');
      return { running: Promise.all([operation(state, stop, () => engineCall(page, 'setEmbedder', [target])), appends()]) };
    }
    case 'memory-import': {
      const bytes = await snapshot();
      // Acknowledged after the snapshot: present in the old memory, absent from the imported one.
      await appendLoop(page, conversationId, (i) => markerContent(trial, i), state, { now: false }, 3);
      return {
        running: operation(state, stop, () => page.evaluate(async (b64) => {
          const w = window as unknown as { __crashCall(m: string, a: unknown[]): Promise<{ ok: boolean; error?: { message: string } }>; __crashFromBase64(s: string): Uint8Array };
          const r = await w.__crashCall('importDatabase', [w.__crashFromBase64(b64)]);
          if (!r.ok) throw new Error(r.error!.message);
        }, Buffer.from(bytes).toString('base64'))),
      };
    }
  }
}
