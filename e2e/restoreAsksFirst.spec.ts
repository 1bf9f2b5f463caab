/**
 * Import… → Replace memory with a file whose episodes are not synthesised (as `npm run import`
 * writes them) asks for a policy with the cost estimate before any call reaches the endpoint.
 */
import { expect, test } from '@playwright/test';
import { writeFile } from 'node:fs/promises';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { createEngine } from '../src/host/createEngine';
import { connectEndpoint } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
test.afterAll(async () => mock.close());

test('restoring unsynthesised history shows the estimate and spends nothing until a policy is chosen', async ({ page }, info) => {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['episodes'] });
  await engine.start();
  await store.createConversation({ id: 'c', title: 'cello practice' });
  for (let d = 0; d < 5; d++) {
    for (let i = 0; i < 3; i++) {
      await engine.appendTurn({ id: `t${d}-${i}`, conversationId: 'c', role: 'user', content: `Day ${d}: I practised the cello and worked on the Bach suite, part ${i}.`, occurredAt: Date.UTC(2023, 4, 1) + d * 86_400_000 + i * 60_000 });
    }
  }
  await engine.idle();
  await store.setMeta('consolidation.policy', 'eager');
  const path = info.outputPath('history.sqlite');
  await writeFile(path, await store.exportDatabase());

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
  await expect.poll(() => mock.requests.filter((r) => r.path.endsWith('/chat/completions')).length, { timeout: 30_000 }).toBeGreaterThan(before);
});
