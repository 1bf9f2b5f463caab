/** Small helpers shared by the history parsers: tolerant field access and the skip signal. */
import type { ImportedTurn } from '../core/base/historyImport';
import { MAX_TITLE_CHARS } from '../core/base/limits';

/** Thrown by a parser for an entry it cannot use; the reader counts `reason` and goes on. */
export class SkipEntry extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SkipEntry';
  }
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/**
 * ISO string or epoch seconds/ms → whole ms; NaN when unusable. Always a whole number: exports
 * carry microseconds (ChatGPT's `1715000000.123456`), and a fractional time stored in an INTEGER
 * column makes the database refuse its own export.
 */
export function toMs(value: unknown): number {
  if (typeof value === 'number') return Math.round(value < 1e11 ? value * 1000 : value);
  if (typeof value === 'string' && value.trim()) return Math.round(Date.parse(value));
  return Number.NaN;
}

/** Epoch seconds (a number or numeric string, possibly with a fraction) → whole ms; NaN when unusable. */
export function secondsToMs(value: unknown): number {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : Number.NaN;
  return Number.isFinite(seconds) ? Math.round(seconds * 1000) : Number.NaN;
}

/** The source's title, or the start of the first turn, or a neutral name. */
export function titleOf(title: unknown, turns: readonly ImportedTurn[]): string {
  const t = text(title).replace(/\s+/g, ' ').trim();
  if (t) return t.slice(0, MAX_TITLE_CHARS);
  const first = turns[0]?.content.replace(/\s+/g, ' ').trim() ?? '';
  return first ? first.slice(0, 60) : 'Untitled conversation';
}

/** A short, stable hash (FNV-1a, 2×32 bits) for ids of sources that have none. */
export function stableHash(input: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ input.length;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
