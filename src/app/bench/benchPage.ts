/**
 * The benchmark page (bench.html): exposes measurement functions on `window.recollectBench` for
 * the headless benchmark runners in bench/ (driven by Playwright). It uses the same workers as the
 * app; nothing here is reachable from the app's UI.
 */
import * as Comlink from 'comlink';
import type { ModelWorkerApi } from '../../../workers/model.worker';

export interface RateSummary {
  readonly median: number;
  readonly p95: number;
  readonly reps: number;
}

function summarise(rates: number[]): RateSummary {
  const sorted = [...rates].sort((a, b) => a - b);
  // p95 of a rate is the slow end: the rate 95% of repetitions beat.
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.floor(sorted.length * 0.05)]!, reps: rates.length };
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

let models: Comlink.Remote<ModelWorkerApi> | null = null;
function modelWorker(): Comlink.Remote<ModelWorkerApi> {
  models ??= Comlink.wrap<ModelWorkerApi>(new Worker(new URL('../../../workers/model.worker.ts', import.meta.url), { type: 'module' }));
  return models;
}

const api = {
  /** Sentences/s of the selected embedder and pairs/s of the stand-in reranker in the model worker. */
  async modelThroughput(texts: string[], reps = 7): Promise<{ embed: RateSummary; rerank: RateSummary; loadMs: number; device: string | null }> {
    const m = modelWorker();
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
};

declare global {
  interface Window {
    recollectBench?: typeof api;
  }
}
window.recollectBench = api;
document.getElementById('status')!.dataset.ready = 'true';
