/**
 * WebGPU fallback: in the browser the other specs use (launched with --disable-gpu, no adapter),
 * asking for WebGPU loads the embedder on WASM, says why, and search by meaning keeps working.
 */
import { expect, test } from '@playwright/test';
import { chooseDevice, SENTENCES } from './webgpuShared';

test.describe('without a GPU', () => {
  test('asking for WebGPU falls back to WASM with a notice, and search keeps working', async ({ page }) => {
    test.setTimeout(120_000);
    await page.goto('/');
    await chooseDevice(page, 'WebGPU (graphics card)');
    const compute = page.getByTestId('compute-backend');
    await expect(compute.getByTestId('embedder-device')).toHaveText('WASM');
    await expect(compute.getByTestId('device-notice')).toContainText('WebGPU could not be used');
    await page.getByRole('button', { name: 'Close models' }).click();

    await page.getByRole('button', { name: '+ New conversation' }).click();
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill(SENTENCES[0]!);
    await box.press('Enter');
    await page.getByLabel('Search memory').fill('my new dog');
    await expect(page.getByTestId('semantic-hit').first()).toContainText('adopted a puppy', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Memory', exact: true }).click();
    await expect(page.getByTestId('overview-backends')).toHaveText(
      'Embedder runs on WASM (recollect/glove-100d-sif, 100 dimensions) · vector index: WASM SIMD, int8',
    );
  });
});
