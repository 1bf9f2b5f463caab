/**
 * The user's time zone (an IANA name such as "Europe/Berlin"): calendar days, date phrases and the
 * dates an answer sees are reckoned in it, not in UTC. Offsets come from Intl, so they follow the
 * zone's daylight-saving rules at each instant (a fixed offset would put one day a year in the wrong
 * place). Platform-free: Intl exists in browsers, workers and Node.
 */
import { RecollectError } from './errors';

export const DEFAULT_TIME_ZONE = 'UTC';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether `zone` names a time zone this platform knows. */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    // Intl throws a RangeError for a zone it does not know
    return false;
  }
}

/** `zone`, or a typed error a person can act on. */
export function checkTimeZone(zone: unknown): string {
  if (!isTimeZone(zone))
    throw new RecollectError(
      'INVALID_INPUT',
      `"${String(zone)}" is not a time zone name this browser knows (e.g. Europe/Berlin, America/New_York, UTC).`,
    );
  return zone;
}

function offsetAt(zone: string, t: number): number {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(t))
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return Math.round((asUtc - Math.floor(t / 1000) * 1000) / 60_000);
}

const HOUR = 3_600_000;
/** Offsets by (zone, hour): a history import asks for every turn's day, and formatToParts is slow. */
const hourOffsets = new Map<string, number | null>();

/** The zone's offset from UTC at instant `t`, in minutes east (Berlin in summer: 120). */
export function offsetMinutes(zone: string, t: number): number {
  if (zone === 'UTC') return 0;
  const hour = Math.floor(t / HOUR);
  const key = `${zone}\u0000${hour}`;
  let cached = hourOffsets.get(key);
  if (cached === undefined) {
    // The same offset at the hour's first and last millisecond: no change inside it (a zone changes
    // its offset at most once within any hour), so every instant of the hour shares it.
    const first = offsetAt(zone, hour * HOUR);
    cached = first === offsetAt(zone, hour * HOUR + HOUR - 1) ? first : null;
    if (hourOffsets.size >= 50_000) hourOffsets.clear();
    hourOffsets.set(key, cached);
  }
  return cached ?? offsetAt(zone, t);
}

/** A number naming the calendar day of instant `t` in `zone` (equal for two instants on the same local day). */
export function dayKey(zone: string, t: number): number {
  return Math.floor((t + offsetMinutes(zone, t) * 60_000) / 86_400_000);
}

/** The instant the local day holding `t` began in `zone` (23 or 25 hours before the next one on a DST change). */
export function startOfDay(zone: string, t: number): number {
  const local = t + offsetMinutes(zone, t) * 60_000;
  const midnightLocal = local - (((local % 86_400_000) + 86_400_000) % 86_400_000);
  // The offset at midnight may differ from the offset at t (a DST change that morning).
  let guess = midnightLocal - offsetMinutes(zone, midnightLocal) * 60_000;
  guess = midnightLocal - offsetMinutes(zone, guess) * 60_000;
  return guess;
}
