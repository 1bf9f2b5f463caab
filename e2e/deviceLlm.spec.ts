/**
 * Answers with no server at all, the whole path in the built app: a random-weight stand-in of
 * SmolLM2-135M-Instruct (a Llama-style decoder with a byte-level BPE tokenizer and ChatML,
 * scripts/build-test-llm.mjs) is served by a local model hub on 127.0.0.1 in place of the Hugging
 * Face Hub; everything else outside this machine is blocked. The browser runs with --disable-gpu
 * (no WebGPU adapter), so the tiny model runs on WASM and the larger ones are not offered. The
 * answers are gibberish by construction: the test checks the path — download with progress, the
 * choice, tokens streaming, stop, the ledger, "What was sent", a reload keeping the choice, no
 * network after the download, and answers with the browser offline (context.setOffline). The same
 * path on WebGPU (SwiftShader): e2e/deviceLlmWebgpu.spec.ts.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { openWithModelHub, typeAndSend as ask, useModelHub } from './appSteps';

const SMOL = 'HuggingFaceTB/SmolLM2-135M-Instruct';
const QWEN = 'onnx-community/Qwen2.5-0.5B-Instruct';

const hub = useModelHub({ llms: true });

const openWithHub = (page: Page, context: BrowserContext) => openWithModelHub(page, context, hub.url);

test('a model on this device: download, choose, stream, stop, ledger, what was sent, reload keeps the choice, answers offline', async ({
  page,
  context,
}) => {
  test.setTimeout(420_000);
  await openWithHub(page, context);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await ask(page, 'I adopted a beagle mix puppy named Biscuit.');
  await expect(page.getByTestId('message')).toHaveCount(1);
  await expect(page.getByTestId('no-endpoint')).toBeVisible();

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByRole('region', { name: 'This device' });
  const smol = section.getByTestId(`device-model-${SMOL}`);
  await expect(smol).toContainText('Apache-2.0');
  // No WebGPU here: only the tiny model is offered, the others say why.
  await expect(section.getByTestId(`device-model-${QWEN}`)).toContainText('needs WebGPU');
  await expect(section.getByRole('button', { name: 'Download Qwen2.5 0.5B Instruct' })).toBeDisabled();
  // Headless Chromium 156 exposes LanguageModel to pages, and it answers 'unavailable' here.
  await expect(section.getByTestId('built-in-state')).toContainText('cannot run the browser’s built-in model');
  await expect(section.getByRole('radio', { name: 'Built-in model (Chrome)' })).toBeDisabled();
  expect(hub.requests.filter((r) => r.startsWith(SMOL))).toEqual([]); // nothing until asked

  hub.slowOnnxMs = 1_500;
  await smol.getByRole('button', { name: 'Download SmolLM2 135M Instruct' }).click();
  await expect(smol.getByRole('progressbar', { name: /Downloading/ })).toBeVisible();
  await expect(smol).toContainText('Downloaded', { timeout: 60_000 });
  hub.slowOnnxMs = 0;
  expect(hub.requests).toContain(`${SMOL}/resolve/main/onnx/model_q4.onnx`);

  // The radio follows the saved choice, which lands after the engine has switched.
  await smol.getByRole('radio', { name: /SmolLM2 135M Instruct/ }).click();
  await expect(smol.getByRole('radio', { name: /SmolLM2 135M Instruct/ })).toBeChecked();
  await expect(section.getByTestId('device-llm-state')).toContainText('In use: SmolLM2 135M Instruct on this device (WASM)', {
    timeout: 60_000,
  });
  await page.getByRole('button', { name: 'Close settings' }).click();
  await expect(page.getByTestId('no-endpoint')).toBeHidden();
  const requestsAfterDownload = hub.requests.length;

  // Tokens stream, and Stop ends the answer: what was written so far is kept.
  await ask(page, 'What is the name of my dog?');
  const streaming = page.getByTestId('streaming-answer');
  const noError = streaming.getByRole('alert');
  // Streamed text (not just the header): a few pieces have arrived.
  await expect(streaming.locator('.markdown')).toHaveText(/\S{8,}/, { timeout: 60_000 });
  await expect(noError).toHaveCount(0);
  await streaming.getByRole('button', { name: 'Stop (Esc)' }).click();
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  const answer = page.getByTestId('message').last();
  await expect(page.getByTestId('message')).toHaveCount(3);
  await expect(answer).toContainText('stopped');

  // "What was sent" says where it ran; nothing went over the network.
  await answer.getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('on-device-note')).toContainText('a model running on this device: SmolLM2 135M Instruct');
  await expect(dialog.getByTestId('on-device-note')).toContainText('nothing was sent over the network');
  await expect(dialog.getByTestId('sent-content').filter({ hasText: 'named Biscuit' }).first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Close what was sent' }).click();

  // The ledger counted the answer under the model's id.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const spend = page.getByRole('region', { name: 'Spend' });
  await expect(spend.getByRole('row').filter({ hasText: /^answer/ })).toBeVisible({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Close settings' }).click();

  // A reload keeps the choice; the model loads from the browser cache, not the hub.
  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByRole('region', { name: 'This device' }).getByTestId('device-llm-state')).toContainText(
    'In use: SmolLM2 135M Instruct on this device (WASM)',
    { timeout: 60_000 },
  );
  await page.getByRole('button', { name: 'Close settings' }).click();
  await page.locator('button.conversation').first().click();
  await ask(page, 'And what breed is he?');
  // Streamed text (not just the header): a few pieces have arrived.
  await expect(streaming.locator('.markdown')).toHaveText(/\S{8,}/, { timeout: 60_000 });
  await streaming.getByRole('button', { name: 'Stop (Esc)' }).click();
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message')).toHaveCount(5);
  expect(hub.requests.slice(requestsAfterDownload).filter((r) => r.startsWith(SMOL))).toEqual([]);

  // Offline: the app opens from the service worker's precache, the model from the browser cache,
  // and it still answers on this device.
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated', undefined, { timeout: 60_000 });
  const requestsBeforeOffline = hub.requests.length;
  await context.setOffline(true);
  expect(
    await page.evaluate(() =>
      fetch('/bench.html', { cache: 'no-store' }).then(
        () => 'online',
        () => 'offline',
      ),
    ),
  ).toBe('offline');
  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByRole('region', { name: 'This device' }).getByTestId('device-llm-state')).toContainText(
    'In use: SmolLM2 135M Instruct on this device (WASM)',
    { timeout: 90_000 },
  );
  await page.getByRole('button', { name: 'Close settings' }).click();
  await page.locator('button.conversation').first().click();
  await ask(page, 'Is he house-trained yet?');
  await expect(streaming.locator('.markdown')).toHaveText(/\S{8,}/, { timeout: 90_000 });
  await expect(noError).toHaveCount(0);
  await streaming.getByRole('button', { name: 'Stop (Esc)' }).click();
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message')).toHaveCount(7);
  await expect(page.getByTestId('message').last()).toContainText('stopped');
  expect(hub.requests.length).toBe(requestsBeforeOffline);
});
