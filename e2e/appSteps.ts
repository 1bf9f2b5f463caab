/** Steps through the running app that many browser tests take: the message box, and connecting an endpoint. */
import { expect, test, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { buildTestHub, buildTestLlms, startModelHub, type ModelHub } from '../test/support/modelHub';
import type { MockLlmServer } from '../test/llm/mockLlmServer';

type ImportFile = Parameters<Page['setInputFiles']>[1];

export const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });

/**
 * Settings → the endpoint at `url` with model "mock-model", saved and in use. Settings closes again
 * unless `keepOpen` (a test that changes another setting next).
 */
export async function connectEndpoint(page: Page, url: string, options: { keepOpen?: boolean } = {}): Promise<void> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Base URL').fill(url);
  await page.getByLabel('Model', { exact: true }).fill('mock-model');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('endpoint-state')).toContainText('In use');
  if (!options.keepOpen) await page.getByRole('button', { name: 'Close settings' }).click();
}

/**
 * The endpoint at `url` with synthesis policy "Every episode", then a new conversation whose first
 * turn is long (≈7,000 characters), answered: the next long turn overflows the episode's size cap,
 * so this episode closes and goes to synthesis. Returns that next turn's text.
 */
export async function firstLongTurnEveryEpisode(page: Page, url: string): Promise<string> {
  await connectEndpoint(page, url, { keepOpen: true });
  await page.getByRole('radio', { name: /Every episode/ }).click();
  await expect(page.getByRole('radio', { name: /Every episode/ })).toBeChecked();
  await page.getByRole('button', { name: 'Close settings' }).click();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await messageBox(page).fill('I will fly to Lisbon next week for the architecture conference. '.repeat(110));
  await messageBox(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(2, { timeout: 60_000 });
  return 'My sister Lena lives in Porto and keeps two cats. '.repeat(110);
}

/** The sidebar row of the conversation whose title holds `title` (not the row's Rename or Delete button). */
export const conversationRow = (page: Page, title: string | RegExp) =>
  page.getByRole('navigation', { name: 'Conversations' }).locator('button.conversation').filter({ hasText: title });

/** Types `text` into the message box and presses Enter, waiting for nothing. */
export async function typeAndSend(page: Page, text: string): Promise<void> {
  await messageBox(page).fill(text);
  await messageBox(page).press('Enter');
}

/** Sends `text` from the message box and waits until it shows in the chat. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await typeAndSend(page, text);
  await expect(page.getByTestId('message').filter({ hasText: text.slice(0, 60) })).toHaveCount(1);
}

/** Waits until the chat shows `count` messages and no answer is streaming. */
export async function waitForMessages(page: Page, count: number): Promise<void> {
  await expect(page.getByTestId('message')).toHaveCount(count, { timeout: 30_000 });
  await expect(page.getByTestId('streaming-answer')).toBeHidden({ timeout: 30_000 });
}

/** The messages of the streamed answer requests `mock` received from index `from` on, as one JSON string. */
export function answersSince(mock: MockLlmServer, from: number): string {
  return JSON.stringify(
    mock.requests
      .slice(from)
      .filter((r) => r.path.endsWith('/chat/completions') && r.body?.stream === true)
      .map((r) => r.body?.messages),
  );
}

/** Starts a chat with `newChat`, asks `question` and returns the answer requests it sent (answersSince). */
export async function askInNewChat(page: Page, mock: MockLlmServer, newChat: Locator, question: string): Promise<string> {
  const from = mock.requests.length;
  await newChat.click();
  await sendMessage(page, question);
  await waitForMessages(page, 2);
  return answersSince(mock, from);
}

/** Memory → Saved memories; returns the tab's panel. */
export async function openSavedMemories(page: Page) {
  const memory = page.getByRole('button', { name: 'Memory', exact: true });
  if ((await memory.getAttribute('aria-pressed')) !== 'true') await memory.click();
  await page.getByRole('tab', { name: 'Saved memories', exact: true }).click();
  return page.getByTestId('saved-memories');
}

/** Back from the memory explorer to the chat. */
export async function backToChat(page: Page): Promise<void> {
  const memory = page.getByRole('button', { name: 'Memory', exact: true });
  if ((await memory.getAttribute('aria-pressed')) === 'true') await memory.click();
  await expect(memory).toHaveAttribute('aria-pressed', 'false');
}

/**
 * Import… → Replace memory with `file`, until the notice `imported` shows. A file with turns no
 * synthesis covers also brings up "Synthesise the restored memory?" (restoreAsksFirst.spec tests
 * it); here it is closed, which keeps synthesis off.
 */
export async function replaceMemory(page: Page, file: ImportFile, imported: string | RegExp, timeout = 30_000): Promise<void> {
  await page.getByLabel('Import database file').setInputFiles(file);
  await page.getByRole('button', { name: 'Replace memory' }).click();
  await expect(page.getByText(imported)).toBeVisible({ timeout });
  // The question shows in the same render as the notice.
  const question = page.getByRole('dialog', { name: 'Synthesise the restored memory?' });
  if (await question.isVisible()) {
    await question.getByRole('button', { name: 'Close and keep synthesis off' }).click();
    await expect(question).toBeHidden();
  }
}

/**
 * The local model hub for a spec (random-weight models, test/support/modelHub.ts): built and
 * started before its tests, closed after. The returned object stands for the started hub.
 */
export function useModelHub(options: { readonly llms?: boolean } = {}): ModelHub {
  let started: ModelHub | null = null;
  test.beforeAll(async () => {
    await buildTestHub();
    if (options.llms) await buildTestLlms('hub');
    started = await startModelHub();
  });
  test.afterAll(async () => started?.close());
  const live = () => {
    if (!started) throw new Error('the model hub is used before it started (only inside tests)');
    return started;
  };
  return new Proxy({} as ModelHub, {
    get: (_, key) => Reflect.get(live(), key),
    set: (_, key, value) => Reflect.set(live(), key, value),
  });
}

/**
 * Opens the app with models downloading from the local test hub at `hubUrl`, and every request
 * to anywhere but this machine refused (nothing may reach the real hub).
 */
export async function openWithModelHub(page: Page, context: BrowserContext, hubUrl: string): Promise<void> {
  await context.addInitScript((url) => localStorage.setItem('recollect.model-hub', url), hubUrl);
  await context.route(
    (url) => !/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url.href),
    (route) => route.abort(),
  );
  await page.goto('/');
}

/** The random-weight SmolLM2 stand-in the local model hub serves (scripts/build-test-llm.mjs). */
export const DEVICE_TEST_LLM = { id: 'HuggingFaceTB/SmolLM2-135M-Instruct', label: 'SmolLM2 135M Instruct' } as const;

/**
 * Settings → This device: downloads the test model from the hub (useModelHub({ llms: true })),
 * chooses it, and waits until it is in use (loaded in the device-LLM worker); Settings closes again.
 */
export async function answerOnThisDevice(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByRole('region', { name: 'This device' });
  const row = section.getByTestId(`device-model-${DEVICE_TEST_LLM.id}`);
  await row.getByRole('button', { name: `Download ${DEVICE_TEST_LLM.label}` }).click();
  await expect(row).toContainText('Downloaded', { timeout: 90_000 });
  await row.getByRole('radio', { name: new RegExp(DEVICE_TEST_LLM.label) }).click();
  await expect(row.getByRole('radio', { name: new RegExp(DEVICE_TEST_LLM.label) })).toBeChecked();
  await expect(section.getByTestId('device-llm-state')).toContainText(`In use: ${DEVICE_TEST_LLM.label} on this device`, {
    timeout: 90_000,
  });
  await page.getByRole('button', { name: 'Close settings' }).click();
}

const REFUSE_OPFS = `StorageManager.prototype.getDirectory = function () {
  return Promise.reject(new DOMException('The operation is insecure.', 'SecurityError'));
};\n`;

/**
 * The window cannot keep files, as a Firefox private window: `navigator.storage.getDirectory()`
 * rejects with SecurityError, in the page and in every worker of the app.
 */
export async function refuseOpfs(context: BrowserContext): Promise<void> {
  await context.addInitScript(REFUSE_OPFS);
  // A bundled worker is one file without imports: a statement put first runs before its code.
  await context.route('**/assets/*.worker-*.js', async (route) => {
    try {
      const response = await route.fetch();
      await route.fulfill({ response, body: REFUSE_OPFS + (await response.text()) });
    } catch {
      // The test ended (context closed) while a worker script was still on its way: nothing to do.
    }
  });
}

/** + New project → `name` with `memory`, created; returns the project's address (its #/p/… hash). */
export async function createProject(
  page: Page,
  name: string,
  memory: 'Shared memory' | 'Project-only memory',
  instructions = '',
): Promise<string> {
  await page.getByRole('button', { name: '+ New project' }).click();
  const dialog = page.getByTestId('project-dialog');
  await dialog.getByLabel('Name').fill(name);
  if (instructions) await dialog.getByLabel(/Instructions/).fill(instructions);
  await dialog.getByRole('radio', { name: new RegExp(`^${memory}`) }).check();
  await dialog.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByTestId('project-view').getByRole('heading', { name })).toBeVisible();
  const hash = await page.evaluate(() => location.hash);
  expect(hash).toMatch(/^#\/p\/.+/);
  return hash;
}

/** The app's SQLite page size (PRAGMA page_size): database sizes are whole pages of it. */
export const PAGE_BYTES = 4096;

/**
 * A database size read with page_count × page_size is whole pages, and even an empty memory holds a
 * page for each table and index of the schema (55 at schema v11, so well over 40).
 */
export function expectDatabaseBytes(bytes: number): void {
  expect(bytes % PAGE_BYTES).toBe(0);
  expect(bytes / PAGE_BYTES).toBeGreaterThanOrEqual(40);
}

/**
 * For a test that failed only in full CI runs: prints what the page said (alerts, status lines,
 * notices) and the console of the page and its workers, so the CI log shows why without the trace.
 */
export function printPageOnFailure(): void {
  const logs = new WeakMap<Page, string[]>();
  test.beforeEach(({ page }) => {
    const lines: string[] = [];
    logs.set(page, lines);
    const keep = (line: string) => lines.push(`${new Date().toISOString().slice(11, 23)} ${line}`.slice(0, 400));
    page.on('console', (m) => keep(`console.${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => keep(`pageerror: ${e.message}`));
    page.on('worker', (w) => {
      keep(`worker started: ${w.url()}`);
      w.on('close', () => keep(`worker closed: ${w.url()}`));
    });
  });
  test.afterEach(async ({ page }, info) => {
    if (info.status === info.expectedStatus) return;
    const said = await page
      .locator('[role=alert], [role=status], .notice, .banner')
      .allInnerTexts()
      .catch((e: unknown) => [`(page unreadable: ${String(e)})`]);
    console.log(
      `--- ${info.title}: the page said\n${said.join('\n')}\n--- console (last 60)\n${(logs.get(page) ?? []).slice(-60).join('\n')}`,
    );
  });
}
