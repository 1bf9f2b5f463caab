/**
 * ModelDownloads (src/models/ModelDownloads.ts): what a failed download says and whether the files
 * that arrived are kept, one running download at a time, cancel, and the one progress reporter both
 * model workers use. The real fetch path (a local hub, a cancel half-way, a hub that cannot be
 * reached) runs in browserLoad.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelFileNotFoundError, type ProgressInfo } from '@huggingface/transformers';
import type { ModelProgress } from '../../src/core/protocol';
import { ModelDownloads, downloadError, downloadFailure, downloadProgress } from '../../src/models/ModelDownloads';

const HUB_FILE = 'https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/onnx/model_quantized.onnx';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('downloadFailure', () => {
  it('tells a cancel, a lost connection, a missing file, a refusing hub and a broken file apart', () => {
    expect(downloadFailure(new Error('anything'), true)).toBe('cancelled');
    expect(downloadFailure(new DOMException('The operation was aborted.', 'AbortError'), false)).toBe('cancelled');
    expect(downloadFailure(new ModelFileNotFoundError(`Could not locate file: "${HUB_FILE}".`, { status: 404 }), false)).toBe('missing');
    expect(downloadFailure(new Error(`Service unavailable error occurred while trying to load file: "${HUB_FILE}".`), false)).toBe(
      'refused',
    );
    expect(downloadFailure(new TypeError('Failed to fetch'), false)).toBe('unreachable');
    expect(downloadFailure(new TypeError('network error'), false)).toBe('unreachable'); // Chromium, cut mid-body
    expect(downloadFailure(new TypeError('fetch failed'), false)).toBe('unreachable'); // Node
    expect(downloadFailure(new Error("Can't create a session. failed to load model"), false)).toBe('invalid');
    expect(downloadFailure(12345, false)).toBe('invalid'); // onnxruntime-web can throw a bare number
  });

  it('says "offline" when the browser knows it is offline', () => {
    vi.stubGlobal('navigator', { onLine: false });
    expect(downloadFailure(new TypeError('Failed to fetch'), false)).toBe('offline');
  });
});

describe('downloadError', () => {
  it('names the model and what to do; a 404 names the missing file', () => {
    expect(downloadError('offline', 'BGE small en v1.5', new TypeError('Failed to fetch')).message).toBe(
      'Downloading "BGE small en v1.5" failed: this device is offline. Connect to the internet and press Download again; the files that already arrived are kept, so it continues from there.',
    );
    const missing = downloadError('missing', 'BGE small en v1.5', new Error(`Could not locate file: "${HUB_FILE}".`));
    expect(missing).toMatchObject({ code: 'MODEL_UNAVAILABLE', detail: `Could not locate file: "${HUB_FILE}".` });
    expect(missing.message).toMatch(
      /^Downloading "BGE small en v1.5" failed: the model hub has no file "onnx\/model_quantized.onnx" for it \(HTTP 404\)/,
    );
    expect(downloadError('invalid', 'X', new Error('protobuf parsing failed'))).toMatchObject({
      code: 'MODEL_ERROR',
      message: expect.stringMatching(/do not load as a model \(protobuf parsing failed\)\. They were removed/),
    });
    expect(downloadError('cancelled', 'X', new Error('aborted')).message).toMatch(/^Downloading "X" was cancelled\./);
  });
});

describe('ModelDownloads.run', () => {
  const job = (fetchFiles: (onInfo: (i: ProgressInfo) => void) => Promise<void>, forget = vi.fn(async () => undefined)) => ({
    modelId: 'm',
    label: 'M',
    expectedBytes: 100,
    fetchFiles,
    forget,
  });

  it('runs one download at a time and cancels the running one through its fetch', async () => {
    const downloads = new ModelDownloads();
    let started!: () => void;
    const fetching = new Promise<void>((r) => (started = r));
    const forget = vi.fn(async () => undefined);
    const { env } = await import('@huggingface/transformers');
    const base = env.fetch;
    env.fetch = ((_: string, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        started();
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      })) as typeof env.fetch;
    try {
      const running = downloads.run(job(async () => void (await env.fetch('https://hub/x')), forget)).catch((e: unknown) => e);
      await fetching;
      expect(downloads.current).toBe('m');
      await expect(downloads.run(job(async () => undefined))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(downloads.cancel('other')).toBe(false);
      expect(downloads.cancel()).toBe(true);
      expect(await running).toMatchObject({ code: 'MODEL_UNAVAILABLE', message: expect.stringMatching(/was cancelled/) });
    } finally {
      env.fetch = base;
    }
    expect(forget).not.toHaveBeenCalled(); // whole files stay for the next try
    expect(downloads.current).toBeNull();
    await downloads.run(job(async () => undefined)); // free again
  });

  it('drops the files after a 404 or a broken file, keeps them after a lost connection', async () => {
    const downloads = new ModelDownloads();
    for (const [err, dropped] of [
      [new ModelFileNotFoundError(`Could not locate file: "${HUB_FILE}".`, { status: 404 }), true],
      [new Error('invalid protobuf'), true],
      [new TypeError('Failed to fetch'), false],
    ] as const) {
      const forget = vi.fn(async () => undefined);
      await expect(
        downloads.run(
          job(async () => {
            throw err;
          }, forget),
        ),
      ).rejects.toBeDefined();
      expect(forget).toHaveBeenCalledTimes(dropped ? 1 : 0);
    }
  });
});

describe('downloadProgress', () => {
  it('counts against the expected size until the files say more, then reports what arrived', async () => {
    const seen: ModelProgress[] = [];
    const report = downloadProgress('m', 1_000, (p) => void seen.push(p), 0);
    report.onInfo({ status: 'progress', name: 'm', file: 'config.json', progress: 100, loaded: 10, total: 10 });
    report.onInfo({ status: 'done', name: 'm', file: 'config.json' });
    report.onInfo({ status: 'progress', name: 'm', file: 'onnx/model.onnx', progress: 10, loaded: 120, total: 1_200 });
    report.onInfo({ status: 'initiate', name: 'm', file: 'tokenizer.json' });
    report.finish();
    await new Promise((r) => setTimeout(r, 0));
    expect(seen.map((p) => [p.loaded, p.total, p.done])).toEqual([
      [10, 1_000, false],
      [10, 1_000, false],
      [130, 1_210, false],
      [130, 1_210, true],
    ]);
    expect(seen[2]!.file).toBe('onnx/model.onnx');
  });
});
