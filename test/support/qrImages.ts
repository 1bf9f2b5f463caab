/**
 * Real QR images for the scan tests, made in Node from the same generator the app draws the phrase
 * with (qrcode-generator): RGBA pixels (for jsQR in a unit test), a PNG (a "picture of the code"
 * for a file input) and a Y4M video (Chromium's fake camera, --use-file-for-fake-video-capture).
 */
import { crc32, deflateSync } from 'node:zlib';
import qrcode from 'qrcode-generator';

export interface Rgba {
  readonly data: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
}

export interface QrImageOptions {
  /** Pixels per module. */
  readonly scale?: number;
  /** The image's size; the code is centred in it (default: the code and a 4-module quiet zone). */
  readonly width?: number;
  readonly height?: number;
  /** Light modules on a dark ground (a phone in dark mode). */
  readonly inverted?: boolean;
}

/** `text` as a QR code (error correction M, as RecoveryPhrase.tsx draws it), black on white. */
export function qrImage(text: string, options: QrImageOptions = {}): Rgba {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const scale = options.scale ?? 8;
  const width = options.width ?? (n + 8) * scale;
  const height = options.height ?? (n + 8) * scale;
  const left = Math.floor((width - n * scale) / 2);
  const top = Math.floor((height - n * scale) / 2);
  const [ink, ground] = options.inverted ? [255, 0] : [0, 255];
  return paint(width, height, (x, y) => {
    const c = Math.floor((x - left) / scale);
    const r = Math.floor((y - top) / scale);
    return r >= 0 && r < n && c >= 0 && c < n && qr.isDark(r, c) ? ink : ground;
  });
}

/** An image with no code in it: a light ground with a few grey bars and squares. */
export function noCodeImage(width = 480, height = 360): Rgba {
  return paint(width, height, (x, y) => (y % 60 < 20 ? 200 : (x >> 5) % 3 === 0 && (y >> 5) % 2 === 0 ? 90 : 245));
}

function paint(width: number, height: number, grey: (x: number, y: number) => number): Rgba {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = data[i + 1] = data[i + 2] = grey(x, y);
      data[i + 3] = 255;
    }
  return { data, width, height };
}

/** The image as a PNG file (8-bit RGBA, no filtering). */
export function png(image: Rgba): Buffer {
  const rows = Buffer.alloc((image.width * 4 + 1) * image.height);
  for (let y = 0; y < image.height; y++) {
    const row = y * (image.width * 4 + 1);
    rows[row] = 0; // filter: none
    Buffer.from(image.data.buffer, image.data.byteOffset + y * image.width * 4, image.width * 4).copy(rows, row + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/**
 * The image as a Y4M video of `frames` identical 4:2:0 frames (grey: luma only, chroma neutral),
 * which Chromium's fake camera plays in a loop. Width and height must be even.
 */
export function y4m(image: Rgba, frames = 3): Buffer {
  const { width, height } = image;
  const luma = Buffer.alloc(width * height);
  for (let i = 0; i < luma.length; i++) luma[i] = image.data[i * 4]!;
  const chroma = Buffer.alloc((width / 2) * (height / 2), 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma]);
  return Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), ...Array<Buffer>(frames).fill(frame)]);
}
