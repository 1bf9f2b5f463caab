/** Small display helpers (pure). */
import { HIGHLIGHT_END, HIGHLIGHT_START } from '../core/base/types';

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

export function formatTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
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
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
