// Type shim: @journeyapps/wa-sqlite ships no declaration for this example VFS.
declare module '@journeyapps/wa-sqlite/src/examples/OPFSCoopSyncVFS.js' {
  export const OPFSCoopSyncVFS: { create(name: string, module: unknown): Promise<SQLiteVFS> };
}
