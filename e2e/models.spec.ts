import { expect, test } from '@playwright/test';
import { chooseFromMore } from './moreMenu';

test('the bundled model embeds a stored turn in the model worker with the network blocked', async ({ page, context }) => {
  const outside: string[] = [];
  await context.route(/^(?!http:\/\/(127\.0\.0\.1|localhost)[:/]).*/, (route) => {
    outside.push(route.request().url());
    return route.abort();
  });
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  await box.fill('I adopted a puppy from the shelter last weekend.');
  await box.press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(1);
  await box.fill('The quarterly earnings report shows revenue fell sharply.');
  await box.press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(2);

  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('embedding-status')).toContainText('Offline GloVe 100-d');
  await expect(page.getByTestId('embedded-count')).toHaveText('2');
  await expect(page.getByTestId('model-embedder-Xenova/all-MiniLM-L6-v2')).toContainText('Download');
  await page.getByRole('button', { name: 'Close models' }).click();

  // No word in common with the stored turn: only search by meaning can find it.
  await page.getByLabel('Search memory').fill('my new dog');
  await expect(page.getByTestId('search-hit')).toHaveCount(0);
  await expect(page.getByTestId('semantic-hit').first()).toContainText('adopted a puppy');
  expect(outside).toEqual([]);
});

test('downloading a model is an explicit action with progress, cached for offline use', async ({ page, context }) => {
  // Stand in for the Hugging Face Hub: serve the bundled model's files under a catalog id, so the
  // real download path (transformers.js fetch → browser Cache API) runs without the internet.
  const served: string[] = [];
  await context.route(/^https:\/\/huggingface\.co\/Xenova\/all-MiniLM-L6-v2\/resolve\/main\/(.+)$/, async (route) => {
    const file = new URL(route.request().url()).pathname.split('/resolve/main/')[1]!;
    served.push(file);
    const local = await page.request.get(`/models/recollect/glove-100d-sif/${file}`);
    if (!local.ok()) return route.fulfill({ status: 404, body: 'not found' });
    if (file.endsWith('.onnx')) await new Promise((r) => setTimeout(r, 1500)); // long enough to see progress
    return route.fulfill({
      status: 200,
      body: await local.body(),
      headers: { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*' },
    });
  });
  await context.route(/^(?!http:\/\/(127\.0\.0\.1|localhost)[:/])(?!https:\/\/huggingface\.co\/Xenova\/all-MiniLM-L6-v2\/).*/, (route) =>
    route.abort(),
  );

  await page.goto('/');
  await chooseFromMore(page, 'Models');
  const row = page.getByTestId('model-embedder-Xenova/all-MiniLM-L6-v2');
  await expect(row).toContainText('download');
  expect(served).toEqual([]); // nothing is fetched until the user asks
  await row.getByRole('button', { name: /Download/ }).click();
  await expect(row.getByRole('progressbar', { name: /Downloading/ })).toBeVisible();
  await expect(row).toContainText('downloaded', { timeout: 30_000 });
  await expect(row.getByRole('button', { name: 'Use' })).toBeVisible();
  expect(served).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx']));

  // Cached by the browser: still listed as downloaded after a reload, with the Hub unreachable.
  await context.unroute(/^https:\/\/huggingface\.co\/Xenova\/all-MiniLM-L6-v2\/resolve\/main\/(.+)$/);
  await context.route(/^https:\/\/huggingface\.co\//, (route) => route.abort());
  await page.reload();
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('model-embedder-Xenova/all-MiniLM-L6-v2')).toContainText('downloaded');
});
