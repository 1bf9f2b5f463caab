/**
 * Every count a person reads — in the interface and in the engine's messages — is written one way:
 * by one Intl.NumberFormat of the interface's language. The interface is written in English, so
 * numbers are too ("4,700 messages"), whatever the browser's own locale; before, some places used
 * the browser's locale and others English, so one screen could say "4.700" beside "4,700".
 */
export const UI_LOCALE = 'en';

const counts = new Intl.NumberFormat(UI_LOCALE, { maximumFractionDigits: 0 });

/** A whole number for reading: 4700 → "4,700" (rounded; NaN and infinities as they are). */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? counts.format(n) : String(n);
}
