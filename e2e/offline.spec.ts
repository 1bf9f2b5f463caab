/**
 * Recollect as an installable, offline PWA: the service worker (workers/sw.ts) precaches
 * the app shell, the WASM and the bundled model; the manifest makes it installable; a new version
 * is offered, never forced.
 *
 * The update test serves dist/ from its own small static server so it can "deploy" a new version
 * mid-test: version 2 is the same build with a changed index.html and a service worker whose
 * precache manifest lists the new index.html revision — exactly what a rebuild that changed the
 * page produces, without running a second build inside the test.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { chooseFromMore } from './moreMenu';

const DIST = resolve('dist');

async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  await box.fill(text);
  await box.press('Enter');
  await expect(page.getByTestId('message').filter({ hasText: text })).toBeVisible();
}

/** Waits until a service worker is activated and controls the page; returns its script URL. */
async function activeServiceWorker(page: Page): Promise<string> {
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
  return page.evaluate(async () => (await navigator.serviceWorker.ready).active!.scriptURL);
}

test('after one visit the app opens and works offline: search, the bundled model, export', async ({ page, context }, info) => {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, 'The quarterly earnings report shows revenue fell sharply.');
  await send(page, 'My sister Priya moved to Lisbon in March.');
  expect(await activeServiceWorker(page)).toMatch(/\/sw\.js$/);

  await context.setOffline(true);
  // Really offline: a file the service worker does not precache cannot be fetched.
  expect(
    await page.evaluate(() =>
      fetch('/bench.html', { cache: 'no-store' }).then(
        () => 'online',
        () => 'offline',
      ),
    ),
  ).toBe('offline');
  await page.reload();

  // The app opens from the precache and its memory is there.
  await expect(page.getByTestId('status')).toBeVisible();
  await expect(page.getByTestId('message-count')).toHaveText('2');
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await page.getByLabel('Search memory').fill('where did priya move');
  await expect(page.getByTestId('search-hit').first()).toContainText('Lisbon');
  await page.getByLabel('Search memory').fill('');

  // A new turn is embedded by the bundled model, loaded offline as its word-vector lookup (static/
  // files from the precache; no inference runtime: Compute says it runs on the CPU, not WASM).
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await send(page, 'I adopted a puppy from the shelter last weekend.');
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('embedding-status')).toContainText('Offline GloVe 100-d');
  await expect(page.getByTestId('embedded-count')).toHaveText('3');
  await expect(page.getByTestId('embedder-device')).toHaveText('CPU');
  await page.getByRole('button', { name: 'Close models' }).click();
  // No word in common with the new turn: only search by meaning finds it.
  await page.getByLabel('Search memory').fill('my new dog');
  await expect(page.getByTestId('semantic-hit').first()).toContainText('adopted a puppy');
  await page.getByLabel('Search memory').fill('');

  // Export needs no network either.
  const downloadPromise = page.waitForEvent('download');
  await chooseFromMore(page, 'Export');
  const path = info.outputPath('offline-export.sqlite');
  await (await downloadPromise).saveAs(path);
  expect((await readFile(path)).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  await context.setOffline(false);
});

test('the web app manifest is valid, its icons are real PNGs, and the service worker precached the app', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', /^#[0-9a-f]{6}$/i);
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(csp).toContain("connect-src 'self'");

  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBeTruthy();
  const res = await page.request.get(href!);
  expect(res.ok()).toBe(true);
  const manifest = await res.json();
  expect(manifest).toMatchObject({ name: 'Recollect', short_name: 'Recollect', display: 'standalone', start_url: '/', scope: '/' });
  expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
  expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
  const icons = manifest.icons as { src: string; sizes: string; type: string; purpose?: string }[];
  expect(icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
  expect(icons.some((i) => i.purpose?.includes('maskable'))).toBe(true);
  for (const icon of icons) {
    expect(icon.type).toBe('image/png');
    const png = await (await page.request.get(icon.src)).body();
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(icon.sizes);
  }

  expect(await activeServiceWorker(page)).toMatch(/\/sw\.js$/);
  const precached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      if (!name.includes('precache')) continue;
      for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname);
    }
    return urls;
  });
  for (const expected of [
    '/index.html',
    '/ort/ort-wasm-simd-threaded.asyncify.wasm',
    '/ort/ort-wasm-simd-threaded.asyncify.mjs',
    '/models/recollect/glove-100d-sif/onnx/model_quantized.onnx',
    '/models/recollect/glove-100d-sif/tokenizer.json',
    '/manifest.webmanifest',
    '/models/recollect/glove-100d-sif/static/static.json',
    '/models/recollect/glove-100d-sif/static/vocab.txt',
    '/models/recollect/glove-100d-sif/static/embeddings.q8.bin',
  ]) {
    expect(precached).toContain(expected);
  }
  expect(precached.some((p) => /^\/assets\/wa-sqlite-.*\.wasm$/.test(p))).toBe(true);
  expect(precached.some((p) => /^\/assets\/engine\.worker-.*\.js$/.test(p))).toBe(true);
  expect(precached).not.toContain('/models/recollect/glove-100d-sif/onnx/model.onnx');
  expect(precached).not.toContain('/bench.html');
});

// ---- update ----------------------------------------------------------------------------------------

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.onnx': 'application/octet-stream',
  '.map': 'application/json',
};

interface Deployment {
  readonly url: string;
  version: 1 | 2;
  close(): Promise<void>;
}

/** A plain static server over dist/ that can switch to "version 2" (see the header comment). */
async function serveDist(): Promise<Deployment> {
  const indexV1 = await readFile(join(DIST, 'index.html'), 'utf8');
  const indexV2 = indexV1.replace('</head>', '<meta name="recollect-build" content="v2"></head>');
  const swV1 = await readFile(join(DIST, 'sw.js'), 'utf8');
  const swV2 = swV1.replace(/("revision":")[0-9a-f]+(","url":"index\.html")/, '$1v2-index$2');
  if (swV2 === swV1) throw new Error('dist/sw.js has no precache entry for index.html: the update test cannot stage a new version.');
  const deployment = { version: 1 } as Deployment;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const file = normalize(join(DIST, pathname === '/' ? '/index.html' : pathname));
      let body: Buffer | string;
      if (file === join(DIST, 'index.html')) body = deployment.version === 2 ? indexV2 : indexV1;
      else if (file === join(DIST, 'sw.js')) body = deployment.version === 2 ? swV2 : swV1;
      else if (file.startsWith(DIST)) body = await readFile(file).catch(() => '');
      else body = '';
      if (body === '') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : body);
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(deployment, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

test('a new version is detected and offered, and takes over only when the user clicks reload', async ({ page }) => {
  const deployment = await serveDist();
  try {
    await page.goto(deployment.url);
    await expect(page.getByTestId('status')).toBeVisible();
    await activeServiceWorker(page);
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await send(page, 'Half-written thoughts must survive an update check.');
    await page.evaluate(() => Object.assign(window, { stillTheSamePage: true }));

    deployment.version = 2;
    // What the browser does on navigation and the app does hourly (src/app/serviceWorkerUpdates.ts).
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
    const banner = page.getByTestId('update-banner');
    await expect(banner).toContainText('Update available');
    await page.waitForFunction(async () => (await navigator.serviceWorker.getRegistration())?.waiting?.state === 'installed');
    // Offered, not forced: the page was not reloaded and still runs version 1.
    expect(await page.evaluate(() => 'stillTheSamePage' in window)).toBe(true);
    await expect(page.locator('meta[name="recollect-build"]')).toHaveCount(0);
    await expect(page.getByTestId('message')).toHaveCount(1);

    await banner.getByRole('button', { name: 'Reload' }).click();
    await page
      .waitForFunction(() => !('stillTheSamePage' in window), null, { timeout: 30_000 })
      .catch(async (error: unknown) => {
        const seen = await page
          .evaluate(async () => {
            const r = await navigator.serviceWorker.getRegistration();
            return {
              banner: document.querySelector('[data-testid="update-banner"]')?.textContent,
              waiting: r?.waiting?.state,
              active: r?.active?.state,
              controller: navigator.serviceWorker.controller?.state,
            };
          })
          .catch(() => 'page not reachable');
        throw new Error(`The page did not reload after "Reload" was clicked; it shows ${JSON.stringify(seen)}. ${String(error)}`);
      });
    // The new service worker took over and served version 2's page from its precache.
    await expect(page.locator('meta[name="recollect-build"]')).toHaveAttribute('content', 'v2');
    expect(await page.evaluate(() => 'stillTheSamePage' in window)).toBe(false);
    await expect(page.getByTestId('status')).toBeVisible();
    await expect(page.getByTestId('message-count')).toHaveText('1');
    await expect(banner).toHaveCount(0);
    expect(
      await page.evaluate(async () => {
        const r = (await navigator.serviceWorker.getRegistration())!;
        return { waiting: r.waiting !== null, active: r.active?.state, controlled: navigator.serviceWorker.controller !== null };
      }),
    ).toEqual({ waiting: false, active: 'activated', controlled: true });
  } finally {
    await deployment.close();
  }
});
