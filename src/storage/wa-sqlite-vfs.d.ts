// Type shim: @journeyapps/wa-sqlite ships no declaration for this example VFS.
declare module '@journeyapps/wa-sqlite/src/examples/OPFSCoopSyncVFS.js' {
  export const OPFSCoopSyncVFS: { create(name: string, module: unknown): Promise<SQLiteVFS> };
}

// Type shim for the base class of wa-sqlite's VFS implementations (used by the Node file VFS).
declare module '@journeyapps/wa-sqlite/src/FacadeVFS.js' {
  export class FacadeVFS {
    constructor(name: string, module: unknown);
    mxPathname: number;
    isReady(): Promise<boolean>;
    jOpen(filename: string | null, fileId: number, flags: number, pOutFlags: DataView): number;
    jClose(fileId: number): number;
    jRead(fileId: number, pData: Uint8Array, iOffset: number): number;
    jWrite(fileId: number, pData: Uint8Array, iOffset: number): number;
    jTruncate(fileId: number, iSize: number): number;
    jSync(fileId: number, flags: number): number;
    jFileSize(fileId: number, pSize64: DataView): number;
    jDelete(name: string, syncDir: number): number;
    jAccess(name: string, flags: number, pResOut: DataView): number;
  }
}
declare module '@journeyapps/wa-sqlite/src/VFS.js' {
  export const SQLITE_OK: number;
  export const SQLITE_CANTOPEN: number;
  export const SQLITE_IOERR_SHORT_READ: number;
  export const SQLITE_OPEN_CREATE: number;
  export const SQLITE_OPEN_DELETEONCLOSE: number;
}
