/**
 * The ONNX shape check (src/models/onnxCheck.ts) that keeps files onnxruntime cannot parse away
 * from it: real model files pass in any chunking; random bytes, a cut file, an HTML page and an
 * empty file do not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { OnnxShapeCheck, checkOnnxStream, onnxCheckingStream } from '../../src/models/onnxCheck';
import { TEST_HUB_DIR, buildTestHub, unparsableGraph } from '../support/modelHub';
import { InferenceSession } from 'onnxruntime-node';

const bundled = fileURLToPath(new URL('../../public/models/recollect/glove-100d-sif/onnx/model_quantized.onnx', import.meta.url));
let files: Uint8Array<ArrayBuffer>[];

beforeAll(async () => {
  await buildTestHub();
  files = [
    bundled,
    join(TEST_HUB_DIR, 'Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model_quantized.onnx'),
    join(TEST_HUB_DIR, 'mixedbread-ai/mxbai-rerank-xsmall-v1/resolve/main/onnx/model_quantized.onnx'),
  ].map((f) => new Uint8Array(readFileSync(f)));
}, 120_000);

function check(bytes: Uint8Array, chunk = 65_536): string | null {
  const c = new OnnxShapeCheck();
  for (let i = 0; i < bytes.length; i += chunk) c.push(bytes.subarray(i, i + chunk));
  return c.finish();
}

describe('OnnxShapeCheck', () => {
  it('passes real model files, whatever the chunk size', () => {
    for (const f of files) {
      expect(check(f)).toBeNull();
      expect(check(f, 7)).toBeNull();
      expect(check(f, 1 << 20)).toBeNull();
    }
  });

  it('fails what cannot be a model', () => {
    expect(check(new Uint8Array(4096).fill(0x5a))).toMatch(/ends in the middle of a field|no model graph/);
    expect(check(files[1]!.subarray(0, Math.floor(files[1]!.length / 2)))).toMatch(/ends in the middle of a field/);
    expect(check(new TextEncoder().encode('<!doctype html><html><body>Not found</body></html>'))).toMatch(/wire type 4/);
    expect(check(new Uint8Array(0))).toBe('the file is empty');
    expect(check(new Uint8Array(1000))).toMatch(/field number 0/);
  });
});

describe('streams', () => {
  const stream = (bytes: Uint8Array<ArrayBuffer>) => new Response(bytes).body!;

  it('checkOnnxStream reads a cached response', async () => {
    expect(await checkOnnxStream(stream(files[0]!))).toBeNull();
    expect(await checkOnnxStream(stream(new Uint8Array(4096).fill(0x5a)))).not.toBeNull();
  });

  it('the checking stream passes bytes through unchanged and errors at the end of a bad file', async () => {
    const good = await new Response(stream(files[1]!).pipeThrough(onnxCheckingStream())).arrayBuffer();
    expect(Buffer.compare(Buffer.from(good), Buffer.from(files[1]!))).toBe(0); // same bytes (toEqual is slow on megabytes)
    await expect(new Response(stream(new Uint8Array(4096).fill(0x5a)).pipeThrough(onnxCheckingStream())).arrayBuffer()).rejects.toThrow(
      /not an ONNX model/,
    );
  });
});

describe('the hub fixture for a failure only onnxruntime finds', () => {
  it('passes the shape check, yet onnxruntime cannot create a session from it', async () => {
    for (const size of [100, 5_000, 300_000]) {
      const bytes = unparsableGraph(size);
      expect(check(bytes), `size ${size}`).toBeNull();
      expect(check(bytes, 7)).toBeNull();
    }
    await expect(InferenceSession.create(unparsableGraph(5_000))).rejects.toThrow(/protobuf parsing failed|Failed to load model/i);
  });
});
