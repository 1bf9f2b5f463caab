/** The conversation list's date groups on a fixed clock: day, month and year edges, in several time zones. */
import { describe, expect, it } from 'vitest';
import { dateGroupOf, groupByDate } from '../../src/core/base/dateGroups';
import { titleMatcher } from '../../src/core/base/titleFilter';

const label = (t: number, now: number, zone: string) => dateGroupOf(t, now, zone).label;
const H = 3_600_000;
const D = 24 * H;

describe('date groups', () => {
  it('today, yesterday, previous 7 and 30 days, months of this year, earlier years (UTC)', () => {
    const now = Date.UTC(2026, 9, 20, 15, 0); // Tue 20 October 2026, 15:00 UTC
    expect(label(Date.UTC(2026, 9, 20, 0, 0), now, 'UTC')).toBe('Today');
    expect(label(now + 2 * H, now, 'UTC')).toBe('Today'); // a clock ahead: today, not lost
    expect(label(Date.UTC(2026, 9, 19, 23, 59), now, 'UTC')).toBe('Yesterday');
    expect(label(Date.UTC(2026, 9, 18, 0, 1), now, 'UTC')).toBe('Previous 7 days');
    expect(label(Date.UTC(2026, 9, 13, 12), now, 'UTC')).toBe('Previous 7 days'); // 7 days ago
    expect(label(Date.UTC(2026, 9, 12, 12), now, 'UTC')).toBe('Previous 30 days'); // 8 days ago
    expect(label(Date.UTC(2026, 8, 20, 12), now, 'UTC')).toBe('Previous 30 days'); // 30 days ago
    expect(label(Date.UTC(2026, 8, 19, 12), now, 'UTC')).toBe('September 2026'); // 31 days ago
    expect(label(Date.UTC(2026, 0, 1, 0, 0), now, 'UTC')).toBe('January 2026');
    expect(label(Date.UTC(2025, 11, 31, 23, 59), now, 'UTC')).toBe('2025');
    expect(label(Date.UTC(2019, 5, 1), now, 'UTC')).toBe('2019');
  });

  it('reckons days in the person’s time zone, not UTC', () => {
    // 20 October 2026 00:30 in Tokyo is 19 October 15:30 UTC.
    const now = Date.UTC(2026, 9, 19, 15, 30);
    const lastEvening = Date.UTC(2026, 9, 19, 14, 0); // 23:00 on the 19th in Tokyo
    expect(label(lastEvening, now, 'Asia/Tokyo')).toBe('Yesterday');
    expect(label(lastEvening, now, 'UTC')).toBe('Today');
    // New York: 1 November 2026 is the DST change; 23:30 on 31 Oct and 00:30 on 1 Nov are a day apart.
    const nyNow = Date.UTC(2026, 10, 1, 4, 30); // 00:30 EDT, 1 November
    expect(label(Date.UTC(2026, 10, 1, 3, 30), nyNow, 'America/New_York')).toBe('Yesterday'); // 23:30 on 31 October
    expect(label(Date.UTC(2026, 10, 1, 4, 35), nyNow, 'America/New_York')).toBe('Today');
  });

  it('a month or year edge falls where the zone puts it', () => {
    // New Year in Berlin: 1 January 2027 00:30 local is 31 December 2026 23:30 UTC.
    const now = Date.UTC(2027, 1, 15, 12); // 15 February 2027
    const newYearBerlin = Date.UTC(2026, 11, 31, 23, 30);
    expect(label(newYearBerlin, now, 'Europe/Berlin')).toBe('January 2027');
    expect(label(newYearBerlin, now, 'UTC')).toBe('2026');
    // 1 March 01:00 in Kolkata is the last day of February in UTC and in Los Angeles.
    const marchNow = Date.UTC(2027, 5, 1, 12);
    const t = Date.UTC(2027, 1, 28, 19, 30);
    expect(label(t, marchNow, 'Asia/Kolkata')).toBe('March 2027');
    expect(label(t, marchNow, 'America/Los_Angeles')).toBe('February 2027');
  });

  it('groups keep the most recent first and items in their order', () => {
    const now = Date.UTC(2026, 9, 20, 12);
    const items = [
      { id: 'old-year', t: Date.UTC(2024, 3, 2) },
      { id: 'today-1', t: now - H },
      { id: 'march', t: Date.UTC(2026, 2, 3) },
      { id: 'today-2', t: now - 3 * H },
      { id: 'august', t: Date.UTC(2026, 7, 1) },
      { id: 'yesterday', t: now - D },
      { id: 'last-year', t: Date.UTC(2025, 6, 1) },
      { id: 'week', t: now - 4 * D },
    ];
    const groups = groupByDate(items, (i) => i.t, now, 'UTC');
    expect(groups.map((g) => [g.label, g.items.map((i) => i.id)])).toEqual([
      ['Today', ['today-1', 'today-2']],
      ['Yesterday', ['yesterday']],
      ['Previous 7 days', ['week']],
      ['August 2026', ['august']],
      ['March 2026', ['march']],
      ['2025', ['last-year']],
      ['2024', ['old-year']],
    ]);
    expect(new Set(groups.map((g) => g.key)).size).toBe(groups.length);
  });
});

describe('title search', () => {
  it('finds English words in any order and case, and Chinese or Japanese typed without spaces', () => {
    const titles = ['Heating in Leipzig: meter readings', '北京的天气怎么样', '東京の引っ越し準備', 'Ｆｕｌｌ-width Notes'];
    const find = (q: string) => titles.filter(titleMatcher(q));
    expect(find('leipzig HEATING')).toEqual(['Heating in Leipzig: meter readings']);
    expect(find('天气')).toEqual(['北京的天气怎么样']);
    expect(find('引っ越し')).toEqual(['東京の引っ越し準備']);
    expect(find('full-width')).toEqual(['Ｆｕｌｌ-width Notes']);
    expect(find('leipzig berlin')).toEqual([]);
    expect(find('  ')).toEqual(titles);
  });
});
