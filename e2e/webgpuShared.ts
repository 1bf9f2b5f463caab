/** Helpers shared by the WebGPU specs (e2e/webgpu.spec.ts, e2e/webgpuFallback.spec.ts). */
import { expect, type Page } from '@playwright/test';
import { chooseFromMore } from './moreMenu';

export const SENTENCES = [
  'I adopted a puppy from the shelter last weekend.',
  'The quarterly earnings report shows revenue fell sharply.',
  'We flew to Paris for my sister’s birthday and stayed near the river.',
  'Remind me to book the dentist before the end of the month.',
  'qwzx unknownword',
];

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * b[i]!;
    na += x * x;
    nb += b[i]! * b[i]!;
  });
  return na === 0 && nb === 0 ? 1 : dot / Math.sqrt(na * nb);
}

export async function chooseDevice(page: Page, label: string): Promise<void> {
  await chooseFromMore(page, 'Models');
  const compute = page.getByTestId('compute-backend');
  await compute.getByRole('combobox').selectOption({ label });
  await expect(compute.getByTestId('embedder-device')).not.toHaveText('switching…', { timeout: 90_000 });
}
