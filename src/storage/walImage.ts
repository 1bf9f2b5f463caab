/**
 * Reads a database from its main file and its write-ahead log without SQLite writing anything:
 * the committed frames of the log are laid over the main file's pages, giving the image a
 * checkpoint would produce. Used when the storage is too full for SQLite to open the file
 * normally (it needs room for its temporary files and the log), so the memory can still be opened
 * read-only from a copy in memory.
 *
 * WAL format (sqlite.org/fileformat2.html#walformat): a 32-byte header (magic, version, page size,
 * checkpoint sequence, two salts, a checksum), then frames of a 24-byte header (page number, the
 * database size in pages for a commit frame else 0, the salts, a cumulative checksum) and a page.
 * A frame counts only if its salts match the header's and the running checksum matches; only
 * frames up to the last valid commit frame are applied (a transaction cut short is left out).
 */
const HEADER = 32;
const FRAME_HEADER = 24;

function checksum(view: DataView, offset: number, length: number, bigEndian: boolean, s: [number, number]): [number, number] {
  let [s0, s1] = s;
  for (let i = offset; i < offset + length; i += 8) {
    s0 = (s0 + view.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/** The database image with the log's committed transactions applied, in rollback-journal mode. */
export function applyWal(main: Uint8Array, wal: Uint8Array | null): Uint8Array {
  let image = main;
  if (wal && wal.byteLength >= HEADER) {
    const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
    const magic = view.getUint32(0);
    const pageSize = view.getUint32(8);
    const valid =
      (magic === 0x377f0682 || magic === 0x377f0683) && pageSize >= 512 && pageSize <= 65536 && (pageSize & (pageSize - 1)) === 0;
    const bigEndian = magic === 0x377f0683;
    let sum = valid ? checksum(view, 0, 24, bigEndian, [0, 0]) : ([0, 0] as [number, number]);
    if (valid && sum[0] === view.getUint32(24) && sum[1] === view.getUint32(28)) {
      const salt1 = view.getUint32(16);
      const salt2 = view.getUint32(20);
      const pending = new Map<number, number>();
      const committed = new Map<number, number>();
      let pages = Math.floor(main.byteLength / pageSize);
      for (let at = HEADER; at + FRAME_HEADER + pageSize <= wal.byteLength; at += FRAME_HEADER + pageSize) {
        if (view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) break;
        sum = checksum(view, at, 8, bigEndian, sum);
        sum = checksum(view, at + FRAME_HEADER, pageSize, bigEndian, sum);
        if (sum[0] !== view.getUint32(at + 16) || sum[1] !== view.getUint32(at + 20)) break;
        pending.set(view.getUint32(at), at + FRAME_HEADER);
        const commitSize = view.getUint32(at + 4);
        if (commitSize > 0) {
          for (const [page, offset] of pending) committed.set(page, offset);
          pending.clear();
          pages = commitSize;
        }
      }
      if (committed.size > 0) {
        image = new Uint8Array(pages * pageSize);
        image.set(main.subarray(0, Math.min(main.byteLength, image.byteLength)));
        for (const [page, offset] of committed)
          if (page <= pages) image.set(wal.subarray(offset, offset + pageSize), (page - 1) * pageSize);
      }
    }
  }
  if (image === main) image = main.slice();
  // Bytes 18–19: file format versions; 1 = rollback journal, so the copy opens without a log.
  if (image.byteLength >= 100) {
    image[18] = 1;
    image[19] = 1;
  }
  return image;
}
