/**
 * "Delete download", the whole path in the built app: random-weight models from a local model hub
 * on 127.0.0.1 (scripts/build-test-models.mjs, build-test-llm.mjs) stand in for the Hugging Face
 * Hub. A downloaded model in use cannot be deleted and says why; once another model is chosen, the
 * confirmation says the size it frees, the files leave the browser cache, the row offers the
 * download again (also after a reload), and the space freed is what the cached files held.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { openWithModelHub, printPageOnFailure, useModelHub } from './appSteps';
import { chooseFromMore } from './moreMenu';

const MINILM = 'Xenova/all-MiniLM-L6-v2';
const MSMARCO = 'Xenova/ms-marco-MiniLM-L-6-v2';
const SMOL = 'HuggingFaceTB/SmolLM2-135M-Instruct';

const hub = useModelHub({ llms: true });
printPageOnFailure();

const openWithHub = (page: Page, context: BrowserContext) => openWithModelHub(page, context, hub.url);

/** The transformers.js browser cache's entries for `repo`. */
const cachedFiles = (page: Page, repo: string) =>
  page.evaluate(async (r) => {
    const cache = await caches.open('transformers-cache');
    return (await cache.keys()).map((req) => req.url).filter((u) => u.includes(`/${r}/`));
  }, repo);

/**
 * The bytes `repo`'s cached files hold (their Content-Length), shown as the app formats sizes. The
 * browser's storage estimate is not checked: headless Chromium's stayed the same after the files
 * were deleted, even across a reload (the design notes call it unreliable there).
 */
const cachedSize = (page: Page, repo: string) =>
  page.evaluate(async (r) => {
    const cache = await caches.open('transformers-cache');
    let n = 0;
    for (const req of await cache.keys())
      if (req.url.includes(`/${r}/`)) n += Number((await cache.match(req))?.headers.get('content-length') ?? 0);
    const units = ['KB', 'MB', 'GB'];
    let v = n / 1024;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return n < 1024 ? `${n} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
  }, repo);

test('an embedder and a reranker: in use they cannot be deleted; chosen away, Delete download frees their files and offers the download again', async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  await openWithHub(page, context);
  await chooseFromMore(page, 'Models');
  const status = page.getByTestId('embedding-status');
  const row = page.getByTestId(`model-embedder-${MINILM}`);
  const rowText = (await row.textContent()) ?? '';
  const size = /([\d.,]+ [KMG]B) download/.exec(rowText)?.[1];
  expect(size, rowText).toBeTruthy();
  // Bundled models have nothing to delete.
  await expect(
    page.getByTestId('model-embedder-recollect/glove-100d-sif').getByRole('button', { name: /Delete the download/ }),
  ).toHaveCount(0);

  await row.getByRole('button', { name: /^Download/ }).click();
  await expect(row.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
  expect((await cachedFiles(page, MINILM)).length).toBe(4);
  await row.getByRole('button', { name: 'Use' }).click();
  await expect(status).toContainText('uses all-MiniLM-L6-v2', { timeout: 90_000 });

  // In use: disabled, with the reason on the row.
  const del = row.getByRole('button', { name: 'Delete the download of all-MiniLM-L6-v2' });
  await expect(del).toBeDisabled();
  await expect(row.getByTestId('delete-blocked')).toHaveText('In use: choose another embedding model before deleting its download.');

  // A reranker in use: the same.
  const reranker = page.getByTestId(`model-reranker-${MSMARCO}`);
  await reranker.getByRole('button', { name: /^Download/ }).click();
  await expect(reranker.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
  await reranker.getByRole('button', { name: 'Use' }).click();
  await expect(reranker.getByRole('button', { name: 'In use' })).toBeVisible({ timeout: 60_000 });
  await expect(reranker.getByRole('button', { name: /Delete the download/ })).toBeDisabled();
  await expect(reranker.getByTestId('delete-blocked')).toContainText('choose another reranker');

  // Chosen away: the bundled embedder again, no reranker.
  await page.getByTestId('model-embedder-recollect/glove-100d-sif').getByRole('button', { name: 'Use' }).click();
  await expect(status).toContainText('uses Offline GloVe 100-d', { timeout: 90_000 });
  await expect(status).not.toContainText('Re-embedding');
  await page.getByRole('region', { name: 'Rerankers' }).getByRole('listitem').first().getByRole('button', { name: 'Use' }).click();
  await expect(reranker.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 30_000 });
  await expect(del).toBeEnabled();
  await expect(row.getByTestId('delete-blocked')).toHaveCount(0);

  const freed = await cachedSize(page, MINILM);
  await del.click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete all-MiniLM-L6-v2' });
  await expect(confirm).toContainText(`This frees about ${size}.`);
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused(); // the safe button
  await confirm.getByRole('button', { name: `Delete download (${size})` }).click();

  await expect(row.getByTestId('download-deleted')).toContainText(`Deleted the download of all-MiniLM-L6-v2: ${freed} freed.`, {
    timeout: 30_000,
  });
  await expect(row).toContainText(`${size} download`);
  await expect(row.getByRole('button', { name: `Download (${size})` })).toBeVisible();
  await expect(row.getByRole('button', { name: 'Use' })).toHaveCount(0);
  expect(await cachedFiles(page, MINILM)).toEqual([]);
  expect((await cachedFiles(page, MSMARCO)).length).toBe(4); // only the model asked for

  // After a reload it is still a download to make; downloading again works.
  await page.reload();
  await chooseFromMore(page, 'Models');
  await expect(row.getByRole('button', { name: `Download (${size})` })).toBeVisible({ timeout: 30_000 });
  await row.getByRole('button', { name: /^Download/ }).click();
  await expect(row.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
});

test('a model on this device: chosen it cannot be deleted; with the endpoint chosen, Delete download frees it', async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  await openWithHub(page, context);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByRole('region', { name: 'This device' });
  const smol = section.getByTestId(`device-model-${SMOL}`);
  await smol.getByRole('button', { name: 'Download SmolLM2 135M Instruct' }).click();
  await expect(smol).toContainText('Downloaded', { timeout: 60_000 });
  await smol.getByRole('radio', { name: /SmolLM2 135M Instruct/ }).click();
  await expect(section.getByTestId('device-llm-state')).toContainText('In use: SmolLM2 135M Instruct', { timeout: 60_000 });
  const del = smol.getByRole('button', { name: 'Delete the download of SmolLM2 135M Instruct' });
  await expect(del).toBeDisabled();
  await expect(smol.getByTestId('delete-blocked')).toContainText('In use: answers come from it.');

  await section.getByRole('radio', { name: 'The endpoint above' }).click();
  await expect(del).toBeEnabled({ timeout: 30_000 });
  expect((await cachedFiles(page, SMOL)).length).toBeGreaterThan(0);
  const freed = await cachedSize(page, SMOL);
  await del.click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete SmolLM2 135M Instruct' });
  await expect(confirm).toContainText(/This frees about [\d.,]+ MB\./);
  await confirm.getByRole('button', { name: /^Delete download/ }).click();
  await expect(smol.getByTestId('download-deleted')).toContainText(`Deleted the download of SmolLM2 135M Instruct: ${freed} freed.`, {
    timeout: 30_000,
  });
  await expect(smol.getByRole('button', { name: 'Download SmolLM2 135M Instruct' })).toBeVisible();
  await expect(smol.getByRole('radio', { name: /SmolLM2 135M Instruct/ })).toBeDisabled();
  expect(await cachedFiles(page, SMOL)).toEqual([]);
});
