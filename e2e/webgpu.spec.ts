/**
 * WebGPU, proven: headless Debian Chromium exposes a SwiftShader WebGPU adapter on a localhost page
 * when launched with the flags below. The bundled embedder runs on it through the app's
 * model worker and must give the same vectors as WASM; the app shows which device runs it and which
 * vector index the engine uses. The fallback without a GPU: e2e/webgpuFallback.spec.ts.
 */
import { expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from './browser';
import { chooseDevice, cosine, SENTENCES } from './webgpuShared';
import { chooseFromMore } from './moreMenu';

const executablePath = chromiumExecutable();
const WEBGPU_ARGS = [
  ...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'),
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader',
];

test.use({ launchOptions: { ...(executablePath ? { executablePath } : {}), args: WEBGPU_ARGS } });

test.describe('with a WebGPU adapter (SwiftShader)', () => {
  test('the bundled embedder runs on WebGPU and its vectors match WASM’s', async ({ page }) => {
    test.setTimeout(180_000);
    await page.goto('/bench.html');
    await page.waitForFunction(() => document.getElementById('status')?.dataset.ready === 'true');
    const adapter = await page.evaluate(async () => {
      const gpu = (
        navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: { vendor?: string; architecture?: string } } | null> } }
      ).gpu;
      const a = await gpu?.requestAdapter();
      return a ? { vendor: a.info?.vendor ?? '', architecture: a.info?.architecture ?? '' } : null;
    });
    expect(adapter).not.toBeNull();

    const gpu = await page.evaluate((texts) => window.recollectBench!.embedOn('webgpu', texts), SENTENCES);
    expect(gpu.device).toBe('webgpu');
    expect(gpu.notice).toBeNull();
    const wasm = await page.evaluate((texts) => window.recollectBench!.embedOn('wasm', texts), SENTENCES);
    expect(wasm.device).toBe('wasm');
    expect(gpu.vectors).toHaveLength(SENTENCES.length);
    for (const [i, v] of gpu.vectors.entries()) {
      expect(v).toHaveLength(100);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(cosine(v, wasm.vectors[i]!), SENTENCES[i]).toBeGreaterThanOrEqual(0.999);
    }
  });

  test('the Models panel and the overview show WebGPU and the WASM vector index', async ({ page }) => {
    test.setTimeout(180_000);
    await page.goto('/');
    await chooseDevice(page, 'WebGPU (graphics card)');
    const compute = page.getByTestId('compute-backend');
    await expect(compute.getByTestId('embedder-device')).toHaveText('WebGPU');
    await expect(compute.getByTestId('device-notice')).toHaveCount(0);
    await page.getByRole('button', { name: 'Close models' }).click();

    // Turns embedded on WebGPU are found by meaning (no word in common with the query).
    await page.getByRole('button', { name: '+ New conversation' }).click();
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill(SENTENCES[0]!);
    await box.press('Enter');
    await expect(page.getByTestId('message')).toHaveCount(1);
    await page.getByLabel('Search memory').fill('my new dog');
    await expect(page.getByTestId('semantic-hit').first()).toContainText('adopted a puppy', { timeout: 60_000 });

    await page.getByRole('button', { name: 'Memory', exact: true }).click();
    await expect(page.getByTestId('overview-backends')).toHaveText(
      'Embedder runs on WebGPU (recollect/glove-100d-sif, 100 dimensions) · vector index: WASM SIMD, int8',
    );

    // The choice is this browser's: it survives a reload.
    await page.reload();
    await chooseFromMore(page, 'Models');
    await expect(page.getByTestId('compute-backend').getByRole('combobox')).toHaveValue('webgpu');
    await expect(page.getByTestId('embedder-device')).toHaveText('WebGPU', { timeout: 90_000 });
  });
});
