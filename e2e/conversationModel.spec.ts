/**
 * A model per conversation, checked by what the mock endpoint received: a model picked in one
 * conversation's header (from the endpoint's list, then a name typed) is the `model` of that
 * conversation's answer requests and survives a reload, another conversation keeps the default of
 * Settings, and "What was sent" names the model. With the browser's built-in model (the Prompt API
 * stub) as the default, a conversation answers on the device until its header picks an endpoint model.
 */
import { expect, test, type Page } from '@playwright/test';
import { defaultResponder, startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { connectEndpoint, conversationRow, sendMessage, waitForMessages } from './appSteps';
import { installLanguageModelStub, type LanguageModelStubLog } from './promptApiStub';

let mock: MockLlmServer;
test.beforeAll(async () => {
  // Titles as by default ("About: " and the first words), so each conversation keeps its own.
  mock = await startMockLlmServer({
    models: ['mock-model', 'big-model'],
    responder: (req) => (req.stream ? 'Noted: the meter read 1,204 in August.' : defaultResponder(req)),
  });
});
test.afterAll(async () => mock.close());

const turn = (title: string) => `${title}
${'The landlord wants the meter readings from the last three months, and I copied them from the boiler panel on Sunday evening. '.repeat(7)}
| month | reading |
|---|---|
| August | 1,204 |

\`\`\`text
boiler: pressure 1.4 bar
\`\`\``;

/** The `model` of each streamed answer request from index `from` on. */
const answerModels = (from: number) =>
  mock.requests.slice(from).flatMap((r) => (r.path.endsWith('/chat/completions') && r.body?.stream === true ? [r.body.model] : []));

async function ask(page: Page, text: string, count: number): Promise<number> {
  const from = mock.requests.length;
  await sendMessage(page, text);
  await waitForMessages(page, count);
  return from;
}

test("a conversation's own model reaches the endpoint; another conversation keeps the default", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  const picker = page.getByTestId('model-picker').getByLabel('Model for this conversation', { exact: true });

  // Conversation A: the endpoint's listed "big-model".
  await page.getByRole('button', { name: '+ New conversation' }).click();
  let from = await ask(page, turn('Heating readings for the landlord'), 2);
  expect(answerModels(from)).toEqual(['mock-model']);
  await expect(picker).toHaveValue('default');
  await expect(picker.locator('option', { hasText: 'big-model' })).toHaveCount(1);
  await picker.selectOption({ label: 'big-model' });
  from = await ask(page, 'And the reading for September, from the same table?', 4);
  expect(answerModels(from)).toEqual(['big-model']);
  await page.getByRole('button', { name: 'what was sent' }).last().click();
  await expect(page.getByTestId('sent-model')).toHaveText('big-model');
  await page.getByRole('button', { name: 'Close what was sent' }).click();

  // Conversation B keeps the default of Settings.
  await page.getByRole('button', { name: '+ New conversation' }).click();
  from = await ask(page, turn('Garden plans for the allotment'), 2);
  expect(answerModels(from)).toEqual(['mock-model']);
  await expect(picker).toHaveValue('default');

  // Back in A after a reload: the choice was stored; then a name typed by hand.
  await page.reload();
  await conversationRow(page, 'Heating readings').click();
  await expect(picker).toHaveValue('endpoint:big-model');
  await picker.selectOption({ label: 'Another endpoint model…' });
  await page.getByLabel('Endpoint model name').fill('qwen2.5:14b');
  await page.getByRole('button', { name: 'Use', exact: true }).click();
  await expect(picker).toHaveValue('endpoint:qwen2.5:14b');
  from = await ask(page, 'Which month had the highest reading?', 6);
  expect(answerModels(from)).toEqual(['qwen2.5:14b']);
});

test('the built-in model on this device as the default, the endpoint picked for one conversation', async ({ page, context }) => {
  test.setTimeout(180_000);
  await context.addInitScript(installLanguageModelStub, { availability: 'available' as const, pieceMs: 20, pieces: 4 });
  await page.goto('/');
  await connectEndpoint(page, mock.url, { keepOpen: true });
  await page.getByRole('region', { name: 'This device' }).getByRole('radio', { name: 'Built-in model (Chrome)' }).click();
  await page.getByRole('button', { name: 'Close settings' }).click();
  const picker = page.getByTestId('model-picker').getByLabel('Model for this conversation', { exact: true });
  const devicePrompts = () =>
    page.evaluate(() => (window as unknown as { __languageModelStub: LanguageModelStubLog }).__languageModelStub.prompts.length);

  // The default is the model on this device: the endpoint streams nothing for the answer.
  await page.getByRole('button', { name: '+ New conversation' }).click();
  const before = await devicePrompts();
  let from = await ask(page, turn('Heating readings for the landlord'), 2);
  expect(answerModels(from)).toEqual([]);
  expect(await devicePrompts()).toBeGreaterThan(before);
  await expect(page.getByTestId('message').last()).toContainText('word1 word2');
  await expect(picker).toHaveValue('default');
  await expect(picker.locator('option[value="default"]')).toHaveText('Default (Built-in model (Chrome))');

  // This conversation picks the endpoint's model: its next answer goes there, and stays after a reload.
  await picker.selectOption({ label: 'big-model' });
  from = await ask(page, 'And the reading for September, from the same table?', 4);
  expect(answerModels(from)).toEqual(['big-model']);
  await page.reload();
  // The only conversation (its title was written by the model on this device).
  await page.getByRole('navigation', { name: 'Conversations' }).locator('button.conversation').first().click();
  await expect(picker).toHaveValue('endpoint:big-model');
});
