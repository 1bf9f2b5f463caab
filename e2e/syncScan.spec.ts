/**
 * Joining sync from the recovery phrase's QR code (src/app/sync/ScanPhrase.tsx), in Debian
 * Chromium with its fake camera: each camera test launches a browser whose camera plays a Y4M
 * video of a QR code made in the test (test/support/qrImages.ts), since the video is fixed per
 * launch. Headless Chromium on Linux has no BarcodeDetector for QR codes, so this is jsQR's path.
 *
 * Device A turns sync on and shows its phrase; device B scans it with the camera, the phrase box
 * fills (nothing joins by itself), the camera stops, and Join brings B in. A code that is not a
 * phrase is refused by the camera and from a picture without touching what was typed; a picture
 * of the phrase fills the box; a picture with no code and a file that is no picture say so; a
 * refused camera points to the picture and to typing.
 */
import { chromium, expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableStreamTestServer } from '@durable-streams/server';
import { CHROMIUM_ARGS, chromiumExecutable } from './browser';
import { stopRelay } from '../test/support/relayServer';
import { noCodeImage, png, qrImage, y4m } from '../test/support/qrImages';

// A BIP-39 test vector: a valid phrase no relay holds (the picture tests never join with it).
const OTHER_PHRASE = 'letter advice cage absurd amount doctor acoustic avoid letter advice cage above';
const NOT_A_PHRASE = 'https://example.com/wifi?ssid=home';

let relay: DurableStreamTestServer;
let dir: string;
const browsers: Browser[] = [];
const contexts: BrowserContext[] = [];

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recollect-e2e-scan-'));
  relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'relay'), longPollTimeout: 2_000 });
  await relay.start();
});
test.afterAll(async () => {
  // Devices first: a device still long-polling a stopped relay makes it log errors.
  for (const c of contexts) await c.close();
  for (const b of browsers) await b.close();
  await stopRelay(relay);
  await rm(dir, { recursive: true, force: true });
});

/**
 * A Chromium whose camera films `text` as a QR code (640×480, the code 4 px a module), or whose
 * camera permission is refused (`text` null).
 */
async function cameraBrowser(text: string | null): Promise<Browser> {
  const args = [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream'];
  if (text === null) args.push('--use-fake-ui-for-media-stream=deny');
  else {
    const video = join(dir, `camera-${browsers.length}.y4m`);
    await writeFile(video, y4m(qrImage(text, { scale: 4, width: 640, height: 480 })));
    args.push('--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${video}`);
  }
  const executablePath = chromiumExecutable();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args });
  browsers.push(browser);
  return browser;
}

async function device(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible({ timeout: 30_000 });
  return page;
}

async function openSync(page: Page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByTestId('sync-section');
  await section.scrollIntoViewIfNeeded();
  return section;
}

/** Records every camera track the page opens, to check each is stopped. */
async function watchCameraTracks(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { cameraTracks: MediaStreamTrack[] };
    w.cameraTracks = [];
    const media = navigator.mediaDevices;
    const open = media.getUserMedia.bind(media);
    media.getUserMedia = async (constraints) => {
      const stream = await open(constraints);
      w.cameraTracks.push(...stream.getTracks());
      return stream;
    };
  });
  return () => page.evaluate(() => (window as unknown as { cameraTracks: MediaStreamTrack[] }).cameraTracks.map((t) => t.readyState));
}

async function choosePicture(page: Page, file: { name: string; mimeType: string; buffer: Buffer }) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('sync-section').getByRole('button', { name: 'Choose a picture of the code' }).click();
  await (await chooser).setFiles(file);
}

test('the camera reads the phrase shown on another device; Join then brings this device in', async ({ browser }) => {
  test.setTimeout(180_000);
  const a = await device(browser);
  const syncA = await openSync(a);
  await syncA.getByLabel('Relay address').fill(relay.url);
  await syncA.getByRole('button', { name: 'Sync this memory' }).click();
  const shown = syncA.getByTestId('recovery-phrase');
  await expect(shown).toBeVisible({ timeout: 30_000 });
  const phrase = (await shown.locator('ol li').allTextContents()).join(' ');
  expect(phrase.split(' ')).toHaveLength(12);

  const b = await device(await cameraBrowser(phrase));
  const tracks = await watchCameraTracks(b);
  const syncB = await openSync(b);
  await syncB.getByLabel('Relay address').fill(relay.url);
  const box = syncB.getByLabel(/recovery phrase/);
  await expect(box).toHaveValue('');
  await syncB.getByRole('button', { name: 'Scan the QR code' }).click();
  await expect(box).toHaveValue(phrase, { timeout: 30_000 });
  await expect(b.getByRole('dialog', { name: 'Scan the QR code' })).toBeHidden();
  await expect(syncB.getByRole('status').filter({ hasText: 'read from the QR code' })).toBeVisible();
  expect(await tracks()).toEqual(['ended']);
  // Filled, not joined: joining is the person's press.
  await expect(syncB).toContainText('Off.');
  await expect(syncB.getByRole('button', { name: 'Scan the QR code' })).toBeFocused();

  await syncB.getByRole('button', { name: 'Join with a phrase' }).click();
  await expect(syncB.getByTestId('sync-state')).toBeVisible({ timeout: 30_000 });
  await expect(syncB.getByTestId('sync-state')).toContainText(relay.url);
});

test('a code that is not a phrase is refused by the camera and from a picture; pictures of the phrase, of no code and non-pictures', async () => {
  test.setTimeout(120_000);
  const page = await device(await cameraBrowser(NOT_A_PHRASE));
  const tracks = await watchCameraTracks(page);
  const sync = await openSync(page);
  const box = sync.getByLabel(/recovery phrase/);
  await box.fill('letter advice cage');

  // The camera sees a code that is not a phrase: said in the dialog, scanning goes on, Escape stops it.
  await sync.getByRole('button', { name: 'Scan the QR code' }).click();
  const dialog = page.getByRole('dialog', { name: 'Scan the QR code' });
  await expect(dialog.getByTestId('scan-state')).toContainText('This code is not a Recollect recovery phrase', { timeout: 30_000 });
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  expect(await dialog.evaluate((d) => d.matches(':modal'))).toBe(true);
  const axe = await new AxeBuilder({ page }).include('[data-testid="scan-dialog"]').analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
  expect(await tracks()).toEqual(['live']);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect(await tracks()).toEqual(['ended']);
  await expect(box).toHaveValue('letter advice cage');

  // Cancel stops it too.
  await sync.getByRole('button', { name: 'Scan the QR code' }).click();
  await expect(dialog.getByTestId('scan-state')).toContainText('not a Recollect recovery phrase', { timeout: 30_000 });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(await tracks()).toEqual(['ended', 'ended']);

  // Pictures.
  const alert = sync.getByRole('alert');
  await choosePicture(page, { name: 'wifi.png', mimeType: 'image/png', buffer: png(qrImage(NOT_A_PHRASE)) });
  await expect(alert).toContainText('This code is not a Recollect recovery phrase');
  await expect(box).toHaveValue('letter advice cage');
  await choosePicture(page, { name: 'desk.png', mimeType: 'image/png', buffer: png(noCodeImage()) });
  await expect(alert).toContainText('No QR code was found in this picture');
  await choosePicture(page, { name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
  await expect(alert).toContainText('could not be opened as a picture');
  await expect(box).toHaveValue('letter advice cage');
  await choosePicture(page, { name: 'phrase.png', mimeType: 'image/png', buffer: png(qrImage(OTHER_PHRASE, { scale: 6 })) });
  await expect(box).toHaveValue(OTHER_PHRASE);
  await expect(alert).toHaveCount(0);
  await expect(sync.getByRole('status').filter({ hasText: 'read from the picture' })).toBeVisible();
});

test('a refused camera says so and points to the picture and to typing', async () => {
  const page = await device(await cameraBrowser(null));
  const sync = await openSync(page);
  await sync.getByLabel(/recovery phrase/).fill('letter advice');
  await sync.getByRole('button', { name: 'Scan the QR code' }).click();
  const alert = sync.getByRole('alert');
  await expect(alert).toContainText('The camera was not allowed');
  await expect(alert).toContainText('Choose a picture of the code instead, or type the twelve words');
  await expect(page.getByRole('dialog', { name: 'Scan the QR code' })).toBeHidden();
  await expect(sync.getByLabel(/recovery phrase/)).toHaveValue('letter advice');
});
