/**
 * Import… → Replace memory with a file whose episodes are not synthesised (as `npm run import`
 * writes them) asks for a policy with the cost estimate before any call reaches the endpoint.
 */
import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint } from './appSteps';
import { writeUnsynthesisedMemory } from './fixtureMemory';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
test.afterAll(async () => mock.close());

test('restoring unsynthesised history shows the estimate and spends nothing until a policy is chosen', async ({ page }, info) => {
  const path = info.outputPath('history.sqlite');
  await writeUnsynthesisedMemory(path);

  await page.goto('/');
  await connectEndpoint(page, mock.url);
  const before = mock.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
  await page.getByLabel('Import database file').setInputFiles(path);
  await page.getByRole('button', { name: 'Replace memory' }).click();
  const dialog = page.getByRole('dialog', { name: 'Synthesise the restored memory?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('15 messages');
  await expect(dialog.getByTestId('restore-estimate-eager')).toContainText(/\d+ calls, ~[\d,]+ tokens/);
  await page.waitForTimeout(3_000); // the old behaviour spent within seconds
  expect(mock.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBe(before);

  await dialog.getByRole('radio', { name: /Eager/ }).check();
  await dialog.getByRole('button', { name: 'Use this policy' }).click();
  await expect(dialog).toBeHidden();
  await expect
    .poll(() => mock.requests.filter((r) => r.path.endsWith('/chat/completions')).length, { timeout: 30_000 })
    .toBeGreaterThan(before);
});
