/**
 * Browser side of `npm run bench -- vectors --runtime browser`: bundled by bench/vector-index.ts
 * and run in a headless Chromium page. Instantiates the same kernel bytes the app serves through
 * the same chooser as the engine worker, then runs the shared measurement.
 */
import { jsVectorIndex } from '../src/core/capture/vectorIndex';
import { chooseVectorIndex } from '../src/wasm/vectorKernel';
import { runVectorBench, type VectorBenchOptions, type VectorBenchResult } from './vectorIndexRun';

async function run(kernelBase64: string, options: VectorBenchOptions): Promise<VectorBenchResult & { fallbackReason: string | null }> {
  const bytes = Uint8Array.from(atob(kernelBase64), (c) => c.charCodeAt(0));
  const choice = await chooseVectorIndex(async () => bytes);
  const progress = (globalThis as { recollectBenchProgress?: (line: string) => void }).recollectBenchProgress;
  const result = runVectorBench({ baseline: jsVectorIndex, candidates: [choice.factory] }, options, progress);
  return { ...result, fallbackReason: choice.fallbackReason };
}

(globalThis as unknown as { recollectVectorBench: typeof run }).recollectVectorBench = run;
