/**
 * "Show formatted" for a message the page would not parse itself (markdownBudget.ts): the text is
 * parsed in a Markdown worker of its own, which is terminated when it has answered or when the
 * deadline passes, whichever is first. A parse that would take minutes (40,000 `*a`) then costs
 * the page nothing: the message stays plain text and says why.
 */
import * as Comlink from 'comlink';
import { unwrapRemote, type MarkdownTree, type MarkdownWorkerApi, type Unwrapped } from '../../core/protocol';
import { formatCount } from '../../core/base/numbers';

/** How long a parse may take before the message stays plain. */
export const FORMAT_DEADLINE_MS = 10_000;
/** Elements and text nodes the page draws for one message: beyond this, drawing alone would hold the page. */
export const MAX_FORMATTED_NODES = 60_000;

export type FormatOutcome =
  | { readonly ok: true; readonly tree: MarkdownTree }
  | { readonly ok: false; readonly reason: 'deadline' | 'too-large' | 'failed'; readonly message: string };

/** A started worker: its API and how to end it. */
export interface MarkdownWorkerHandle {
  readonly api: Pick<Unwrapped<MarkdownWorkerApi>, 'format'>;
  stop(): void;
}

export function startMarkdownWorker(): MarkdownWorkerHandle {
  const worker = new Worker(new URL('../../../workers/markdown.worker.ts', import.meta.url), {
    type: 'module',
    name: 'recollect-markdown',
  });
  return { api: unwrapRemote<MarkdownWorkerApi>(Comlink.wrap(worker)), stop: () => worker.terminate() };
}

export interface FormatOptions {
  readonly citations: boolean;
  readonly deadlineMs?: number;
  readonly maxNodes?: number;
  /** Starts the worker (tests pass a fake). */
  readonly start?: () => MarkdownWorkerHandle;
}

export async function formatOffThread(text: string, options: FormatOptions): Promise<FormatOutcome> {
  const deadlineMs = options.deadlineMs ?? FORMAT_DEADLINE_MS;
  const maxNodes = options.maxNodes ?? MAX_FORMATTED_NODES;
  let handle: MarkdownWorkerHandle | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const seconds = Math.round(deadlineMs / 100) / 10;
  const deadline = new Promise<FormatOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: 'deadline', message: `it could not be formatted within ${seconds} seconds` }),
      deadlineMs,
    );
  });
  try {
    handle = (options.start ?? startMarkdownWorker)();
    const parsed = handle.api.format(text, { citations: options.citations }).then(
      (tree): FormatOutcome =>
        tree.nodes > maxNodes
          ? {
              ok: false,
              reason: 'too-large',
              message: `formatted, it would be ${formatCount(tree.nodes)} elements, too many to draw at once`,
            }
          : { ok: true, tree },
      (err: unknown): FormatOutcome => ({
        ok: false,
        reason: 'failed',
        message: `it could not be formatted (${err instanceof Error ? err.message : String(err)})`,
      }),
    );
    return await Promise.race([parsed, deadline]);
  } catch (err) {
    return { ok: false, reason: 'failed', message: `it could not be formatted (${err instanceof Error ? err.message : String(err)})` };
  } finally {
    clearTimeout(timer);
    handle?.stop();
  }
}
