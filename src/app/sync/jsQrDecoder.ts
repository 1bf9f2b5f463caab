/**
 * The pure-JavaScript QR decoder (jsQR), for browsers without a BarcodeDetector that reads QR
 * codes (Firefox, Safari, Chromium on Linux and Windows). Loaded only when such a browser scans
 * (qrReader.ts), so it is a chunk of its own, not part of the main bundle. Works on raw RGBA pixels,
 * so the unit tests run it in Node on generated images. The phrase check is qrReader's
 * (qrPhrase.ts), so a browser with a native detector never loads this file.
 */
import jsQR from 'jsqr';

export interface Pixels {
  readonly data: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
}

/** The text of the QR code in `pixels` (RGBA), or none. jsQR finds at most one code per image. */
export function decodeQrPixels(pixels: Pixels): string[] {
  // Both polarities: a code shown light on dark (a phone in dark mode, a negative) reads too.
  const code = jsQR(pixels.data, pixels.width, pixels.height, { inversionAttempts: 'attemptBoth' });
  return code ? [code.data] : [];
}
