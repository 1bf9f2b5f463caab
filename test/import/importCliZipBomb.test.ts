/**
 * `npm run import` on a zip bomb (it once gave a misleading reason at a 3.5 GB peak):
 * a ≈1 MB zip whose one member inflates to more than 1 GB is refused with a reason that says what
 * it is, and the CLI process's peak memory stays far below what inflating it would take.
 *
 * The member's deflate stream is written by hand (a dynamic-Huffman block whose 258-byte
 * back-reference costs 2 bits, the format's best ratio, ≈1,032:1): fflate compresses a gigabyte
 * to the same size but needs a minute or two of CPU to do it. fflate wraps the stream in the zip.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { Unzip, UnzipInflate, Zip, type ZipInputFile } from 'fflate';

/** Writes bits least-significant first, as deflate packs them. */
class BitWriter {
  readonly #bytes: number[] = [];
  #acc = 0;
  #n = 0;
  bits(value: number, count: number): void {
    for (let i = 0; i < count; i++) this.#bit((value >> i) & 1);
  }
  /** A Huffman code: its bits go most-significant first. */
  code(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) this.#bit((value >> i) & 1);
  }
  #bit(b: number): void {
    this.#acc |= b << this.#n;
    if (++this.#n === 8) {
      this.#bytes.push(this.#acc);
      this.#acc = 0;
      this.#n = 0;
    }
  }
  done(): Uint8Array {
    if (this.#n > 0) this.#bytes.push(this.#acc);
    return Uint8Array.from(this.#bytes);
  }
}

/** What the member starts with: a conversation whose title never ends (a reader that buffered an entry would hold it all). */
const PREFIX = '[{"title": "';

/**
 * A raw deflate stream of PREFIX and then `1 + 258 × matches` letters "a": a fixed-Huffman block
 * of PREFIX's literals, then one dynamic block whose literal/length codes are 285 (length 258) = 0,
 * 97 ("a") = 10, 256 (end) = 11, with one distance code (1).
 */
function bombStream(matches: number): Uint8Array {
  const w = new BitWriter();
  w.bits(0, 1); // not the last block
  w.bits(1, 2); // fixed Huffman codes
  for (const byte of Buffer.from(PREFIX)) w.code(0x30 + byte, 8); // literals 0..143: 8 bits from 0x30
  w.code(0, 7); // end of block
  w.bits(1, 1); // last block
  w.bits(2, 2); // dynamic Huffman codes
  w.bits(286 - 257, 5); // HLIT: literal/length codes 0..285
  w.bits(0, 5); // HDIST: one distance code
  // Code-length code lengths in the format's order 16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1:
  // symbol 18 (a run of zeros) = 0, 1 = 10, 2 = 11.
  const clLengths = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2];
  w.bits(clLengths.length - 4, 4);
  for (const l of clLengths) w.bits(l, 3);
  const zeros = (n: number) => {
    w.code(0, 1);
    w.bits(n - 11, 7);
  };
  const length = (l: 1 | 2) => w.code(l === 1 ? 0b10 : 0b11, 2);
  zeros(97);
  length(2); // 0..96 unused, 97 ("a"): 2 bits
  zeros(138);
  zeros(20);
  length(2); // 98..255 unused, 256 (end): 2 bits
  zeros(28);
  length(1); // 257..284 unused, 285 (length 258): 1 bit
  length(1); // distance code 0 (distance 1): 1 bit
  w.code(0b10, 2); // "a"
  for (let i = 0; i < matches; i++) w.code(0, 2); // length 258, distance 1
  w.code(0b11, 2); // end of block
  return w.done();
}

/** The CRC-32 of PREFIX and `size - PREFIX.length` letters "a", without holding them. */
function bombCrc(size: number): number {
  const letters = new Uint8Array(16 * 1024 * 1024).fill(0x61);
  let crc = crc32(Buffer.from(PREFIX));
  for (let left = size - PREFIX.length; left > 0; left -= letters.byteLength)
    crc = crc32(letters.subarray(0, Math.min(left, letters.byteLength)), crc);
  return crc;
}

/** A zip holding conversations.json whose content is the bomb stream (fflate writes the container). */
function bombZip(matches: number): { zip: Uint8Array; inflatedSize: number } {
  const inflatedSize = PREFIX.length + 1 + 258 * matches;
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    parts.push(data);
  });
  const member: ZipInputFile = { filename: 'conversations.json', size: inflatedSize, crc: bombCrc(inflatedSize), compression: 8 };
  zip.add(member);
  member.ondata!(null, bombStream(matches), true);
  zip.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return { zip: out, inflatedSize };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('npm run import on a zip bomb', () => {
  it("the hand-written stream is the bomb it claims (checked small by zlib and by fflate's streaming unzip)", () => {
    expect(Buffer.from(inflateRawSync(bombStream(4))).toString()).toBe(PREFIX + 'a'.repeat(1 + 4 * 258));
    const { zip, inflatedSize } = bombZip(1_000);
    let inflated = '';
    const unzip = new Unzip((file) => {
      file.ondata = (err, data) => {
        if (err) throw err;
        inflated += Buffer.from(data).toString();
      };
      file.start();
    });
    unzip.register(UnzipInflate);
    unzip.push(zip, true);
    expect(inflated).toBe(PREFIX + 'a'.repeat(inflatedSize - PREFIX.length));
  });

  it('refuses a 1 MB zip that inflates to 1.1 GB, says it looks like a zip bomb, and peaks far below what inflating would take', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recollect-zip-bomb-'));
    dirs.push(dir);
    const { zip, inflatedSize } = bombZip(4_400_000);
    expect(inflatedSize).toBeGreaterThan(1_100_000_000);
    expect(zip.byteLength).toBeLessThan(1_200_000);
    const input = join(dir, 'chatgpt-export.zip');
    const out = join(dir, 'recollect.sqlite');
    await writeFile(input, zip);
    // The child reports its own peak resident set size (kB) as it exits.
    const peak = join(dir, 'peak.mjs');
    await writeFile(peak, "process.on('exit', () => process.stderr.write(`\\npeak-rss-kb=${process.resourceUsage().maxRSS}\\n`));\n");
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', '--import', peak, 'scripts/import-history.ts', input, '--out', out],
        { timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(code, stdout + stderr).toBe(1);
    expect(stderr).toMatch(/looks like a zip bomb, so it was not imported/);
    expect(existsSync(out)).toBe(false);
    const peakKb = Number(/peak-rss-kb=(\d+)/.exec(stderr)?.[1]);
    // The child's own report was read (Node with tsx and SQLite cannot run in under 30 MB).
    expect(peakKb / 1024).toBeGreaterThan(30);
    // Refused at 64 MB inflated, the CLI peaked at ≈335 MB here (Node, tsx, SQLite); with the bomb
    // check taken out it buffered the never-ending title to 2.4 GB and failed with "Invalid string length".
    expect(peakKb / 1024).toBeLessThan(600);
  }, 180_000);
});
