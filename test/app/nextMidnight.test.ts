import { describe, expect, it } from 'vitest';
import { nextMidnight } from '../../src/app/useDayChange';
import { dayKey } from '../../src/core/base/timeZone';

describe("nextMidnight: when the conversation list's date groups move", () => {
  it('is the start of the next local day, in the zone asked, not in UTC', () => {
    const now = Date.UTC(2026, 10, 28, 14, 0); // 23:00 in Tokyo, 09:00 in New York
    expect(nextMidnight('Asia/Tokyo', now)).toBe(Date.UTC(2026, 10, 28, 15, 0));
    expect(nextMidnight('America/New_York', now)).toBe(Date.UTC(2026, 10, 29, 5, 0));
    expect(nextMidnight('UTC', now)).toBe(Date.UTC(2026, 10, 29, 0, 0));
  });

  it('holds across a 23-hour and a 25-hour day (Berlin, March and October 2026)', () => {
    const spring = Date.UTC(2026, 2, 29, 0, 30); // 01:30 CET on the day clocks go forward
    expect(nextMidnight('Europe/Berlin', spring)).toBe(Date.UTC(2026, 2, 29, 22, 0)); // 00:00 CEST
    const autumn = Date.UTC(2026, 9, 25, 0, 30); // 02:30 CEST, the day clocks go back
    expect(nextMidnight('Europe/Berlin', autumn)).toBe(Date.UTC(2026, 9, 25, 23, 0)); // 00:00 CET
  });

  it('is always after now and on the next day key', () => {
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2026, 0, 3); t += 37 * 60_000) {
      for (const zone of ['Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns']) {
        const m = nextMidnight(zone, t);
        expect(m).toBeGreaterThan(t);
        expect(dayKey(zone, m)).toBe(dayKey(zone, t) + 1);
        expect(dayKey(zone, m - 1)).toBe(dayKey(zone, t));
      }
    }
  });
});
