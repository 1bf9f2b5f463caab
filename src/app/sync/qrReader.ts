/**
 * Reads QR codes from the camera's <video> or from a chosen picture, on the page's thread. The
 * browser's own BarcodeDetector is used where it exists and lists 'qr_code' (Chromium on Android,
 * macOS and ChromeOS); elsewhere (Firefox, Safari, Chromium on Linux and Windows) jsQR, imported
 * only then. ScanPhrase.tsx imports this module only when a person scans or picks a picture, so
 * neither decoder nor the phrase word list weighs on the app's start.
 */
import { phraseFromCodes, type QrPhrase } from './qrPhrase';

/** What a code is read from: a playing <video> (the camera) or a decoded picture. */
export type QrSource = HTMLVideoElement | ImageBitmap;

export interface QrReader {
  readonly kind: 'native' | 'jsqr';
  /** The texts of the QR codes visible in `source` (none when there is none). */
  codes(source: QrSource): Promise<string[]>;
}

/** The part of the platform's BarcodeDetector used here (not yet in TypeScript's DOM types). */
interface BarcodeDetectorLike {
  detect(source: QrSource): Promise<readonly { readonly rawValue: string }[]>;
}
interface BarcodeDetectorClass {
  new (options: { formats: string[] }): BarcodeDetectorLike;
  getSupportedFormats(): Promise<string[]>;
}

/**
 * jsQR's time grows with the pixels; a phone photo (12 megapixels) is scaled down first. A code
 * that fills a tenth of such a photo's width still has ~3 pixels per module at this size.
 */
const MAX_EDGE = 1600;

/** The reader this browser offers: its BarcodeDetector when it reads QR codes, else jsQR. */
export async function chooseQrReader(): Promise<QrReader> {
  const Detector = (globalThis as { BarcodeDetector?: BarcodeDetectorClass }).BarcodeDetector;
  try {
    if (Detector && (await Detector.getSupportedFormats()).includes('qr_code')) {
      const detector = new Detector({ formats: ['qr_code'] });
      const fallback = jsQrReader();
      let broken = false;
      return {
        kind: 'native',
        async codes(source) {
          if (broken) return fallback.codes(source);
          try {
            return (await detector.detect(source)).map((c) => c.rawValue);
          } catch {
            // Some platforms list the format but have no detection service behind it.
            broken = true;
            return fallback.codes(source);
          }
        },
      };
    }
  } catch {
    // getSupportedFormats() rejected: the platform has no detection service; jsQR below.
  }
  return jsQrReader();
}

function jsQrReader(): QrReader {
  let canvas: HTMLCanvasElement | null = null;
  return {
    kind: 'jsqr',
    async codes(source) {
      const { decodeQrPixels } = await import('./jsQrDecoder');
      canvas ??= document.createElement('canvas');
      const pixels = pixelsOf(source, canvas);
      return pixels ? decodeQrPixels(pixels) : [];
    },
  };
}

function pixelsOf(source: QrSource, canvas: HTMLCanvasElement): ImageData | null {
  const [w, h] = source instanceof ImageBitmap ? [source.width, source.height] : [source.videoWidth, source.videoHeight];
  if (w === 0 || h === 0) return null;
  const scale = Math.min(1, MAX_EDGE / Math.max(w, h));
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) return null;
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  return context.getImageData(0, 0, canvas.width, canvas.height);
}

let shared: Promise<QrReader> | null = null;

/** The recovery phrase in what `source` shows, or why there is none. */
export async function readPhrase(source: QrSource): Promise<QrPhrase> {
  shared ??= chooseQrReader();
  return phraseFromCodes(await (await shared).codes(source));
}

/** A file that is not a picture the browser can open (a PDF, a HEIC photo outside Safari). */
export class UnreadablePicture extends Error {}

/** The recovery phrase in a chosen picture (a photo or a screenshot of the code). */
export async function readPicture(file: Blob): Promise<QrPhrase> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new UnreadablePicture('This file could not be opened as a picture.');
  }
  try {
    return await readPhrase(bitmap);
  } finally {
    bitmap.close();
  }
}
