/**
 * When does an open episode close without a next turn? Most conversations end and are never
 * resumed, so waiting for the next turn would leave the newest episode of each raw forever. The
 * same rule as the segmenter applies, measured from the conversation's last activity to now: a gap
 * longer than the boundary rule's, or a change of calendar day in the user's time zone.
 *
 * "Last activity" is the later of the last turn's time and the last write to the cell: an import
 * of old turns (dated years ago, written now) is not closed between two of its batches.
 */
import { dayKey } from '../base/timeZone';
import type { MemCellRecord } from './episodes';
import type { BoundaryReason, SegmenterConfig } from './segmenter';

/** How often the engine looks for idle episodes while it runs (also once at start). */
export const IDLE_CHECK_MS = 5 * 60_000;

/** Why `cell` (open) should close at `now`, or null while the conversation may still go on. */
export function idleCloseReason(cell: MemCellRecord, now: number, rule: SegmenterConfig): BoundaryReason | null {
  const last = Math.max(cell.endAt, cell.touchedAt ?? cell.endAt);
  if (now - last > rule.maxGapMs) return 'time-gap';
  if (rule.splitOnDayChange && dayKey(rule.timeZone, now) !== dayKey(rule.timeZone, last)) return 'day-change';
  return null;
}
