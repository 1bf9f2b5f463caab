/**
 * Downloaded models, the whole path in the built app: a local model hub on 127.0.0.1 (random-weight
 * models of the catalog's architectures, scripts/build-test-models.mjs) stands in for the Hugging
 * Face Hub; the app is pointed at it through its model-hub setting. Everything else outside this
 * machine is blocked. The browser runs with --disable-gpu, so WebGPU falls back to WASM.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { loadDatabaseFile } from '../src/storage/openNodeDatabase';
import { messageBox, openWithModelHub, printPageOnFailure, useModelHub } from './appSteps';
import { chooseFromMore } from './moreMenu';

const MINILM = 'Xenova/all-MiniLM-L6-v2';
const MSMARCO = 'Xenova/ms-marco-MiniLM-L-6-v2';
const BGE = 'Xenova/bge-small-en-v1.5';
const MXBAI = 'mixedbread-ai/mxbai-rerank-xsmall-v1';
const E5 = 'Xenova/multilingual-e5-small';
const PUPPY = 'I adopted a puppy from the shelter last weekend and named him Biscuit.';
const EARNINGS = 'The quarterly earnings report shows revenue fell sharply in the north.';

const hub = useModelHub();
printPageOnFailure();

const openWithHub = (page: Page, context: BrowserContext) => openWithModelHub(page, context, hub.url);

async function send(page: Page, text: string, count: number) {
  await messageBox(page).fill(text);
  await messageBox(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(count);
}

async function download(page: Page, kind: 'embedder' | 'reranker', id: string) {
  const row = page.getByTestId(`model-${kind}-${id}`);
  await row.getByRole('button', { name: /Download/ }).click();
  return row;
}

/**
 * Searches for a made-up word no turn contains, so every hit comes from search by meaning. The
 * bundled GloVe model gives an unknown word no vector (no hits); a transformer's WordPiece spells
 * it out and finds every turn (random weights: the order says nothing, the count says which
 * model's vectors were searched).
 */
async function expectMeaningHits(page: Page, count: number) {
  await page.getByLabel('Search memory').fill('qzxvbw');
  await expect(page.getByText('Nothing stored matches these words.')).toBeVisible({ timeout: 30_000 });
  if (count === 0) await expect(page.getByText('No other messages are close in meaning.')).toBeVisible({ timeout: 30_000 });
  else await expect(page.getByTestId('semantic-hit')).toHaveCount(count, { timeout: 60_000 });
  await page.getByLabel('Search memory').fill('');
}

/** Two turns in a new conversation, and MiniLM downloaded (not used yet), the Models panel open. */
async function twoTurnsAndMiniLm(page: Page, context: BrowserContext) {
  await openWithHub(page, context);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, PUPPY, 1);
  await send(page, EARNINGS, 2);
  await chooseFromMore(page, 'Models');
  const status = page.getByTestId('embedding-status');
  const row = await download(page, 'embedder', MINILM);
  await expect(row.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
  return { status, row };
}

/** The browser's copy of MiniLM's weights gets damaged (a disk error, a bad copy): no longer a model. */
async function damageMiniLm(page: Page) {
  await page.evaluate(async (url) => {
    const cache = await caches.open('transformers-cache');
    await cache.put(url, new Response(new Uint8Array(4096).fill(0x5a), { headers: { 'content-length': '4096' } }));
  }, `${hub.url}${MINILM}/resolve/main/onnx/model_quantized.onnx`);
}

async function storedVectors(page: Page, path: string) {
  const downloadPromise = page.waitForEvent('download');
  await chooseFromMore(page, 'Export');
  await (await downloadPromise).saveAs(path);
  const db = await loadDatabaseFile(path, { migrateSchema: false });
  return db.query<{ model_id: string; dim: number; n: number }>(
    "SELECT model_id, dim, count(*) AS n FROM vectors WHERE item_kind = 'message' GROUP BY model_id, dim",
  );
}

test('an embedder: download with progress, use, search by meaning, reload, offline reload, switch back', async ({
  page,
  context,
}, info) => {
  test.setTimeout(180_000);
  await openWithHub(page, context);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, PUPPY, 1);
  await send(page, EARNINGS, 2);

  await expectMeaningHits(page, 0); // the bundled model has no vector for an unknown word
  await chooseFromMore(page, 'Models');
  const row = page.getByTestId(`model-embedder-${MINILM}`);
  await expect(row).toContainText('384 dimensions');
  expect(hub.requests.filter((r) => r.startsWith(MINILM))).toEqual([]); // nothing until asked
  hub.slowOnnxMs = 1_500;
  await download(page, 'embedder', MINILM);
  await expect(row.getByRole('progressbar', { name: /Downloading/ })).toBeVisible();
  await expect(row).toContainText('downloaded', { timeout: 60_000 });
  hub.slowOnnxMs = 0;
  await row.getByRole('button', { name: 'Use' }).click();
  const status = page.getByTestId('embedding-status');
  await expect(status).toContainText('Search by meaning uses all-MiniLM-L6-v2', { timeout: 90_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('2');
  await expect(status).not.toContainText('Re-embedding');
  // The model that embeds is the one Compute shows, on WASM (no GPU in this browser).
  await expect(page.getByTestId('embedder-model')).toHaveText(MINILM);
  await expect(page.getByTestId('embedder-device')).toHaveText('WASM');
  await page.getByRole('button', { name: 'Close models' }).click();

  // Stored vectors are the new model's, 384-dimensional, one per turn.
  expect(await storedVectors(page, info.outputPath('after-switch.sqlite'))).toEqual([{ model_id: `${MINILM}@q8`, dim: 384, n: 2 }]);
  await expectMeaningHits(page, 2);

  // Reload: still the downloaded model, loaded from the browser cache.
  const before = hub.requests.length;
  await page.reload();
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('embedding-status')).toContainText('uses all-MiniLM-L6-v2');
  await page.getByRole('button', { name: 'Close models' }).click();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, 'My sister Priya moved to Lisbon in March.', 1);
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('embedded-count')).toHaveText('3', { timeout: 60_000 }); // the model loads from the cache first
  await expect(page.getByTestId('embedder-model')).toHaveText(MINILM);
  await page.getByRole('button', { name: 'Close models' }).click();
  expect(hub.requests.slice(before)).toEqual([]);

  // Offline reload: the service worker serves the app, the model comes from the cache.
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
  await context.setOffline(true);
  await page.reload();
  await expectMeaningHits(page, 3);
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('embedder-model')).toHaveText(MINILM);
  await expect(page.getByTestId('embedding-status')).toContainText('uses all-MiniLM-L6-v2');

  // Switch back to the bundled model (still offline): everything is re-embedded with it.
  await page.getByTestId('model-embedder-recollect/glove-100d-sif').getByRole('button', { name: 'Use' }).click();
  await expect(page.getByTestId('embedding-status')).toContainText('uses Offline GloVe 100-d', { timeout: 90_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('3');
  await expect(page.getByTestId('embedder-model')).toHaveText('recollect/glove-100d-sif');
  await page.getByRole('button', { name: 'Close models' }).click();
  await expectMeaningHits(page, 0);
  await context.setOffline(false);
  expect(await storedVectors(page, info.outputPath('switched-back.sqlite'))).toEqual([
    { model_id: 'recollect/glove-100d-sif@1', dim: 100, n: 3 },
  ]);
});

test('a reranker: download, use, kept across a reload; a broken download says why and is not offered for use', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await openWithHub(page, context);
  await chooseFromMore(page, 'Models');
  const row = await download(page, 'reranker', MSMARCO);
  await expect(row).toContainText('downloaded', { timeout: 60_000 });
  await row.getByRole('button', { name: 'Use' }).click();
  await expect(row.getByRole('button', { name: 'In use' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('reranker-model')).toHaveText(MSMARCO);

  await page.reload();
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId(`model-reranker-${MSMARCO}`).getByRole('button', { name: 'In use' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('reranker-model')).toHaveText(MSMARCO);

  // A file that is missing on the hub (404 part-way through the files): a clear error, no "Use".
  hub.fault(`${BGE}/onnx/model_quantized.onnx`, '404');
  const bge = await download(page, 'embedder', BGE);
  await expect(page.getByRole('alert').filter({ hasText: 'Downloading "BGE small en v1.5" failed' })).toContainText(
    'the model hub has no file "onnx/model_quantized.onnx" for it (HTTP 404)',
    { timeout: 30_000 },
  );
  await expect(bge.getByRole('button', { name: /Download/ })).toBeVisible();
  hub.fault(`${BGE}/onnx/model_quantized.onnx`, null);
  // Healed on the hub: a retry fetches every file again (nothing half-downloaded was kept) and works.
  await bge.getByRole('button', { name: /Download/ }).click();
  await expect(bge).toContainText('downloaded', { timeout: 60_000 });

  // A corrupt model file: the same, and the reranker in use stays in use.
  hub.fault(`${MXBAI}/onnx/model_quantized.onnx`, 'corrupt');
  const mxbai = await download(page, 'reranker', MXBAI);
  await expect(page.getByRole('alert').filter({ hasText: 'Downloading "mxbai-rerank xsmall v1" failed' })).toBeVisible({ timeout: 30_000 });
  await expect(mxbai.getByRole('button', { name: /Download/ })).toBeVisible();
  await expect(page.getByTestId(`model-reranker-${MSMARCO}`).getByRole('button', { name: 'In use' })).toBeVisible();
  hub.fault(`${MXBAI}/onnx/model_quantized.onnx`, null);
});

/** Waits until the hub has been asked for `repo`'s weights (held by holdOnnx: the download is under way). */
async function weightsRequested(repo: string, since: number) {
  await expect
    .poll(() => hub.requests.slice(since).some((r) => r.startsWith(`${repo}/`) && r.endsWith('.onnx')), { timeout: 60_000 })
    .toBe(true);
}

test('a download: cancel half-way and start again; a reload mid-download offers to finish; offline says so and the model in use stays', async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  await openWithHub(page, context);
  await chooseFromMore(page, 'Models');
  const status = page.getByTestId('embedding-status');
  await expect(status).toContainText('uses Offline GloVe 100-d');

  // Cancel half-way: the hub holds the model file, so the download stays in progress until cancelled.
  let release = hub.holdOnnx();
  let since = hub.requests.length;
  const bge = await download(page, 'embedder', BGE);
  await expect(bge.getByRole('progressbar', { name: /Downloading/ })).toBeVisible();
  await weightsRequested(BGE, since);
  await bge.getByRole('button', { name: 'Cancel download' }).click();
  await expect(bge.getByTestId('download-stopped')).toContainText('Downloading "BGE small en v1.5" was cancelled', { timeout: 30_000 });
  release();
  await expect(bge.getByRole('progressbar')).toHaveCount(0);
  // The small files that arrived are kept; nothing half-stored is offered for use.
  await expect(bge.getByRole('button', { name: /^Finish download/ })).toBeVisible();
  await expect(bge.getByRole('button', { name: 'Use' })).toHaveCount(0);
  await expect(status).toContainText('uses Offline GloVe 100-d');

  // Start again: only the file that had not arrived is fetched, and the model is usable.
  const before = hub.requests.length;
  await bge.getByRole('button', { name: /^Finish download/ }).click();
  await expect(bge.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
  expect(hub.requests.slice(before).filter((r) => !r.endsWith('.onnx'))).toEqual([]);
  await bge.getByRole('button', { name: 'Use' }).click();
  await expect(status).toContainText('uses BGE small en v1.5', { timeout: 90_000 });

  // A reload mid-download: the row offers to finish it, and finishing works.
  release = hub.holdOnnx();
  since = hub.requests.length;
  await download(page, 'reranker', MXBAI);
  await weightsRequested(MXBAI, since);
  await page.reload();
  release();
  await chooseFromMore(page, 'Models');
  const mxbai = page.getByTestId(`model-reranker-${MXBAI}`);
  await expect(mxbai.getByTestId('download-partial')).toBeVisible();
  await mxbai.getByRole('button', { name: /^Finish download/ }).click();
  await expect(mxbai.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });

  // Offline: the download says so at once, and the embedder in use stays in use.
  await context.setOffline(true);
  const e5 = await download(page, 'embedder', E5);
  await expect(e5.getByRole('alert')).toContainText(/Downloading "multilingual-e5-small" failed: .*offline/, { timeout: 30_000 });
  await expect(e5.getByRole('button', { name: /download/i })).toBeVisible();
  await expect(e5.getByRole('button', { name: 'Use' })).toHaveCount(0);
  await expect(page.getByTestId('embedding-status')).toContainText('uses BGE small en v1.5');
  await expect(page.getByTestId('embedder-model')).toHaveText(BGE);
  await context.setOffline(false);
});

test('a downloaded model whose file is damaged: Use keeps the last working model and says why; downloaded again, it loads in the same tab', async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  const { status, row } = await twoTurnsAndMiniLm(page, context);

  await damageMiniLm(page);
  await row.getByRole('button', { name: 'Use' }).click();
  await expect(status).toContainText('Switching to', { timeout: 90_000 });
  await expect(status).toContainText(
    /all-MiniLM-L6-v2" are damaged \(onnx\/model_quantized\.onnx is not an ONNX model: .*so they were removed\. Download it again/,
  );
  await expect(status).toContainText('uses Offline GloVe 100-d');
  await expect(page.getByTestId('embedded-count')).toHaveText('2');
  await expect(page.getByTestId('embedder-model')).toHaveText('recollect/glove-100d-sif');
  await page.getByRole('button', { name: 'Close models' }).click();
  await expectMeaningHits(page, 0); // search still uses the bundled model's vectors

  // Downloaded again, the model loads in the same tab: the failed load left nothing behind.
  await chooseFromMore(page, 'Models');
  await row.getByRole('button', { name: /^Download/ }).click();
  await expect(row.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
  await row.getByRole('button', { name: 'Use' }).click();
  await expect(status).toContainText('uses all-MiniLM-L6-v2', { timeout: 90_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('2');
  await expect(status).not.toContainText('Switching to');
  await expect(page.getByTestId('embedder-model')).toHaveText(MINILM);
  await page.getByRole('button', { name: 'Close models' }).click();
  await expectMeaningHits(page, 2);
});

test('Compute and the Memory overview name the embedder that embeds (id, dimension, device) after a switch, and the reranker in use after a reload', async ({
  page,
  context,
}, info) => {
  test.setTimeout(240_000);
  await openWithHub(page, context);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, PUPPY, 1);
  await send(page, EARNINGS, 2);
  await chooseFromMore(page, 'Models');
  // Before: the bundled model, 100-dimensional, and no reranker.
  await expect(page.getByTestId('embedder-dim')).toHaveText('100', { timeout: 60_000 });
  await expect(page.getByTestId('reranker-model')).toHaveCount(0);
  const row = await download(page, 'embedder', MINILM);
  await expect(row.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
  await row.getByRole('button', { name: 'Use' }).click();
  await expect(page.getByTestId('embedding-status')).toContainText('uses all-MiniLM-L6-v2', { timeout: 90_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('2');
  const reranker = await download(page, 'reranker', MSMARCO);
  await expect(reranker.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
  await reranker.getByRole('button', { name: 'Use' }).click();
  await expect(reranker.getByRole('button', { name: 'In use' })).toBeVisible({ timeout: 60_000 });
  // Compute: the model worker's loaded embedder, with the dimension of the vectors it produces.
  await expect(page.getByTestId('embedder-model')).toHaveText(MINILM);
  await expect(page.getByTestId('embedder-dim')).toHaveText('384');
  await expect(page.getByTestId('embedder-device')).toHaveText('WASM');
  await expect(page.getByTestId('reranker-model')).toHaveText(MSMARCO);
  await page.getByRole('button', { name: 'Close models' }).click();

  // The stored vectors are that model's, of that dimension: what Compute and the overview say is what embeds.
  const [stored] = await storedVectors(page, info.outputPath('switched.sqlite'));
  expect(stored).toEqual({ model_id: `${MINILM}@q8`, dim: 384, n: 2 });
  const expectOverview = async () => {
    // The explorer may be open already (a search opens it): then only its Overview tab is needed.
    const overviewTab = page.getByRole('tab', { name: 'Overview', exact: true });
    if (!(await overviewTab.isVisible())) await page.getByRole('button', { name: 'Memory', exact: true }).click();
    await overviewTab.click();
    const overview = page.getByTestId('explorer-overview');
    await expect(overview.getByTestId('overview-embedder-model')).toHaveText(MINILM, { timeout: 30_000 });
    await expect(overview.getByTestId('overview-embedder-dim')).toHaveText(String(stored!.dim));
    await expect(overview.getByTestId('overview-backends')).toContainText('Embedder runs on WASM');
    await expect(overview.getByTestId('overview-reranker-model')).toHaveText(MSMARCO, { timeout: 30_000 });
    await expect(overview.getByTestId('overview-reranker')).toContainText(/on (WASM|not loaded yet)/);
  };
  await expectOverview();

  // After a reload: the same embedder (loaded from the cache) and the reranker choice kept.
  await page.reload();
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId(`model-reranker-${MSMARCO}`).getByRole('button', { name: 'In use' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('reranker-model')).toHaveText(MSMARCO);
  await expect(page.getByTestId('embedder-model')).toHaveText(MINILM, { timeout: 30_000 });
  await page.getByRole('button', { name: 'Close models' }).click();
  await page.getByLabel('Search memory').fill('qzxvbw'); // a search loads the embedder (lazily, after a reload)
  await expect(page.getByTestId('semantic-hit')).toHaveCount(2, { timeout: 60_000 });
  await page.getByLabel('Search memory').fill('');
  await expectOverview();
});

test('a model file only onnxruntime finds broken does not keep the next model from loading in the tab', async ({ page, context }) => {
  test.setTimeout(240_000);
  await openWithHub(page, context);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, PUPPY, 1);
  await send(page, EARNINGS, 2);
  await chooseFromMore(page, 'Models');
  // The weights pass the download's shape check, but their graph does not parse: onnxruntime
  // rejects the session, which in transformers.js 4.3.1 fails every later session in that worker.
  hub.fault(`${MINILM}/onnx/model_quantized.onnx`, 'graph');
  const row = await download(page, 'embedder', MINILM);
  await expect(page.getByRole('alert').filter({ hasText: 'Downloading "all-MiniLM-L6-v2" failed' })).toBeVisible({ timeout: 60_000 });
  await expect(row.getByRole('button', { name: /^Download/ })).toBeVisible();
  hub.fault(`${MINILM}/onnx/model_quantized.onnx`, null);

  // Healed on the hub, the same tab downloads, loads and embeds with it (a fresh model worker).
  await row.getByRole('button', { name: /^Download/ }).click();
  await expect(row.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 90_000 });
  await row.getByRole('button', { name: 'Use' }).click();
  const status = page.getByTestId('embedding-status');
  await expect(status).toContainText('uses all-MiniLM-L6-v2', { timeout: 90_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('2');
  await expect(status).not.toContainText('Switching to');
  await expect(page.getByTestId('embedder-model')).toHaveText(MINILM);
  await expect(page.getByTestId('embedder-dim')).toHaveText('384');
  await page.getByRole('button', { name: 'Close models' }).click();
  await expectMeaningHits(page, 2);
});

test('the downloaded model in use gets damaged: Use on the bundled model brings search by meaning back with it', async ({
  page,
  context,
}, info) => {
  test.setTimeout(240_000);
  const { status, row } = await twoTurnsAndMiniLm(page, context);
  await row.getByRole('button', { name: 'Use' }).click();
  await expect(status).toContainText('uses all-MiniLM-L6-v2', { timeout: 90_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('2');

  // The weights of the model in use get damaged; after a reload it no longer loads.
  await damageMiniLm(page);
  await page.reload();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, 'My sister Priya moved to Lisbon in March.', 1);

  // Use on the bundled model: every turn is embedded with it, and search by meaning answers from it.
  await chooseFromMore(page, 'Models');
  await page.getByTestId('model-embedder-recollect/glove-100d-sif').getByRole('button', { name: 'Use' }).click();
  await expect(status).toContainText('uses Offline GloVe 100-d', { timeout: 90_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('3', { timeout: 60_000 });
  await expect(status).not.toContainText('Switching to');
  await expect(page.getByTestId('embedder-model')).toHaveText('recollect/glove-100d-sif');
  await page.getByRole('button', { name: 'Close models' }).click();
  await expectMeaningHits(page, 0);
  expect(await storedVectors(page, info.outputPath('back-to-bundled.sqlite'))).toEqual([
    { model_id: 'recollect/glove-100d-sif@1', dim: 100, n: 3 },
  ]);
});
