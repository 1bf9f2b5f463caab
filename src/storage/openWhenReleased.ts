/**
 * Opening the memory right after another tab let it go. When a tab closes, the browser releases its
 * Web Locks before its OPFS access handles are closed (Firefox ESR 153 often, Chromium now and
 * then): the waiting tab is granted the owner lock at once, and for ~100–200 ms creating a sync
 * access handle on the same files throws `NoModificationAllowedError`. Nothing is wrong with the
 * file, it is simply not free yet, so the open is tried again every RETRY_MS until DEADLINE_MS.
 *
 * "Not free yet" is a `NoModificationAllowedError` anywhere in the error's cause chain (SQL errors
 * keep the VFS's DOMException as their cause; where the VFS swallows it, openOpfsStore asks the file
 * itself). Any other failure is passed on at once.
 *
 * Each try must leave nothing open behind it: the opener closes its half-open connection, and
 * `beforeRetry` closes what the VFS kept of the failed try (openOpfsStore). Clock and sleep are
 * injected so the schedule is tested without waiting.
 */
import { RecollectError } from '../core/base/errors';

export const RETRY_MS = 100;
export const DEADLINE_MS = 5_000;

export const DB_LOCKED_MESSAGE =
  'The memory file is still held by another Recollect tab or window that has not finished closing. Close the other Recollect tabs, then reload this page. Nothing was changed.';

export interface OpenWhenReleasedOptions {
  readonly retryMs?: number;
  readonly deadlineMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Runs after each pause, before the next try: clears what a failed try left in the VFS. */
  readonly beforeRetry?: () => void | Promise<void>;
}

/** Whether `err` says the file is still held by someone else: a NoModificationAllowedError in its causes. */
export function isFileStillHeld(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    if ((e as { name?: unknown }).name === 'NoModificationAllowedError') return true;
  }
  return false;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `open` until it succeeds, retrying while the file is still held by a closing tab. Any other
 * failure is thrown at once; at the deadline, a DB_LOCKED RecollectError (detail: the last error).
 */
export async function openWhenReleased<T>(open: () => Promise<T>, options: OpenWhenReleasedOptions = {}): Promise<T> {
  const retryMs = options.retryMs ?? RETRY_MS;
  const deadlineMs = options.deadlineMs ?? DEADLINE_MS;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? wait;
  const start = now();
  for (;;) {
    try {
      return await open();
    } catch (err) {
      if (!isFileStillHeld(err)) throw err;
      if (now() - start + retryMs > deadlineMs) {
        const detail = err instanceof Error ? err.message : String(err);
        throw new RecollectError('DB_LOCKED', DB_LOCKED_MESSAGE, detail, { cause: err });
      }
      await sleep(retryMs);
      await options.beforeRetry?.();
    }
  }
}
