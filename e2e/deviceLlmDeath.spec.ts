/**
 * The device-LLM worker dies while it is answering on this device — out of memory while a 135–786 MB
 * model generates is the likely case on a phone. Two ways, as the browser can end a worker:
 * - closed from inside (`self.close()`): the worker stops at the end of its current task;
 * - crashed: terminated from outside in the middle of its work (a generation step may be running),
 *   without finishing the task or running another line, as the browser ends a worker that crashed.
 * (A real out-of-memory is not reproducible here: Chromium takes the whole renderer down with it,
 * see e2e/workerDeath.spec.ts.) Neither way sends the page anything; only the worker's lifeline
 * (core/base/workerWatch.ts) tells. Each time the person sees a plain notice and the answer stops
 * with the reason and Try again — while the answer would otherwise never end — what they were
 * typing stays in the box, and the next question is answered on this device by the restarted
 * worker, which loads the chosen model again from the browser cache.
 *
 * The answer comes from the random-weight SmolLM2 stand-in (gibberish, on WASM: this browser runs
 * with --disable-gpu), served by the local model hub as in e2e/deviceLlm.spec.ts.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { answerOnThisDevice, messageBox as box, openWithModelHub, printPageOnFailure, typeAndSend, useModelHub } from './appSteps';

const hub = useModelHub({ llms: true });

printPageOnFailure();

type Death = 'closed from inside' | 'crashed';

/** The device-LLM worker, found by its script's name. */
function deviceWorker(page: Page) {
  const worker = page.workers().find((w) => w.url().includes('llm.worker'));
  if (!worker) throw new Error('no device-LLM worker');
  return worker;
}

/**
 * Keeps every Worker the page starts, by the name it gives it, so a test can end one from outside.
 * (The DevTools protocol cannot close a dedicated worker: "Specified target doesn't support closing".)
 */
async function keepPageWorkers(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const Native = window.Worker;
    const started = new Map<string, Worker>();
    (window as unknown as { startedWorkers: Map<string, Worker> }).startedWorkers = started;
    window.Worker = class extends Native {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        started.set(options?.name ?? String(url), this);
      }
    };
  });
}

/** Ends the device-LLM worker `how`; the page gets no message either way. */
async function kill(page: Page, how: Death): Promise<void> {
  if (how === 'closed from inside') {
    await deviceWorker(page)
      .evaluate(() => (self as unknown as { close(): void }).close())
      .catch(() => undefined);
    return;
  }
  // Crashed: terminated in the middle of its work (a generation step may be running), as the
  // browser ends a worker that crashed. The app's own handle is not told: it is the test's copy.
  const ended = await page.evaluate(() => {
    const worker = (window as unknown as { startedWorkers: Map<string, Worker> }).startedWorkers.get('recollect-device-llm');
    worker?.terminate();
    return worker !== undefined;
  });
  expect(ended, 'the device-LLM worker was started through the page').toBe(true);
}

const stoppedNotice = (page: Page) => page.getByRole('alert').filter({ hasText: 'The model on this device stopped unexpectedly' });

for (const how of ['closed from inside', 'crashed'] as const) {
  test(`the device-LLM worker ${how} during an answer: said, the answer stops with the reason, the draft kept, the next question answered`, async ({
    page,
    context,
  }) => {
    test.setTimeout(420_000); // download, load and WASM generation on a busy 2-core machine
    await keepPageWorkers(context);
    await openWithModelHub(page, context, hub.url);
    await answerOnThisDevice(page);
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await typeAndSend(page, 'I adopted a beagle mix puppy named Biscuit. What should I feed him in his first week?');
    const streaming = page.getByTestId('streaming-answer');
    // Streamed text (not just the header): the model is generating in its worker.
    await expect(streaming.locator('.markdown')).toHaveText(/\S{8,}/, { timeout: 120_000 });
    await expect(streaming.getByRole('alert')).toHaveCount(0);
    const dying = deviceWorker(page);
    const gone = new Promise<void>((resolve) => dying.once('close', () => resolve()));

    await box(page).fill('This draft must survive.');
    const killedAt = Date.now();
    await kill(page, how);
    await gone;
    // Said in plain words, and the answer ends with the reason instead of streaming for ever.
    // (The answer would otherwise wait on a worker that no longer exists: no deadline is near.)
    // The timeouts are generous on purpose: what matters is that it ends, not how fast.
    await expect(stoppedNotice(page)).toBeVisible({ timeout: 30_000 });
    await expect(streaming.getByRole('alert')).toContainText('The model on this device stopped', { timeout: 30_000 });
    // Reported, not asserted (no timed assertions): how long the person waited to be told.
    console.log(`measured: notice and failed answer ${Date.now() - killedAt} ms after the worker ended (${how})`);
    await expect(streaming.getByRole('button', { name: 'Try again' })).toBeVisible();
    await expect(box(page)).toHaveValue('This draft must survive.');
    // The question itself is stored.
    await expect(page.getByTestId('message').filter({ hasText: 'named Biscuit' })).toHaveCount(1);

    // A new worker took its place and loads the chosen model again (from the browser cache).
    await expect.poll(() => page.workers().filter((w) => w.url().includes('llm.worker')).length, { timeout: 60_000 }).toBe(1);
    expect(deviceWorker(page)).not.toBe(dying);
    const requestsBefore = hub.requests.length;

    // The next question is answered on this device.
    await box(page).press('Enter');
    await expect(page.getByTestId('message').filter({ hasText: 'This draft must survive.' })).toBeVisible();
    await expect(box(page)).toHaveValue('');
    await expect(streaming.locator('.markdown')).toHaveText(/\S{8,}/, { timeout: 120_000 });
    await expect(streaming.getByRole('alert')).toHaveCount(0);
    await streaming.getByRole('button', { name: 'Stop (Esc)' }).click();
    await expect(streaming).toBeHidden({ timeout: 60_000 });
    await expect(page.getByTestId('message').last()).toContainText('stopped');
    // The restart loaded the model from the browser cache, not from the hub.
    expect(hub.requests.slice(requestsBefore).filter((r) => r.startsWith('HuggingFaceTB/'))).toEqual([]);
  });
}
