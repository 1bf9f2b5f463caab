import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ apiKey: 'right-key', models: ['mock-small', 'mock-large'] });
});
test.afterAll(async () => mock.close());

test('configure the LLM endpoint: presets, model list, test connection, save; the key is never shown', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByTestId('endpoint-state')).toContainText('No endpoint configured');

  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Ollama (local)' }).click();
  await expect(page.getByLabel('Base URL')).toHaveValue('http://localhost:11434/v1');
  await expect(page.getByTestId('preset-note')).toContainText('OLLAMA_ORIGINS');

  await page.getByLabel('Base URL').fill(mock.url);
  await page.getByLabel('API key').fill('wrong-key');
  await page.getByLabel('Model', { exact: true }).fill('mock-small');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('✗');

  await page.getByLabel('API key').fill('right-key');
  await page.getByRole('button', { name: 'List models' }).click();
  await expect(page.locator('#llm-models option')).toHaveCount(2);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('✓');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('endpoint-state')).toContainText('In use: mock-small');
  await expect(page.getByTestId('endpoint-state')).toContainText('(with key)');

  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByTestId('endpoint-state')).toContainText('In use: mock-small');
  await expect(page.getByLabel('API key')).toHaveValue('');
  expect(await page.content()).not.toContain('right-key');
});
