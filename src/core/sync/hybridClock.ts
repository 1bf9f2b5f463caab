/**
 * The hybrid logical clock every synced event carries (docs/sync-spike.md, "Conflict rules").
 *
 * A timestamp is (wallMs, counter, deviceId): wall-clock milliseconds, a counter that orders events
 * within one millisecond (or while the wall clock lags behind a remote one), and the writing
 * device's id, which breaks ties so the order is total. Encoded as fixed-width decimal fields, the
 * string sorts lexicographically exactly as the triple does, so a fold can sort by plain `<`.
 *
 * Invariants: `tick()` returns strictly increasing timestamps on one device; `receive()` moves the
 * clock past any remote timestamp, so an event written after seeing another always sorts after it.
 * A remote timestamp far ahead of the local wall clock is *reported*, never refused: refusing would
 * strand that device's events, while accepting keeps every device's order identical.
 */
import type { Clock } from '../base/ports';

/** Wall milliseconds fit 15 digits until the year 33658; the counter gets 6 digits per millisecond. */
const WALL_DIGITS = 15;
const COUNTER_DIGITS = 6;
const MAX_COUNTER = 10 ** COUNTER_DIGITS - 1;
/**
 * A remote clock more than this far ahead of ours is shown in the sync status. Delivery delay only
 * makes a remote timestamp look older, so a minute is never reached by devices whose clocks agree.
 */
export const SKEW_LIMIT_MS = 60 * 1000;

const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const ENCODED = new RegExp(`^(\\d{${WALL_DIGITS}})-(\\d{${COUNTER_DIGITS}})-([A-Za-z0-9_-]{1,64})$`);

export interface Hlc {
  readonly wallMs: number;
  readonly counter: number;
  readonly deviceId: string;
}

/** A remote timestamp ahead of this device's wall clock by more than SKEW_LIMIT_MS. */
export interface ClockSkew {
  readonly remoteDeviceId: string;
  readonly aheadMs: number;
}

export function isDeviceId(id: string): boolean {
  return DEVICE_ID.test(id);
}

export function encodeHlc(hlc: Hlc): string {
  if (!isDeviceId(hlc.deviceId)) throw new Error(`A device id is 1–64 letters, digits, "-" or "_"; got "${hlc.deviceId}".`);
  if (!Number.isSafeInteger(hlc.wallMs) || hlc.wallMs < 0 || hlc.wallMs >= 10 ** WALL_DIGITS)
    throw new Error(`A clock reading must be a whole, non-negative number of milliseconds; got ${hlc.wallMs}.`);
  if (!Number.isInteger(hlc.counter) || hlc.counter < 0 || hlc.counter > MAX_COUNTER)
    throw new Error(`A clock counter must be 0–${MAX_COUNTER}; got ${hlc.counter}.`);
  return `${String(hlc.wallMs).padStart(WALL_DIGITS, '0')}-${String(hlc.counter).padStart(COUNTER_DIGITS, '0')}-${hlc.deviceId}`;
}

export function parseHlc(text: string): Hlc {
  const m = ENCODED.exec(text);
  if (!m) throw new Error(`"${text}" is not a sync clock timestamp (wall-counter-device).`);
  return { wallMs: Number(m[1]), counter: Number(m[2]), deviceId: m[3]! };
}

export function isEncodedHlc(text: string): boolean {
  return ENCODED.test(text);
}

/** Orders encoded timestamps; equal to comparing (wallMs, counter, deviceId) field by field. */
export function compareHlc(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class HybridClock {
  private wallMs = 0;
  private counter = 0;

  constructor(
    readonly deviceId: string,
    private readonly clock: Clock,
  ) {
    if (!isDeviceId(deviceId)) throw new Error(`A device id is 1–64 letters, digits, "-" or "_"; got "${deviceId}".`);
  }

  /** The timestamp for a new local event ("send"). */
  tick(): string {
    const now = this.physical();
    if (now > this.wallMs) {
      this.wallMs = now;
      this.counter = 0;
    } else {
      this.bump();
    }
    return this.current();
  }

  /**
   * Merges a remote event's timestamp, so later local events sort after it. Returns the skew when
   * the remote wall clock is more than SKEW_LIMIT_MS ahead of this device's; the event is accepted
   * either way.
   */
  receive(remote: string): ClockSkew | null {
    const r = parseHlc(remote);
    const now = this.physical();
    const wall = Math.max(this.wallMs, r.wallMs, now);
    if (wall === this.wallMs && wall === r.wallMs) this.counter = Math.max(this.counter, r.counter);
    else if (wall === r.wallMs) this.counter = r.counter;
    else if (wall !== this.wallMs) this.counter = -1;
    this.wallMs = wall;
    this.bump();
    const aheadMs = r.wallMs - now;
    return aheadMs > SKEW_LIMIT_MS ? { remoteDeviceId: r.deviceId, aheadMs } : null;
  }

  /** The latest timestamp issued or seen (without advancing). */
  current(): string {
    return encodeHlc({ wallMs: this.wallMs, counter: this.counter, deviceId: this.deviceId });
  }

  private physical(): number {
    return Math.max(0, Math.floor(this.clock.now()));
  }

  /** Next counter value; on the (theoretical) overflow, borrow the next millisecond instead. */
  private bump(): void {
    if (this.counter >= MAX_COUNTER) {
      this.wallMs += 1;
      this.counter = 0;
    } else {
      this.counter += 1;
    }
  }
}
