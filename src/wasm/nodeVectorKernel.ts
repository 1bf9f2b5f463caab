/** The vector index for Node (tests, benchmarks, the bench engine host): the kernel read from disk. */
import { readFile } from 'node:fs/promises';
import { chooseVectorIndex, type VectorIndexChoice } from './vectorKernel';

/** Built by scripts/build-wasm-kernel.mjs (part of `npm run prepare-assets`, run on install). */
export const KERNEL_PATH = new URL('./int8Dot.wasm', import.meta.url);

export function nodeVectorIndex(): Promise<VectorIndexChoice> {
  return chooseVectorIndex(() => readFile(KERNEL_PATH));
}
