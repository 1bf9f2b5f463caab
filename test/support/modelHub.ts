/**
 * A local stand-in for the Hugging Face Hub (tests only): serves the random-weight models built by
 * scripts/build-test-models.mjs in hub layout (`/<repo>/resolve/main/<file>`) on 127.0.0.1, port 0,
 * with CORS for the app's origin. Failures can be injected per file: a 404, a response cut off
 * half-way, corrupt bytes, or a file shaped like a model whose graph onnxruntime cannot parse.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';

export type HubFault = '404' | 'cut' | 'corrupt' | 'graph';

/**
 * `size` bytes that pass the download's ONNX shape check (src/models/onnxCheck.ts: top-level
 * fields well formed, a graph present) but whose graph is zeros, which no protobuf parser accepts:
 * the failure only onnxruntime finds.
 */
export function unparsableGraph(size: number): Buffer {
  const body = Math.max(16, size - 16);
  const length: number[] = [];
  for (let n = body; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      length.push(n);
      break;
    }
    length.push((n % 128) | 0x80);
  }
  // ir_version = 8 (field 1, varint), then graph (field 7, length-delimited) of `body` zero bytes.
  return Buffer.concat([Buffer.from([0x08, 0x08, 0x3a, ...length]), Buffer.alloc(body, 0)]);
}

export interface ModelHub {
  /** Base URL ending in '/', for env.remoteHost / the app's model-hub setting. */
  readonly url: string;
  /** Paths requested so far, e.g. 'Xenova/all-MiniLM-L6-v2/resolve/main/config.json'. */
  readonly requests: string[];
  /** Makes a file fail (key: '<repo>/<file>'), or heal with null. */
  fault(repoFile: string, fault: HubFault | null): void;
  /** Milliseconds to wait before answering a file ending in `.onnx` (to watch progress). */
  slowOnnxMs: number;
  /**
   * Holds every `.onnx` response from now on until the returned function is called: a download
   * stays in progress for as long as a test needs to look at it, with no time to guess.
   */
  holdOnnx(): () => void;
  close(): Promise<void>;
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_HUB_DIR = join(repoRoot, '.cache/test-hub');

/** Builds the test models if needed (idempotent, ≈1 s the first time). */
export async function buildTestHub(): Promise<string> {
  const script = join(repoRoot, 'scripts/build-test-models.mjs');
  const mod = (await import(/* @vite-ignore */ script)) as { buildTestHub(dir?: string): Promise<string> };
  return mod.buildTestHub(TEST_HUB_DIR);
}

/** The random-weight in-page language models (scripts/build-test-llm.mjs), hub or local layout. */
export async function buildTestLlms(
  layout: 'hub' | 'local' = 'hub',
  dir: string = layout === 'hub' ? TEST_HUB_DIR : TEST_LLM_LOCAL_DIR,
): Promise<string> {
  const script = join(repoRoot, 'scripts/build-test-llm.mjs');
  const mod = (await import(/* @vite-ignore */ script)) as { buildTestLlms(dir: string, options: { layout: string }): Promise<string> };
  return mod.buildTestLlms(dir, { layout });
}

/** Where the local-layout copies go (transformers.js' localModelPath in Node tests). */
export const TEST_LLM_LOCAL_DIR = join(repoRoot, '.cache/test-llm');

export async function startModelHub(dir: string = TEST_HUB_DIR): Promise<ModelHub> {
  const faults = new Map<string, HubFault>();
  const requests: string[] = [];
  const hub = { slowOnnxMs: 0 } as { slowOnnxMs: number };
  let held: (() => void)[] | null = null;
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    requests.push(path);
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-expose-headers', 'content-length, etag');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const file = join(dir, path);
    const fault = faults.get(path.replace('/resolve/main/', '/'));
    if (fault === '404' || path.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
    }
    const size = statSync(file).size;
    const send = () => {
      // A held response whose client went away (a cancel, a reload) has nobody to answer.
      if (res.destroyed || req.socket.destroyed) return;
      if (fault === 'graph') {
        const bytes = unparsableGraph(size);
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
        return void res.end(bytes);
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
      if (fault === 'corrupt') return void res.end(Buffer.alloc(size, 0x5a));
      if (fault === 'cut') {
        // Half the bytes, then the connection drops: a download interrupted mid-file.
        const stream = createReadStream(file, { start: 0, end: Math.floor(size / 2) });
        stream.on('data', (chunk) => res.write(chunk));
        stream.on('end', () => res.destroy());
        return;
      }
      createReadStream(file).pipe(res);
    };
    if (path.endsWith('.onnx') && held) held.push(send);
    else if (path.endsWith('.onnx') && hub.slowOnnxMs > 0) setTimeout(send, hub.slowOnnxMs);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(hub, {
    url: `http://127.0.0.1:${port}/`,
    requests,
    holdOnnx() {
      const waiting: (() => void)[] = [];
      held = waiting;
      return () => {
        if (held === waiting) held = null;
        for (const send of waiting.splice(0)) send();
      };
    },
    fault(repoFile: string, fault: HubFault | null) {
      if (fault) faults.set(repoFile, fault);
      else faults.delete(repoFile);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
