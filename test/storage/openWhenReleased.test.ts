/**
 * Taking the memory over from a tab that has just closed: its files may still be held for a moment
 * after its lock is released, and the open fails with NoModificationAllowedError. The open is tried
 * again every 100 ms for up to 5 s, each failed try closing the connection it half opened, and gives
 * up with a DB_LOCKED error a person can act on. Clock and sleep are fakes (no test waits 5 s); the
 * last case runs the real wa-sqlite connection setup with a VFS failure injected into its first
 * statement, as OPFSCoopSyncVFS fails when it cannot take the access handles.
 */
import { describe, expect, it } from 'vitest';
import * as SQLite from '@journeyapps/wa-sqlite';
import { DB_LOCKED_MESSAGE, DEADLINE_MS, RETRY_MS, isFileStillHeld, openWhenReleased } from '../../src/storage/openWhenReleased';
import { RecollectError, errorCode } from '../../src/core/base/errors';
import { WaSqliteDatabase } from '../../src/storage/WaSqliteDatabase';
import { nodeSqliteRuntime } from '../../src/storage/openNodeDatabase';

const stillHeld = () => new DOMException('No modification allowed', 'NoModificationAllowedError');

/** A clock that only moves when the code under test sleeps. */
function fakeTime() {
  let t = 0;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    sleeps,
    elapsed: () => t,
  };
}

/** An opener that fails `failures` times with `error()`, then opens. */
function flakyOpener(failures: number, error: () => unknown = stillHeld) {
  let calls = 0;
  return {
    open: async () => {
      calls++;
      if (calls <= failures) throw error();
      return 'opened';
    },
    calls: () => calls,
  };
}

describe('openWhenReleased', () => {
  it('tries again every 100 ms while the file is still held, then opens', async () => {
    const time = fakeTime();
    const opener = flakyOpener(3);
    await expect(openWhenReleased(opener.open, time)).resolves.toBe('opened');
    expect(opener.calls()).toBe(4);
    expect(time.sleeps).toEqual([RETRY_MS, RETRY_MS, RETRY_MS]);
  });

  it('gives up at the deadline with a DB_LOCKED error that says what to do', async () => {
    const time = fakeTime();
    const opener = flakyOpener(Infinity);
    const err = await openWhenReleased(opener.open, time).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecollectError);
    expect(errorCode(err)).toBe('DB_LOCKED');
    expect((err as RecollectError).message).toBe(DB_LOCKED_MESSAGE);
    expect((err as RecollectError).detail).toBe('No modification allowed');
    expect(time.elapsed()).toBeLessThanOrEqual(DEADLINE_MS);
    expect(time.elapsed()).toBeGreaterThan(DEADLINE_MS - 2 * RETRY_MS);
    expect(opener.calls()).toBe(DEADLINE_MS / RETRY_MS + 1);
  });

  it('throws any other failure at once', async () => {
    const time = fakeTime();
    const opener = flakyOpener(Infinity, () => new DOMException('The request is not allowed', 'SecurityError'));
    await expect(openWhenReleased(opener.open, time)).rejects.toThrow('The request is not allowed');
    expect(opener.calls()).toBe(1);
    expect(time.sleeps).toEqual([]);
  });

  it('sees the VFS error through the SQL error that wraps it', async () => {
    const time = fakeTime();
    const wrapped = () =>
      new RecollectError('SQL_ERROR', 'Database error: No modification allowed', 'PRAGMA foreign_keys = ON', { cause: stillHeld() });
    expect(isFileStillHeld(wrapped())).toBe(true);
    const opener = flakyOpener(2, wrapped);
    await expect(openWhenReleased(opener.open, time)).resolves.toBe('opened');
    expect(opener.calls()).toBe(3);
  });

  it("does not take SQLite's own errors for a held file (the browser asks the file itself, openOpfsStore)", async () => {
    const cantOpen = new SQLite.SQLiteError('unable to open database file', SQLite.SQLITE_CANTOPEN);
    expect(isFileStillHeld(cantOpen)).toBe(false);
    const opener = flakyOpener(Infinity, () => cantOpen);
    await expect(openWhenReleased(opener.open, fakeTime())).rejects.toBe(cantOpen);
    expect(opener.calls()).toBe(1);
  });

  it('closes the half-open connection of every failed try (real wa-sqlite, VFS failure injected into the first statement)', async () => {
    const { module, sqlite3 } = await nodeSqliteRuntime();
    const opened: number[] = [];
    const closed: number[] = [];
    let failuresLeft = 2;
    // The first statement of a connection is where OPFSCoopSyncVFS takes the files' access handles.
    const flaky = new Proxy(sqlite3, {
      get(target, prop, receiver) {
        if (prop === 'open_v2') {
          return async (...args: Parameters<SQLiteAPI['open_v2']>) => {
            const db = await target.open_v2(...args);
            opened.push(db);
            return db;
          };
        }
        if (prop === 'close') {
          return async (db: number) => {
            closed.push(db);
            return target.close(db);
          };
        }
        if (prop === 'statements') {
          return (...args: Parameters<SQLiteAPI['statements']>) => {
            if (failuresLeft > 0) {
              failuresLeft--;
              throw stillHeld();
            }
            return target.statements(...args);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const time = fakeTime();
    const db = await openWhenReleased(() => WaSqliteDatabase.open(module, flaky, ':memory:'), time);
    expect(opened).toHaveLength(3);
    expect(closed).toEqual(opened.slice(0, 2)); // both failed tries closed, the open one not
    expect(time.sleeps).toEqual([RETRY_MS, RETRY_MS]);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await db.close();
    expect(closed).toEqual(opened);
  });
});
