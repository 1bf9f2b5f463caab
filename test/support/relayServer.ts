/**
 * The Durable Streams relay as the sync tests, the browser test and the sync benchmark use it:
 * stopping it with devices still connected, and reading its files (to prove they hold no plaintext).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DurableStreamTestServer } from '@durable-streams/server';

/**
 * Stops the relay as a crash would, with devices connected: the reference server's stop() waits for
 * open connections, and a device's long-poll keeps one alive, so the sockets are cut.
 */
export async function stopRelay(relay: DurableStreamTestServer): Promise<void> {
  const server = (relay as unknown as { server: { closeAllConnections(): void } | null }).server;
  const stopping = relay.stop();
  server?.closeAllConnections();
  await stopping;
}

/** The bytes of every file under `dir` (the relay's data directory). */
export async function filesUnder(dir: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) out.push(await readFile(join(entry.parentPath, entry.name)));
  return out;
}

/** Stops every device's engine and closes its database, emptying the list (a test's clean-up). */
export async function closeDevices(devices: { engine: { stop(): void }; store: { db: { close(): Promise<unknown> } } }[]): Promise<void> {
  for (const d of devices.splice(0)) {
    d.engine.stop();
    await d.store.db.close();
  }
}
