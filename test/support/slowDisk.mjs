/**
 * A preload (`node --import ./test/support/slowDisk.mjs …`) that makes large file writes slow: the
 * bytes go out in 64 KB pieces with a pause between them, and the first piece is announced on
 * stderr ("SLOW-DISK: writing <path>"). A test can then kill the process at a known moment in the
 * middle of a write, as a user pressing Ctrl+C or a crash would, without changing the code under test.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const fsp = require('node:fs/promises');
const PIECE = 64 * 1024;
const PAUSE_MS = 15;
const LARGE = 256 * 1024;

async function slowWrite(handle, data, path) {
  for (let i = 0; i < data.byteLength; i += PIECE) {
    await handle.write(data.subarray(i, i + PIECE));
    if (i === 0) process.stderr.write(`\nSLOW-DISK: writing ${path}\n`);
    await new Promise((r) => setTimeout(r, PAUSE_MS));
  }
}

const isLarge = (data) => data instanceof Uint8Array && data.byteLength >= LARGE;

const writeFile = fsp.writeFile;
fsp.writeFile = async (path, data, options) => {
  if (!isLarge(data) || typeof path !== 'string') return writeFile(path, data, options);
  const handle = await fsp.open(path, 'w');
  try {
    await slowWrite(handle, data, path);
  } finally {
    await handle.close();
  }
};

const probe = await fsp.open(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(probe);
await probe.close();
const handleWriteFile = FileHandle.writeFile;
FileHandle.writeFile = function (data, options) {
  return isLarge(data) ? slowWrite(this, data, `fd ${this.fd}`) : handleWriteFile.call(this, data, options);
};

syncBuiltinESMExports();
