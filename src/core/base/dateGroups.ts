/**
 * The date groups of the conversation list, by each conversation's last activity in the person's
 * time zone: Today, Yesterday, Previous 7 days, Previous 30 days, then the months of this year
 * ("October 2026") and earlier years ("2025"). Days are calendar days in the zone (timeZone.ts),
 * not 24-hour spans: 00:30 today and 23:30 yesterday are a day apart, and a DST change does not
 * move anything. A time ahead of now (another device's clock) counts as today.
 */
import { dayKey } from './timeZone';

export interface DateGroup<T> {
  /** Stable across renders: 'today', 'yesterday', 'week', 'month', 'm:2026-10', 'y:2025'. */
  readonly key: string;
  readonly label: string;
  readonly items: readonly T[];
}

const DAY = 86_400_000;
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Which group the instant `t` falls in, seen at `now` in `zone`, with an order rank (smaller first). */
export function dateGroupOf(t: number, now: number, zone: string): { readonly key: string; readonly label: string; readonly rank: number } {
  const today = dayKey(zone, now);
  const day = dayKey(zone, t);
  const ago = today - day;
  if (ago <= 0) return { key: 'today', label: 'Today', rank: 0 };
  if (ago === 1) return { key: 'yesterday', label: 'Yesterday', rank: 1 };
  if (ago <= 7) return { key: 'week', label: 'Previous 7 days', rank: 2 };
  if (ago <= 30) return { key: 'month', label: 'Previous 30 days', rank: 3 };
  // A day key counts days since 1970-01-01 in the zone: read as UTC, it gives the local calendar date.
  const local = new Date(day * DAY);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth();
  if (year === new Date(today * DAY).getUTCFullYear()) {
    return { key: `m:${year}-${String(month + 1).padStart(2, '0')}`, label: `${MONTH_NAMES[month]} ${year}`, rank: 100 - month };
  }
  return { key: `y:${year}`, label: String(year), rank: 100_000 - year };
}

/** `items` in date groups, most recent group first; items keep their order within a group. */
export function groupByDate<T>(items: readonly T[], timeOf: (item: T) => number, now: number, zone: string): DateGroup<T>[] {
  const groups = new Map<string, { key: string; label: string; rank: number; items: T[] }>();
  for (const item of items) {
    const g = dateGroupOf(timeOf(item), now, zone);
    let group = groups.get(g.key);
    if (!group) groups.set(g.key, (group = { ...g, items: [] }));
    group.items.push(item);
  }
  return [...groups.values()].sort((a, b) => a.rank - b.rank).map(({ key, label, items: list }) => ({ key, label, items: list }));
}
