/**
 * Streams a file's bytes in chunks (with a running byte count and cancel), and the members of a
 * zip archive as they inflate (fflate's streaming Unzip), so neither an export .zip nor its
 * conversations.json is ever held whole in memory.
 */
import { Unzip, UnzipInflate } from 'fflate';
import type { HistoryFile } from '../core/base/historyImport';
import { RecollectError } from '../core/base/errors';

export interface ChunkOptions {
  readonly onBytes?: (bytesRead: number) => void;
  readonly cancelled?: () => boolean;
}

/** The file's bytes, chunk by chunk; stops (and releases the file) when `cancelled()` turns true. */
export async function* fileChunks(file: HistoryFile, options: ChunkOptions = {}): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  let bytes = 0;
  let finished = false;
  try {
    for (;;) {
      if (options.cancelled?.()) return;
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      if (!value || value.length === 0) continue;
      bytes += value.length;
      options.onBytes?.(bytes);
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

export function isZip(first: Uint8Array): boolean {
  return first.length >= 4 && first[0] === 0x50 && first[1] === 0x4b && first[2] === 0x03 && first[3] === 0x04;
}

/**
 * Bytes handed to fflate per push. Each push costs a fixed overhead (the stream state is rebuilt
 * and a piece of output emitted), so 4 KB pushes took 2.4× the time of 16 KB ones to inflate a
 * 28 MB export; 16 KB still bounds the recursion below (a member header is ≥ 30 bytes: ≤ 550 deep).
 */
const PUSH_SLICE = 16 * 1024;
/** Chat exports (JSON text) inflate about 5–20×; past this ratio and this size, it is a bomb. */
const BOMB_RATIO = 200;
const BOMB_FLOOR = 64 * 1024 * 1024;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;

/** One piece of a zip member's content; `name` changes when the next member starts. */
export interface EntryChunk {
  readonly name: string;
  readonly data: Uint8Array;
  readonly final: boolean;
}

/**
 * The inflated content of the members whose name `pick` accepts, in archive order. Throws
 * INVALID_INPUT for damaged data or when no member matched; an archive that merely ends early
 * yields what it held.
 */
export async function* zipEntries(
  chunks: AsyncIterable<Uint8Array>,
  pick: (name: string) => boolean,
  missing: string,
): AsyncGenerator<EntryChunk> {
  const queue: EntryChunk[] = [];
  let failure: unknown = null;
  let matched = 0;
  let compressed = 0;
  let inflated = 0;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (file) => {
    if (!pick(file.name)) return;
    matched++;
    file.ondata = (err, data, final) => {
      if (err) failure ??= err;
      else {
        inflated += data.byteLength;
        queue.push({ name: file.name, data, final });
      }
    };
    file.start();
  };
  const push = (data: Uint8Array, final: boolean) => {
    try {
      unzip.push(data, final);
    } catch (err) {
      failure ??= err;
    }
    if (failure) throw new RecollectError('INVALID_INPUT', 'This zip archive is damaged or incomplete.', String(failure));
  };
  for await (const chunk of chunks) {
    // fflate's Unzip.push recurses once per member found in the data it holds, so a chunk with
    // thousands of small members (attachments, images) overflowed the stack; small slices keep
    // the depth and the bytes inflated per push (≤ 1,032× a slice) bounded.
    for (let at = 0; at < chunk.byteLength; at += PUSH_SLICE) {
      const slice = chunk.subarray(at, at + PUSH_SLICE);
      compressed += slice.byteLength;
      push(slice, false);
      if (inflated > BOMB_FLOOR && inflated > compressed * BOMB_RATIO) {
        throw new RecollectError(
          'INVALID_INPUT',
          `This zip expands to more than ${BOMB_RATIO} times its size (${mb(inflated)} from ${mb(compressed)} read so far), which chat exports never do: it looks like a zip bomb, so it was not imported.`,
        );
      }
      while (queue.length) yield queue.shift()!;
    }
  }
  // A download cut short fails only here, at the end: keep what inflated before the cut (the
  // member then has no final piece, and the JSON reader counts the entry it cut off).
  try {
    unzip.push(new Uint8Array(0), true);
  } catch (err) {
    if (matched === 0) throw new RecollectError('INVALID_INPUT', 'This zip archive is damaged or incomplete.', String(err));
  }
  while (queue.length) yield queue.shift()!;
  if (matched === 0) throw new RecollectError('INVALID_INPUT', missing);
}
