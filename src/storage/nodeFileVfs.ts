/**
 * A wa-sqlite VFS over Node's synchronous file API, so the command-line import writes its
 * database to disk as it goes: SQLite keeps only its page cache in memory, and the process's
 * memory does not grow with the archive (an in-memory database of a 17,000-turn archive held
 * ≈470 MB). Node only; the browser uses OPFS.
 *
 * No locking: one process writes the file (the CLI), which it opens in exclusive locking mode.
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, fsyncSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { FacadeVFS } from '@journeyapps/wa-sqlite/src/FacadeVFS.js';
import * as VFS from '@journeyapps/wa-sqlite/src/VFS.js';

export class NodeFileVfs extends FacadeVFS {
  readonly #files = new Map<number, { fd: number; path: string; deleteOnClose: boolean }>();
  // wa-sqlite's default (64 bytes) is shorter than many real paths; SQLite reads this when registering.
  override mxPathname = 1024;

  static async create(name: string, module: unknown): Promise<NodeFileVfs> {
    const vfs = new NodeFileVfs(name, module);
    await vfs.isReady();
    return vfs;
  }

  override jOpen(filename: string | null, fileId: number, flags: number, pOutFlags: DataView): number {
    const path = filename ?? `${process.env.TMPDIR ?? '/tmp'}/recollect-${process.pid}-${fileId}-${Date.now()}.tmp`;
    try {
      const exists = existsSync(path);
      if (!exists && !(flags & VFS.SQLITE_OPEN_CREATE)) return VFS.SQLITE_CANTOPEN;
      const fd = openSync(path, exists ? 'r+' : 'w+');
      this.#files.set(fileId, { fd, path, deleteOnClose: !filename || (flags & VFS.SQLITE_OPEN_DELETEONCLOSE) !== 0 });
      pOutFlags.setInt32(0, flags, true);
      return VFS.SQLITE_OK;
    } catch {
      // SQLite wants a result code from the VFS, never an exception
      return VFS.SQLITE_CANTOPEN;
    }
  }

  override jClose(fileId: number): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_OK;
    this.#files.delete(fileId);
    closeSync(file.fd);
    if (file.deleteOnClose && existsSync(file.path)) unlinkSync(file.path);
    return VFS.SQLITE_OK;
  }

  override jRead(fileId: number, pData: Uint8Array, iOffset: number): number {
    const file = this.#files.get(fileId)!;
    // wa-sqlite hands a proxy of its heap, which Node's fs does not take: read into a buffer of our own.
    const buffer = Buffer.allocUnsafe(pData.byteLength);
    let read = 0;
    while (read < buffer.byteLength) {
      const n = readSync(file.fd, buffer, read, buffer.byteLength - read, iOffset + read);
      if (n === 0) break;
      read += n;
    }
    pData.set(buffer.subarray(0, read));
    if (read < pData.byteLength) {
      pData.fill(0, read);
      return VFS.SQLITE_IOERR_SHORT_READ;
    }
    return VFS.SQLITE_OK;
  }

  override jWrite(fileId: number, pData: Uint8Array, iOffset: number): number {
    const file = this.#files.get(fileId)!;
    const bytes = Uint8Array.from(pData.subarray());
    let written = 0;
    while (written < bytes.byteLength) written += writeSync(file.fd, bytes, written, bytes.byteLength - written, iOffset + written);
    return VFS.SQLITE_OK;
  }

  override jTruncate(fileId: number, iSize: number): number {
    ftruncateSync(this.#files.get(fileId)!.fd, iSize);
    return VFS.SQLITE_OK;
  }

  override jSync(fileId: number): number {
    fsyncSync(this.#files.get(fileId)!.fd);
    return VFS.SQLITE_OK;
  }

  override jFileSize(fileId: number, pSize64: DataView): number {
    pSize64.setBigInt64(0, BigInt(fstatSync(this.#files.get(fileId)!.fd).size), true);
    return VFS.SQLITE_OK;
  }

  override jDelete(name: string): number {
    if (existsSync(name)) unlinkSync(name);
    return VFS.SQLITE_OK;
  }

  override jAccess(name: string, _flags: number, pResOut: DataView): number {
    pResOut.setInt32(0, existsSync(name) ? 1 : 0, true);
    return VFS.SQLITE_OK;
  }
}
