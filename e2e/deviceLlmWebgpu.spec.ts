/**
 * The same "This device" path as e2e/deviceLlm.spec.ts — download, choose, stream, stop, "What was
 * sent" — with a WebGPU adapter: headless Debian Chromium's SwiftShader (software Vulkan, the flags
 * of e2e/webgpu.spec.ts). The random-weight SmolLM2-shaped stand-in
 * (scripts/build-test-llm.mjs) is served by the local model hub; with an adapter the catalog runs
 * it on WebGPU, and the WebGPU-only models are offered. Answers are gibberish by construction.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { openWithModelHub, typeAndSend as ask, useModelHub } from './appSteps';
import { CHROMIUM_ARGS, chromiumExecutable } from './browser';

const SMOL = 'HuggingFaceTB/SmolLM2-135M-Instruct';
const QWEN = 'onnx-community/Qwen2.5-0.5B-Instruct';

const executablePath = chromiumExecutable();
const WEBGPU_ARGS = [
  ...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'),
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader',
];
test.use({ launchOptions: { ...(executablePath ? { executablePath } : {}), args: WEBGPU_ARGS } });

const hub = useModelHub({ llms: true });

const openWithHub = (page: Page, context: BrowserContext) => openWithModelHub(page, context, hub.url);

test('a model on this device, on WebGPU (SwiftShader): download, choose, stream, stop, what was sent', async ({ page, context }) => {
  test.setTimeout(420_000);
  await openWithHub(page, context);
  const adapter = await page.evaluate(async () => {
    const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: { architecture?: string } } | null> } }).gpu;
    return (await gpu?.requestAdapter())?.info?.architecture ?? null;
  });
  expect(adapter).toBe('swiftshader');

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByRole('region', { name: 'This device' });
  const smol = section.getByTestId(`device-model-${SMOL}`);
  // With an adapter whose limits fit, the WebGPU-only models are offered too.
  await expect(section.getByRole('button', { name: 'Download Qwen2.5 0.5B Instruct' })).toBeEnabled();
  await expect(section.getByTestId(`device-model-${QWEN}`)).not.toContainText('needs WebGPU');

  await smol.getByRole('button', { name: 'Download SmolLM2 135M Instruct' }).click();
  await expect(smol).toContainText('Downloaded', { timeout: 90_000 });
  await smol.getByRole('radio', { name: /SmolLM2 135M Instruct/ }).click();
  await expect(smol.getByRole('radio', { name: /SmolLM2 135M Instruct/ })).toBeChecked();
  const state = section.getByTestId('device-llm-state');
  await expect(state).toContainText('In use: SmolLM2 135M Instruct on this device', { timeout: 180_000 });
  // On WebGPU, not the WASM fallback (which would say "WebGPU failed (…)").
  await expect(state).toContainText('on this device (WebGPU)');
  await page.getByRole('button', { name: 'Close settings' }).click();

  await page.getByRole('button', { name: '+ New conversation' }).click();
  await ask(page, 'I adopted a beagle mix puppy named Biscuit.');
  await expect(page.getByTestId('message').first()).toBeVisible();
  const streaming = page.getByTestId('streaming-answer');
  await expect(streaming.locator('.markdown')).toHaveText(/\S{8,}/, { timeout: 180_000 });
  await expect(streaming.getByRole('alert')).toHaveCount(0);
  await streaming.getByRole('button', { name: 'Stop (Esc)' }).click();
  await expect(streaming).toBeHidden({ timeout: 60_000 });
  const answer = page.getByTestId('message').last();
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(answer).toContainText('stopped');

  await answer.getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('on-device-note')).toContainText('SmolLM2 135M Instruct (WebGPU, on this device’s graphics card)');
  await expect(dialog.getByTestId('on-device-note')).toContainText('nothing was sent over the network');
});
