/**
 * Telling "this browser window cannot keep files at all" apart from every other failed open.
 *
 * Firefox private windows refuse the Origin Private File System outright:
 * `navigator.storage.getDirectory()` rejects with a `SecurityError` DOMException ("The operation is
 * insecure"), before any file is touched. Reloading cannot help and there is nothing to export, so
 * the error screen says what is true and offers a session kept in memory only
 * (openTemporaryStore.ts). A browser without the API at all is the same case, and so is one whose
 * OPFS cannot give the engine worker a synchronous access handle, which SQLite's VFS needs:
 * WebKitGTK 2.50 has `createSyncAccessHandle` behind its "AccessHandle" feature and, with it on,
 * rejects every call with a `NotSupportedError` ("Backend does not support this operation": the
 * file-handle transfer between its processes exists only in Apple's ports). Anything else — a file
 * still held by a closing tab, a full quota, a damaged file — keeps its own handling.
 */
import { RecollectError } from '../core/base/errors';

/** A window that refuses OPFS (SecurityError): in practice a Firefox private window. */
export const STORAGE_UNAVAILABLE_MESSAGE = 'Private windows in Firefox cannot keep a memory; open Recollect in a normal window.';
/** A browser without the API at all (WebKitGTK with its Storage API off, an old browser). */
export const NO_OPFS_MESSAGE =
  'This browser does not offer the file storage Recollect keeps its memory in (the Origin Private File System); open Recollect in a current Chrome, Edge, Firefox or Safari.';

/** OPFS is there, but no synchronous access handles for the engine worker (WebKitGTK). */
export const NO_SYNC_ACCESS_MESSAGE =
  'This browser keeps files for web pages but cannot give Recollect the direct file access its memory needs; open Recollect in a current Chrome, Edge, Firefox or Safari.';

/** The part of `navigator.storage` this decision looks at. */
export interface StorageLike {
  readonly getDirectory?: unknown;
}

/** The part of `FileSystemFileHandle.prototype` this decision looks at (left out: not known). */
export interface FileHandleLike {
  readonly createSyncAccessHandle?: unknown;
}

function causes(err: unknown): unknown[] {
  const seen: unknown[] = [];
  for (let e = err; e && typeof e === 'object' && !seen.includes(e); e = (e as { cause?: unknown }).cause) seen.push(e);
  return seen;
}

const named = (err: unknown, name: string) => causes(err).some((e) => (e as { name?: unknown }).name === name);

/** OPFS without sync access handles: the method missing from `fileHandle`, or a NotSupportedError. */
function lacksSyncAccess(err: unknown, fileHandle: FileHandleLike | undefined): boolean {
  if (fileHandle && typeof fileHandle.createSyncAccessHandle !== 'function') return true;
  return named(err, 'NotSupportedError');
}

/**
 * Whether a failed open means this window has no usable OPFS: a `SecurityError` anywhere in the
 * error's cause chain, no `getDirectory` on `storage` (no `navigator.storage` counts as none), or
 * no sync access handles (see lacksSyncAccess; `fileHandle` is `FileSystemFileHandle.prototype`).
 */
export function isStorageUnavailable(err: unknown, storage: StorageLike | undefined, fileHandle?: FileHandleLike): boolean {
  if (typeof storage?.getDirectory !== 'function') return true;
  return named(err, 'SecurityError') || lacksSyncAccess(err, fileHandle);
}

/** The error a failed open reports: STORAGE_UNAVAILABLE when this window has no usable OPFS, else `err` itself. */
export function explainOpenFailure(err: unknown, storage: StorageLike | undefined, fileHandle?: FileHandleLike): unknown {
  if (!isStorageUnavailable(err, storage, fileHandle)) return err;
  const message =
    typeof storage?.getDirectory !== 'function'
      ? NO_OPFS_MESSAGE
      : named(err, 'SecurityError')
        ? STORAGE_UNAVAILABLE_MESSAGE
        : NO_SYNC_ACCESS_MESSAGE;
  return new RecollectError('STORAGE_UNAVAILABLE', message, undefined, { cause: err });
}
