/**
 * The browser's built-in model (Prompt API) as the "This device" provider, in the built app, over a
 * stand-in `LanguageModel` with the documented interface (e2e/promptApiStub.ts) installed before
 * the app loads: Settings offers it only when it says 'available', explains 'unavailable' and
 * 'downloadable' (and lets the browser download from a click, with progress), and a chosen
 * built-in model streams answers, stops on Stop (the AbortSignal reaches promptStreaming), is
 * counted in the ledger and named in "What was sent". No real Gemini Nano ran here (docs/answers.md).
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { typeAndSend as ask } from './appSteps';
import { installLanguageModelStub, type LanguageModelStubLog, type LanguageModelStubOptions } from './promptApiStub';

async function openWith(page: Page, context: BrowserContext, options: LanguageModelStubOptions) {
  await context.addInitScript(installLanguageModelStub, options);
  await context.route(
    (url) => !/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url.href),
    (route) => route.abort(),
  );
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  return page.getByRole('region', { name: 'This device' });
}

const stubLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { __languageModelStub: LanguageModelStubLog }).__languageModelStub);
const builtInRadio = (page: Page) =>
  page.getByRole('region', { name: 'This device' }).getByRole('radio', { name: 'Built-in model (Chrome)' });

test('"unavailable": the built-in model is not offered, and Settings says what to do instead', async ({ page, context }) => {
  const section = await openWith(page, context, { availability: 'unavailable', pieceMs: 100, pieces: 5 });
  await expect(section.getByTestId('built-in-state')).toContainText(
    'This device cannot run the browser’s built-in model. Download a model below instead.',
  );
  await expect(builtInRadio(page)).toBeDisabled();
  await expect(section.getByRole('button', { name: 'Ask the browser to download its model' })).toHaveCount(0);
  expect((await stubLog(page)).creates).toEqual([]);
});

test('"downloadable": not offered until the browser has downloaded its model, from a click, with progress', async ({ page, context }) => {
  const section = await openWith(page, context, { availability: 'downloadable', pieceMs: 100, pieces: 5 });
  await expect(section.getByTestId('built-in-state')).toContainText('about 22 GB of free disk');
  await expect(section.getByTestId('built-in-state')).toContainText('Ask the browser to download it');
  await expect(builtInRadio(page)).toBeDisabled();
  // Nothing is downloaded until asked.
  expect((await stubLog(page)).creates).toEqual([]);

  await section.getByRole('button', { name: 'Ask the browser to download its model' }).click();
  await expect(section.getByRole('progressbar', { name: 'The browser is downloading its built-in model' })).toBeVisible();
  await expect(builtInRadio(page)).toBeEnabled({ timeout: 30_000 });
  await expect(section.getByTestId('built-in-state')).toContainText('Ready. Recollect downloads nothing');
  const log = await stubLog(page);
  expect(log.creates).toHaveLength(1);
  expect(log.creates[0]!.monitored).toBe(true);
  expect(log.downloadEvents).toEqual([0, 0.25, 0.5, 0.75, 1]);
  expect(log.destroyed).toBe(1); // the download's session is let go
});

test('"available": chosen, an answer streams through it, Stop aborts it, the ledger counts it, What was sent says it ran here', async ({
  page,
  context,
}) => {
  test.setTimeout(180_000);
  const section = await openWith(page, context, { availability: 'available', pieceMs: 150, pieces: 30 });
  await expect(section.getByTestId('built-in-state')).toContainText('Ready. Recollect downloads nothing');
  await builtInRadio(page).click();
  await expect(builtInRadio(page)).toBeChecked();
  await expect(section.getByTestId('device-llm-state')).toHaveText(
    'Answers come from the browser’s built-in model, on this device (it reports a window of 6,144 tokens; prompts are sized for it).',
  );
  // What to expect, and less memory per question by default for a small window.
  await expect(section.getByTestId('device-quality-notice')).toContainText('Answers are short and sometimes wrong');
  await expect(page.locator('#answer-budget')).toHaveValue('1000');
  await expect(page.getByTestId('budget-note')).toContainText('the default is 1,000 tokens');
  await page.getByRole('button', { name: 'Close settings' }).click();

  // A whole answer: every piece streams, and the answer is stored.
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await ask(page, 'I adopted a beagle mix puppy named Biscuit.');
  const streaming = page.getByTestId('streaming-answer');
  await expect(streaming.locator('.markdown')).toContainText('word1 word2', { timeout: 60_000 });
  await expect(streaming).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(page.getByTestId('message').last()).toContainText('word30');
  await expect(page.getByTestId('message').last()).not.toContainText('stopped');

  // The question (with what memory recalled) reached the model as its prompt; the instructions went first.
  let log = await stubLog(page);
  expect(log.prompts[0]).toContain('Question: I adopted a beagle mix puppy named Biscuit.');
  // The first session only read the window when the model was chosen (no prompts, let go); answers come after.
  expect(log.creates[0]).toEqual({ initialPrompts: [], monitored: false });
  expect(log.creates[1]!.initialPrompts[0]!.role).toBe('system');
  const abortedBefore = log.aborted;

  // Stop: the AbortSignal reaches promptStreaming, and what was written so far is kept.
  await ask(page, 'What is the name of my dog?');
  await expect(streaming.locator('.markdown')).toContainText('word3', { timeout: 60_000 });
  await streaming.getByRole('button', { name: 'Stop (Esc)' }).click();
  await expect(streaming).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message')).toHaveCount(4);
  const answer = page.getByTestId('message').last();
  await expect(answer).toContainText('stopped');
  await expect(answer).not.toContainText('word30');
  await expect.poll(async () => (await stubLog(page)).aborted, { timeout: 15_000 }).toBeGreaterThan(abortedBefore);
  log = await stubLog(page);
  // Every session is let go (answers, and the title made after the first answer).
  await expect.poll(async () => (await stubLog(page)).destroyed, { timeout: 15_000 }).toBe(log.creates.length);

  // "What was sent" says where it ran.
  await answer.getByRole('button', { name: 'what was sent' }).click();
  const dialog = page.getByRole('dialog', { name: 'What was sent' });
  await expect(dialog.getByTestId('on-device-note')).toContainText(
    'a model running on this device: Built-in model (Chrome) (the browser’s built-in model)',
  );
  await expect(dialog.getByTestId('on-device-note')).toContainText('nothing was sent over the network');
  await expect(dialog.getByTestId('on-device-quality')).toContainText('answers less reliably than a large hosted one');
  await expect(dialog.getByTestId('sent-content').filter({ hasText: 'named Biscuit' }).first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Close what was sent' }).click();

  // The ledger counted both answers (the stopped one too).
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const spend = page.getByRole('region', { name: 'Spend' });
  await expect(
    spend
      .getByRole('row')
      .filter({ hasText: /^answer/ })
      .getByRole('cell')
      .nth(1),
  ).toHaveText('2', { timeout: 30_000 });
});
