/**
 * Telling "this browser window cannot keep files at all" apart from every other failed open.
 *
 * Firefox private windows refuse the Origin Private File System outright:
 * `navigator.storage.getDirectory()` rejects with a `SecurityError` DOMException ("The operation is
 * insecure"), before any file is touched. Reloading cannot help and there is nothing to export, so
 * the error screen says what is true and offers a session kept in memory only
 * (openTemporaryStore.ts). A browser without the API at all is the same case. Anything else — a
 * file still held by a closing tab, a full quota, a damaged file — keeps its own handling.
 */
import { RecollectError } from '../core/base/errors';

/** A window that refuses OPFS (SecurityError): in practice a Firefox private window. */
export const STORAGE_UNAVAILABLE_MESSAGE = 'Private windows in Firefox cannot keep a memory; open Recollect in a normal window.';
/** A browser without the API at all (WebKitGTK with its Storage API off, an old browser). */
export const NO_OPFS_MESSAGE =
  'This browser does not offer the file storage Recollect keeps its memory in (the Origin Private File System); open Recollect in a current Chrome, Edge, Firefox or Safari.';

/** The part of `navigator.storage` this decision looks at. */
export interface StorageLike {
  readonly getDirectory?: unknown;
}

/**
 * Whether a failed open means this window has no OPFS: a `SecurityError` anywhere in the error's
 * cause chain, or no `getDirectory` on `storage` (no `navigator.storage` counts as none).
 */
export function isStorageUnavailable(err: unknown, storage: StorageLike | undefined): boolean {
  if (typeof storage?.getDirectory !== 'function') return true;
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    if ((e as { name?: unknown }).name === 'SecurityError') return true;
  }
  return false;
}

/** The error a failed open reports: STORAGE_UNAVAILABLE when this window has no OPFS, else `err` itself. */
export function explainOpenFailure(err: unknown, storage: StorageLike | undefined): unknown {
  if (!isStorageUnavailable(err, storage)) return err;
  const message = typeof storage?.getDirectory === 'function' ? STORAGE_UNAVAILABLE_MESSAGE : NO_OPFS_MESSAGE;
  return new RecollectError('STORAGE_UNAVAILABLE', message, undefined, { cause: err });
}
