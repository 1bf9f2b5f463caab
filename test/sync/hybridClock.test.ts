/** The hybrid logical clock: monotonic on one device, past every received timestamp, total and string-sortable order, skew reported. */
import { describe, expect, it } from 'vitest';
import { compareHlc, encodeHlc, HybridClock, parseHlc, SKEW_LIMIT_MS } from '../../src/core/sync/hybridClock';

const manual = (start: number) => {
  const c = { ms: start, now: () => c.ms };
  return c;
};

describe('HybridClock', () => {
  it('ticks strictly upwards even when the wall clock stands still or steps back', () => {
    const wall = manual(1_000);
    const clock = new HybridClock('laptop', wall);
    const a = clock.tick();
    const b = clock.tick();
    wall.ms = 500; // NTP stepped the clock back
    const c = clock.tick();
    wall.ms = 2_000;
    const d = clock.tick();
    expect([a, b, c, d].map(parseHlc)).toEqual([
      { wallMs: 1_000, counter: 0, deviceId: 'laptop' },
      { wallMs: 1_000, counter: 1, deviceId: 'laptop' },
      { wallMs: 1_000, counter: 2, deviceId: 'laptop' },
      { wallMs: 2_000, counter: 0, deviceId: 'laptop' },
    ]);
    expect([d, c, b, a].sort()).toEqual([a, b, c, d]);
  });

  it('orders after a received timestamp from a device whose clock is ahead', () => {
    const phone = new HybridClock('phone', manual(50_000));
    const laptop = new HybridClock('laptop', manual(10_000));
    const remote = phone.tick();
    phone.tick();
    expect(laptop.receive(remote)).toBeNull();
    const next = laptop.tick();
    expect(compareHlc(next, remote)).toBe(1);
    expect(parseHlc(next)).toEqual({ wallMs: 50_000, counter: 2, deviceId: 'laptop' });
  });

  it('merges counters when local and remote share a millisecond', () => {
    const clock = new HybridClock('a', manual(7_000));
    clock.tick();
    clock.tick(); // 7000/1
    clock.receive(encodeHlc({ wallMs: 7_000, counter: 5, deviceId: 'b' }));
    expect(parseHlc(clock.current())).toEqual({ wallMs: 7_000, counter: 6, deviceId: 'a' });
  });

  it('sorts lexicographically exactly as (wallMs, counter, deviceId) across digit-count boundaries', () => {
    const triples = [
      { wallMs: 9, counter: 10, deviceId: 'b' },
      { wallMs: 10, counter: 0, deviceId: 'a' },
      { wallMs: 9, counter: 9, deviceId: 'z' },
      { wallMs: 1_764_320_000_000, counter: 0, deviceId: 'A' },
      { wallMs: 1_764_320_000_000, counter: 0, deviceId: 'a' },
      { wallMs: 1_764_320_000_000, counter: 0, deviceId: 'a-2' },
      { wallMs: 99_999_999_999, counter: 999_999, deviceId: 'x' },
    ];
    const byTriple = [...triples].sort((p, q) =>
      p.wallMs !== q.wallMs ? p.wallMs - q.wallMs : p.counter !== q.counter ? p.counter - q.counter : p.deviceId < q.deviceId ? -1 : 1,
    );
    expect(triples.map(encodeHlc).sort()).toEqual(byTriple.map(encodeHlc));
  });

  it('reports a remote clock more than a minute ahead, and still accepts it', () => {
    const clock = new HybridClock('laptop', manual(1_000_000));
    const ahead = encodeHlc({ wallMs: 1_000_000 + SKEW_LIMIT_MS + 60_000, counter: 0, deviceId: 'phone' });
    expect(clock.receive(ahead)).toEqual({ remoteDeviceId: 'phone', aheadMs: SKEW_LIMIT_MS + 60_000 });
    expect(compareHlc(clock.tick(), ahead)).toBe(1);
    const slightlyAhead = encodeHlc({ wallMs: 1_000_000 + 30_000, counter: 0, deviceId: 'tablet' });
    expect(clock.receive(slightlyAhead)).toBeNull();
  });

  it('refuses malformed timestamps and device ids with a readable message', () => {
    expect(() => parseHlc('1764320000000-0-laptop')).toThrow(/not a sync clock timestamp/);
    expect(() => new HybridClock('my laptop', manual(0))).toThrow(/device id is 1–64 letters/);
    expect(() => encodeHlc({ wallMs: -1, counter: 0, deviceId: 'a' })).toThrow(/non-negative/);
  });
});
