/**
 * A window that cannot keep files (Firefox private windows: `navigator.storage.getDirectory()`
 * rejects with SecurityError) is told so — STORAGE_UNAVAILABLE, not the reload-and-export advice —
 * and can open a memory that keeps nothing: it stores and searches like any other, exports, and is
 * never handed to another tab. Every other failed open keeps its own error.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecollectError } from '../../src/core/base/errors';
import {
  NO_OPFS_MESSAGE,
  NO_SYNC_ACCESS_MESSAGE,
  STORAGE_UNAVAILABLE_MESSAGE,
  explainOpenFailure,
  isStorageUnavailable,
} from '../../src/storage/storageUnavailable';
import { EngineHost } from '../../src/host/EngineHost';
import { openMemoryDatabase, nodeSqliteRuntime } from '../../src/storage/openNodeDatabase';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { WaSqliteDatabase } from '../../src/storage/WaSqliteDatabase';
import { MemorySettingsStore } from '../support/MemorySettingsStore';

const insecure = () => new DOMException('The operation is insecure.', 'SecurityError');
const withOpfs = { getDirectory: () => Promise.resolve() };

describe('isStorageUnavailable', () => {
  it('is true for a SecurityError, also as the cause of another error', () => {
    expect(isStorageUnavailable(insecure(), withOpfs)).toBe(true);
    expect(isStorageUnavailable(new Error('open failed', { cause: insecure() }), withOpfs)).toBe(true);
  });

  it('is true when the browser has no getDirectory or no navigator.storage', () => {
    expect(isStorageUnavailable(new TypeError('x is not a function'), {})).toBe(true);
    expect(isStorageUnavailable(new Error('anything'), undefined)).toBe(true);
  });

  it('is false for the failures that have their own handling', () => {
    expect(isStorageUnavailable(new DOMException('held', 'NoModificationAllowedError'), withOpfs)).toBe(false);
    expect(isStorageUnavailable(new DOMException('full', 'QuotaExceededError'), withOpfs)).toBe(false);
    expect(isStorageUnavailable(new RecollectError('DB_LOCKED', 'held'), withOpfs)).toBe(false);
    expect(isStorageUnavailable(new Error('file is not a database'), withOpfs)).toBe(false);
  });

  it('is true where OPFS has no sync access handles for the engine worker (WebKitGTK 2.50)', () => {
    // Its File System API is there but createSyncAccessHandle() rejects: the IPC file-handle
    // transfer it needs exists only in Apple's ports.
    const unsupported = new DOMException('Backend does not support this operation', 'NotSupportedError');
    expect(isStorageUnavailable(unsupported, withOpfs)).toBe(true);
    expect(isStorageUnavailable(new Error('open failed', { cause: unsupported }), withOpfs)).toBe(true);
    // Its "AccessHandle" feature switched off: the method is missing, the VFS calls it anyway.
    const noMethod = new TypeError('createSyncAccessHandle is not a function');
    expect(isStorageUnavailable(noMethod, withOpfs, {})).toBe(true);
    expect(isStorageUnavailable(noMethod, withOpfs, { createSyncAccessHandle: () => undefined })).toBe(false);
    for (const err of [unsupported, noMethod]) {
      const explained = explainOpenFailure(err, withOpfs, {}) as RecollectError;
      expect(explained.code).toBe('STORAGE_UNAVAILABLE');
      expect(explained.message).toBe(NO_SYNC_ACCESS_MESSAGE);
    }
    expect(NO_SYNC_ACCESS_MESSAGE).not.toContain('Private windows');
  });

  it('explainOpenFailure turns only the unavailable case into STORAGE_UNAVAILABLE, with the truth about private windows', () => {
    const explained = explainOpenFailure(insecure(), withOpfs);
    expect(explained).toBeInstanceOf(RecollectError);
    expect((explained as RecollectError).code).toBe('STORAGE_UNAVAILABLE');
    expect(STORAGE_UNAVAILABLE_MESSAGE).toContain('Private windows in Firefox cannot keep a memory; open Recollect in a normal window');
    // Without the API the message does not blame private windows.
    expect((explainOpenFailure(new TypeError('no getDirectory'), {}) as RecollectError).message).toBe(NO_OPFS_MESSAGE);
    expect(NO_OPFS_MESSAGE).not.toContain('Private windows');
    const other = new Error('file is not a database');
    expect(explainOpenFailure(other, withOpfs)).toBe(other);
  });
});

describe('EngineHost in a window without OPFS', () => {
  const realNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  beforeEach(() => {
    // Web Locks granted at once (one tab); Node has no navigator.locks.
    const locks = {
      request: async (_name: string, a: unknown, b?: unknown) => ((typeof a === 'function' ? a : b) as (l: object) => unknown)({}),
    };
    Object.defineProperty(globalThis, 'navigator', { value: { locks, storage: {} }, configurable: true });
  });
  afterEach(() => {
    if (realNavigator) Object.defineProperty(globalThis, 'navigator', realNavigator);
  });

  const host = () => {
    const h = new EngineHost({
      openStore: () => Promise.reject(insecure()),
      explainOpenFailure: (err) => explainOpenFailure(err, withOpfs),
      openTemporaryStore: async () => {
        const { module, sqlite3 } = await nodeSqliteRuntime();
        return new SqliteMemoryStore(await openMemoryDatabase(), { openTemp: () => WaSqliteDatabase.open(module, sqlite3, ':memory:') });
      },
      settings: new MemorySettingsStore(),
    });
    return h;
  };

  it('acquire fails with STORAGE_UNAVAILABLE; openTemporary gives a working memory that is marked temporary and exports', async () => {
    const h = host();
    const failed = await h.acquire({ wait: false });
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'STORAGE_UNAVAILABLE' } });

    expect(await h.openTemporary()).toEqual({ state: 'owner', temporary: true });
    // Asking again (the page after an engine event) still says temporary.
    expect(await h.acquire({ wait: false })).toEqual({ state: 'owner', temporary: true });

    const conversation = await h.engine.conversations.create({ title: 'Private' });
    expect(conversation.ok).toBe(true);
    if (!conversation.ok) return;
    const sent = await h.engine.conversations.send({
      conversationId: conversation.value.id,
      id: 'm1',
      content: 'The spare key is under the blue flowerpot.',
    });
    expect(sent.ok).toBe(true);
    const hits = await h.engine.conversations.search('flowerpot');
    expect(hits.ok && hits.value.map((hit) => hit.message.content)).toEqual(['The spare key is under the blue flowerpot.']);
    const exported = await h.engine.data.exportDatabase();
    expect(exported.ok && new TextDecoder().decode(exported.value.slice(0, 15))).toBe('SQLite format 3');
  });

  it('a temporary memory is never handed over to another tab', async () => {
    const h = host();
    await h.openTemporary();
    const lost: string[] = [];
    await h.subscribe((e) => lost.push(e.type));
    const other = new BroadcastChannel('recollect:ownership');
    other.postMessage({ type: 'takeover' });
    await new Promise((r) => setTimeout(r, 50));
    other.close();
    expect(lost).not.toContain('ownership-lost');
    expect((await h.engine.conversations.list()).ok).toBe(true);
  });
});
