/** Small display helpers (pure). */
import { HIGHLIGHT_END, HIGHLIGHT_START } from '../core/base/types';
import { formatCount } from '../core/base/numbers';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** A stored time as the reader's local date; a time no calendar can show reads "unknown date" instead of throwing. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? 'unknown date' : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** ISO form for `<time dateTime>`; '' for a time out of the calendar's range (toISOString would throw). */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** Splits a snippet into plain and highlighted parts (rendered as text, never as HTML). */
export function snippetParts(snippet: string): { text: string; mark: boolean }[] {
  const parts: { text: string; mark: boolean }[] = [];
  let mark = false;
  let buf = '';
  for (const ch of snippet) {
    if (ch === HIGHLIGHT_START || ch === HIGHLIGHT_END) {
      if (buf) parts.push({ text: buf, mark });
      buf = '';
      mark = ch === HIGHLIGHT_START;
    } else buf += ch;
  }
  if (buf) parts.push({ text: buf, mark });
  return parts;
}

/** "1 episode", "3 episodes". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
