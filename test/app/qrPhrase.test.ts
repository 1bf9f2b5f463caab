/**
 * Joining sync from a QR code (src/app/sync/ScanPhrase.tsx): real QR images, made with the
 * generator the app draws the phrase with, decoded by the jsQR path browsers without a QR
 * BarcodeDetector use, then checked like a typed phrase. A code holding anything else is refused,
 * a picture without a code says so, and the native detector is used only where it reads QR codes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeQrPixels, type Pixels } from '../../src/app/sync/jsQrDecoder';
import { phraseFromCodes } from '../../src/app/sync/qrPhrase';
import { chooseQrReader } from '../../src/app/sync/qrReader';
import { noCodeImage, qrImage } from '../support/qrImages';

/** Decode and check, as qrReader.ts does with jsQR in a browser without a QR BarcodeDetector. */
const phraseFromPixels = (pixels: Pixels) => phraseFromCodes(decodeQrPixels(pixels));

// A BIP-39 test vector: fixed, so the checksum-breaking swap below is known to break it.
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

describe('phraseFromPixels (jsQR)', () => {
  it('reads the recovery phrase from a QR image of it', () => {
    expect(phraseFromPixels(qrImage(PHRASE))).toEqual({ kind: 'phrase', phrase: PHRASE });
  });

  it('reads a small code in a camera-sized frame, and a light-on-dark one', () => {
    expect(phraseFromPixels(qrImage(PHRASE, { scale: 4, width: 640, height: 480 }))).toEqual({ kind: 'phrase', phrase: PHRASE });
    expect(phraseFromPixels(qrImage(PHRASE, { inverted: true }))).toEqual({ kind: 'phrase', phrase: PHRASE });
  });

  it('normalises a phrase written with capitals and extra spaces, as a typed one', () => {
    const shouted = `  ${PHRASE.toUpperCase().replaceAll(' ', '   ')} `;
    expect(phraseFromPixels(qrImage(shouted))).toEqual({ kind: 'phrase', phrase: PHRASE });
  });

  it('refuses a code that holds something else', () => {
    const words = PHRASE.split(' ');
    for (const text of ['https://example.com/join?x=1', 'WIFI:S:home;T:WPA;P:secret;;', words.slice(0, 11).join(' ')]) {
      const image = qrImage(text);
      expect(decodeQrPixels(image)).toEqual([text]); // decoded: the refusal is the check's, not the decoder's
      expect(phraseFromPixels(image)).toEqual({ kind: 'not-a-phrase' });
    }
    // Twelve valid words with the checksum broken (the last two swapped).
    const swapped = [...words.slice(0, 10), words[11], words[10]].join(' ');
    expect(phraseFromPixels(qrImage(swapped))).toEqual({ kind: 'not-a-phrase' });
  });

  it('says there is no code in an image without one', () => {
    expect(decodeQrPixels(noCodeImage())).toEqual([]);
    expect(phraseFromPixels(noCodeImage())).toEqual({ kind: 'no-code' });
  });
});

describe('phraseFromCodes', () => {
  it('takes the first code that is a phrase when several are seen', () => {
    expect(phraseFromCodes(['hello', PHRASE])).toEqual({ kind: 'phrase', phrase: PHRASE });
    expect(phraseFromCodes(['hello', ''])).toEqual({ kind: 'not-a-phrase' });
    expect(phraseFromCodes([])).toEqual({ kind: 'no-code' });
  });
});

describe('chooseQrReader', () => {
  const global = globalThis as { BarcodeDetector?: unknown };
  afterEach(() => delete global.BarcodeDetector);

  const detector = (formats: string[], detect: () => Promise<{ rawValue: string }[]>) =>
    class {
      static getSupportedFormats = () => Promise.resolve(formats);
      detect = detect;
    };

  it("uses the browser's BarcodeDetector when it reads QR codes", async () => {
    global.BarcodeDetector = detector(['ean_13', 'qr_code'], () => Promise.resolve([{ rawValue: PHRASE }]));
    const reader = await chooseQrReader();
    expect(reader.kind).toBe('native');
    expect(await reader.codes({} as HTMLVideoElement)).toEqual([PHRASE]);
  });

  it('uses jsQR without a BarcodeDetector, or with one that does not read QR codes', async () => {
    expect((await chooseQrReader()).kind).toBe('jsqr');
    global.BarcodeDetector = detector(['ean_13'], () => Promise.resolve([]));
    expect((await chooseQrReader()).kind).toBe('jsqr');
    global.BarcodeDetector = class {
      static getSupportedFormats = () => Promise.reject(new Error('no detection service'));
    };
    expect((await chooseQrReader()).kind).toBe('jsqr');
  });
});
