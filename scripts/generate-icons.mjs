#!/usr/bin/env node
// Generates the app icons the web app manifest lists (public/icons/*.png) from the same drawing as
// public/favicon.svg: a rounded blue square with a white "R" stroke. Drawn here with signed
// distances and 4×4 supersampling, written by a small PNG encoder (RGBA, filter 0, node:zlib), so
// no icon is copied from elsewhere and no image package is needed.
// Deterministic; skipped when every output is newer than this script. Runs from prepare-assets.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const outDir = join(root, 'public/icons');
const BLUE = [0x38, 0x56, 0xd8];
const WHITE = [0xff, 0xff, 0xff];

/**
 * name → size in pixels and whether it is "maskable" (full-bleed background, glyph inside the
 * central 80% safe zone, because launchers crop maskable icons to their own shape).
 */
const ICONS = [
  { name: 'icon-192.png', size: 192, maskable: false },
  { name: 'icon-512.png', size: 512, maskable: false },
  { name: 'icon-maskable-512.png', size: 512, maskable: true },
  { name: 'apple-touch-icon-180.png', size: 180, maskable: true }, // iOS rounds the corners itself
];

// ---- the drawing, in favicon.svg's 64×64 units ------------------------------------------------

const STROKE_HALF = 3; // stroke-width 6
// favicon.svg: M18 44V20h14a9 9 0 0 1 0 18h-6l12 6
const SEGMENTS = [
  [18, 44, 18, 20],
  [18, 20, 32, 20],
  [32, 38, 26, 38],
  [26, 38, 38, 44],
];
const ARC = { cx: 32, cy: 29, r: 9 }; // the right half, from (32,20) to (32,38)

function segmentDistance(px, py, [ax, ay, bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

function arcDistance(px, py) {
  if (px >= ARC.cx) return Math.abs(Math.hypot(px - ARC.cx, py - ARC.cy) - ARC.r);
  return Math.min(Math.hypot(px - ARC.cx, py - (ARC.cy - ARC.r)), Math.hypot(px - ARC.cx, py - (ARC.cy + ARC.r)));
}

function onGlyph(x, y) {
  if (arcDistance(x, y) <= STROKE_HALF) return true;
  return SEGMENTS.some((s) => segmentDistance(x, y, s) <= STROKE_HALF);
}

function insideRoundedSquare(x, y, radius) {
  const cx = Math.min(Math.max(x, radius), 64 - radius);
  const cy = Math.min(Math.max(y, radius), 64 - radius);
  return x >= 0 && x <= 64 && y >= 0 && y <= 64 && Math.hypot(x - cx, y - cy) <= radius;
}

function render(size, maskable) {
  const rgba = new Uint8Array(size * size * 4);
  const samples = 4;
  // Maskable: shrink the glyph about the centre so it sits inside the 80% safe circle.
  const glyphScale = maskable ? 0.72 : 1;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let bg = 0;
      let fg = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = ((px + (sx + 0.5) / samples) / size) * 64;
          const y = ((py + (sy + 0.5) / samples) / size) * 64;
          if (!(maskable || insideRoundedSquare(x, y, 14))) continue;
          bg++;
          if (onGlyph(32 + (x - 32) / glyphScale, 32 + (y - 32) / glyphScale)) fg++;
        }
      }
      const n = samples * samples;
      const i = (py * size + px) * 4;
      const f = bg ? fg / bg : 0;
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round(BLUE[c] * (1 - f) + WHITE[c] * f);
      rgba[i + 3] = Math.round((255 * bg) / n);
    }
  }
  return rgba;
}

// ---- PNG encoder ---------------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

export function encodePng(width, height, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  // compression, filter and interlace methods stay 0
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- main ----------------------------------------------------------------------------------------

const scriptTime = statSync(new URL(import.meta.url).pathname).mtimeMs;
const stale = ICONS.filter(({ name }) => {
  const p = join(outDir, name);
  return !existsSync(p) || statSync(p).mtimeMs < scriptTime;
});
mkdirSync(outDir, { recursive: true });
for (const { name, size, maskable } of stale) writeFileSync(join(outDir, name), encodePng(size, size, render(size, maskable)));
console.log(`generate-icons: ${stale.length ? `wrote ${stale.map((i) => i.name).join(', ')}` : 'up to date'} in public/icons/`);
