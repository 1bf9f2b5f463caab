/**
 * Redraws its component when the calendar day changes in `zone`: the conversation list's date
 * groups ("Today", "Yesterday", …) move at the person's midnight, not at the next unrelated redraw.
 * A timer fires just after midnight; coming back to a hidden tab (whose timers the browser may
 * have held back, or a laptop that slept through midnight) checks the day again.
 */
import { useEffect, useState } from 'react';
import { dayKey, startOfDay } from '../core/base/timeZone';

const HOUR = 3_600_000;

/** The instant the next calendar day begins in `zone` (days last 23 to 25 hours). */
export function nextMidnight(zone: string, now: number): number {
  return startOfDay(zone, startOfDay(zone, now) + 36 * HOUR);
}

/** The day key of today in `zone`; the component using it redraws when it changes. */
export function useDayChange(zone: string): number {
  const [day, setDay] = useState(() => dayKey(zone, Date.now()));
  useEffect(() => {
    const check = () => setDay(dayKey(zone, Date.now()));
    check();
    // One second past midnight, so the new day is certainly in.
    const timer = setTimeout(check, nextMidnight(zone, Date.now()) - Date.now() + 1000);
    const onVisible = () => {
      if (document.visibilityState === 'visible') check();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [zone, day]);
  return day;
}
