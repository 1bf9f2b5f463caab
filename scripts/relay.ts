/**
 * Runs a sync relay (docs/sync.md): the Durable Streams reference server, file-backed, on this
 * machine. It stores only sealed events (ciphertext padded to a size class), an owner id per memory
 * (a hash of the recovery phrase), their times and the addresses of the devices that connect.
 *
 *   npm run relay -- [--host 127.0.0.1] [--port 4437] [--data ./relay-data]
 *
 * Listening on another host than 127.0.0.1 (e.g. 0.0.0.0 for devices on your network) is your
 * choice to make: put it behind HTTPS for anything beyond your own network.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DurableStreamTestServer } from '@durable-streams/server';

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '4437' },
    data: { type: 'string', default: 'relay-data' },
  },
  strict: true,
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port needs a port number, not ${values.port}\n`);
  process.exit(2);
}
const dataDir = resolve(values.data);
await mkdir(dataDir, { recursive: true });
const relay = new DurableStreamTestServer({ host: values.host, port, dataDir });
await relay.start();
process.stdout.write(
  `Recollect sync relay on ${relay.url} (data in ${dataDir}). Enter that address in Settings → Sync. Ctrl+C stops it.\n`,
);
const stop = () => void relay.stop().finally(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
