/**
 * The benchmark page (bench.html): exposes measurement functions on `window.recollectBench` for
 * the headless benchmark runners in bench/ (driven by Playwright). It uses the app's model worker and a
 * benchmark worker (bench/page/bench.worker.ts, its own `bench-*.sqlite` OPFS files, never the app's
 * database); nothing here is reachable from the app's UI.
 */
import '../../src/core/base/zodJitless'; // first: before any schema is built (see the module)
import * as Comlink from 'comlink';
import { MODEL_PORT_MESSAGE, unwrapRemote, type DevicePreference, type ModelWorkerApi, type Unwrapped } from '../../src/core/protocol';
import type {
  BenchCorpusInput,
  BenchCorpusResult,
  BenchRecallOptions,
  BenchWorkerApi,
  ColdOpenResult,
  ScaleMeasureOptions,
  ScaleQuestionInput,
  ScaleWorkerApi,
} from '../host/benchProtocol';
import { rateStats } from '../stats';

export interface RateSummary {
  readonly median: number;
  readonly p95: number;
  readonly reps: number;
}

/** Median and slow-end p95 (the rate 95% of repetitions beat) of the per-repetition rates. */
function summarise(rates: number[]): RateSummary {
  const { median, p95 } = rateStats(rates);
  return { median, p95, reps: rates.length };
}

async function rate(items: number, reps: number, run: () => Promise<unknown>): Promise<RateSummary> {
  await run();
  await run(); // warm-up
  const rates: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await run();
    rates.push(items / ((performance.now() - t0) / 1000));
  }
  return summarise(rates);
}

let models: { worker: Worker; remote: Unwrapped<ModelWorkerApi> } | null = null;
function modelWorker(): { worker: Worker; remote: Unwrapped<ModelWorkerApi> } {
  if (!models) {
    const worker = new Worker(new URL('../../workers/model.worker.ts', import.meta.url), { type: 'module', name: 'recollect-models' });
    models = { worker, remote: unwrapRemote<ModelWorkerApi>(Comlink.wrap(worker)) };
  }
  return models;
}

let benchWorker: Promise<Unwrapped<BenchWorkerApi & ScaleWorkerApi>> | null = null;

/**
 * The benchmark worker, started once and wired to the shared model worker through a
 * MessageChannel, as engineClient.ts wires the app's engine: like the app's engine worker it lives
 * for the whole page, so its SQLite WebAssembly is compiled and optimised once, not per corpus.
 */
function benchEngine(): Promise<Unwrapped<BenchWorkerApi & ScaleWorkerApi>> {
  benchWorker ??= (async () => {
    const worker = new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: 'recollect-bench' });
    const bench = unwrapRemote<BenchWorkerApi & ScaleWorkerApi>(Comlink.wrap(worker));
    const channel = new MessageChannel();
    modelWorker().worker.postMessage({ type: MODEL_PORT_MESSAGE, port: channel.port1 }, [channel.port1]);
    await bench.connectModels(Comlink.transfer(channel.port2, [channel.port2]));
    return bench;
  })();
  return benchWorker;
}

/** Runs one corpus in its own fresh OPFS file (deleted afterwards) in the benchmark worker. */
async function recallCorpus(corpus: BenchCorpusInput, options: BenchRecallOptions = {}): Promise<BenchCorpusResult> {
  const bench = await benchEngine();
  const progress = Comlink.proxy((line: string) => window.recollectBenchProgress?.(`${corpus.id}: ${line}`));
  return bench.recallCorpus(corpus, options, progress);
}

/** Names and sizes of the files at the OPFS root (the app's database and any benchmark files). */
async function opfsFiles(): Promise<{ name: string; size: number }[]> {
  const root = await navigator.storage.getDirectory();
  const out: { name: string; size: number }[] = [];
  for await (const [name, handle] of (root as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
    if (handle.kind === 'file') out.push({ name, size: (await (handle as FileSystemFileHandle).getFile()).size });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** SHA-256 (hex) of an OPFS root file, or null when it does not exist. */
async function opfsDigest(name: string): Promise<string | null> {
  const root = await navigator.storage.getDirectory();
  let file: File;
  try {
    file = await (await root.getFileHandle(name)).getFile();
  } catch {
    // NotFoundError: there is no such file
    return null;
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

const api = {
  /** Sentences/s of the selected embedder and pairs/s of the stand-in reranker in the model worker. */
  async modelThroughput(
    texts: string[],
    reps = 7,
  ): Promise<{ embed: RateSummary; rerank: RateSummary; loadMs: number; device: string | null }> {
    const m = modelWorker().remote;
    const t0 = performance.now();
    await m.embed(['warm up']);
    const loadMs = performance.now() - t0;
    const embed = await rate(texts.length, reps, () => m.embed(texts));
    await m.loadReranker('recollect/glove-100d-sif');
    const query = texts[0]!;
    const rerank = await rate(texts.length, reps, () => m.rerank(query, texts));
    const status = await m.status();
    return { embed, rerank, loadMs, device: status.embedder.device };
  },
  /**
   * The selected embedder's vectors for `texts` on a device preference (e2e/webgpu.spec.ts
   * compares WebGPU's against WASM's), with the device that actually ran and any fallback notice.
   */
  async embedOn(
    preference: DevicePreference,
    texts: string[],
  ): Promise<{ vectors: number[][]; device: string | null; notice: string | null }> {
    const m = modelWorker().remote;
    const status = await m.setDevicePreference(preference);
    const vectors = await m.embed(texts);
    return { vectors: vectors.map((v) => Array.from(v)), device: status.embedder.device, notice: status.embedder.notice };
  },
  /** The recall benchmark for one corpus: ingest through the engine on OPFS, rank every question. */
  recallCorpus,
  /** The scale benchmark (bench/scale.ts): one database in the benchmark worker, grown and measured. */
  scale: {
    open: async (fileName: string, reuse = false) => (await benchEngine()).scaleOpen(fileName, { reuse }),
    append: async (corpus: BenchCorpusInput) => (await benchEngine()).scaleAppend(corpus),
    addLayer: async () => (await benchEngine()).scaleAddLayer(),
    measure: async (questions: ScaleQuestionInput[], options: ScaleMeasureOptions = {}) =>
      (await benchEngine()).scaleMeasure(questions, options),
    close: async () => (await benchEngine()).scaleClose(),
    delete: async (fileName: string) => (await benchEngine()).scaleDelete(fileName),
  },
  opfsFiles,
  opfsDigest,
};

declare global {
  interface Window {
    recollectBench?: typeof api;
    /** Set by a cold-open page when its first search has returned (or failed). */
    recollectColdOpen?: (ColdOpenResult & { navigationToResultMs: number }) | { error: string };
    /** Installed by the Node driver (Playwright exposeFunction) to receive progress lines. */
    recollectBenchProgress?: (line: string) => void;
  }
}
window.recollectBench = api;
document.getElementById('status')!.dataset.ready = 'true';

/**
 * Cold open (bench.html?coldOpen=<file>&q=<question>&at=<ms>): this new page starts its own
 * benchmark and model workers, opens the existing database and runs one search; the time from
 * navigation start to that result lands in `window.recollectColdOpen`.
 */
const coldParams = new URLSearchParams(location.search);
const coldFile = coldParams.get('coldOpen');
if (coldFile) {
  const question: ScaleQuestionInput = {
    id: 'cold-open',
    text: coldParams.get('q') ?? '',
    askedAt: Number(coldParams.get('at') ?? Date.now()),
  };
  void benchEngine()
    .then((bench) => bench.coldOpen(coldFile, question))
    .then(
      // The first result's time comes from the worker (epoch ms): the call itself returns later,
      // after the vectors were ready and a second search ran.
      (result) =>
        (window.recollectColdOpen = {
          ...result,
          navigationToResultMs: result.phases ? result.phases.firstResultAt - performance.timeOrigin : performance.now(),
        }),
      (err: unknown) => (window.recollectColdOpen = { error: err instanceof Error ? err.message : String(err) }),
    );
}
