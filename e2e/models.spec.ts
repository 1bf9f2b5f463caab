import { expect, test } from '@playwright/test';

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

  await page.getByRole('button', { name: 'Models' }).click();
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
