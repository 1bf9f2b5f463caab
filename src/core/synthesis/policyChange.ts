/**
 * A consolidation policy change applies at once (docs/architecture.md, Write path):
 * - `off`: queued synthesis (episodes, theme summaries, the profile) is set aside as cancelled —
 *   kept, never run, never spending a token — and its episodes go back to raw.
 * - `eager` / `recurrence`: cancelled work is revived, and every raw episode is offered to the new
 *   policy in the background (Lifecycle.reevaluate), so switching to eager organises what was
 *   left raw. The job queue runs it all in heat order, as usual.
 * A job already running when `off` arrives finishes; one claimed later is cancelled by the
 * consolidator's policy gate (CancelJob), so nothing slips through between the two.
 */
import type { JobStore } from '../base/jobs';
import type { EpisodeStore } from '../episodes/episodes';
import type { PolicyName } from '../episodes/consolidationPolicy';
import { SYNTHESISE_MEMCELL } from '../episodes/Lifecycle';
import { SUMMARISE_SCENE, UPDATE_PROFILE } from './Consolidator';

export const SYNTHESIS_JOB_KINDS = [SYNTHESISE_MEMCELL, SUMMARISE_SCENE, UPDATE_PROFILE] as const;

export interface PolicyChangeDeps {
  readonly jobs: JobStore;
  readonly episodes: EpisodeStore;
  /** Offers the raw episodes to the (new) policy in the background. */
  readonly reevaluate: () => void;
  /** Runs due jobs now. */
  readonly kick: () => void;
}

/** Applies `name` to the work already queued or left raw; returns how many jobs it cancelled or revived. */
export async function applyPolicyChange(d: PolicyChangeDeps, name: PolicyName, now: number): Promise<number> {
  if (name === 'off') {
    const cancelled = await d.jobs.cancel(SYNTHESIS_JOB_KINDS, 'the consolidation policy is off', now);
    for (const job of cancelled) {
      const id = job.payload.memcellId;
      if (job.kind !== SYNTHESISE_MEMCELL || typeof id !== 'string') continue;
      if ((await d.episodes.getCell(id))?.status === 'queued') await d.episodes.setCellStatus(id, 'raw', now);
    }
    return cancelled.length;
  }
  const revived = await d.jobs.revive(SYNTHESIS_JOB_KINDS, now);
  for (const job of revived) {
    const id = job.payload.memcellId;
    if (job.kind !== SYNTHESISE_MEMCELL || typeof id !== 'string') continue;
    const cell = await d.episodes.getCell(id);
    if (cell && cell.status !== 'synthesised') await d.episodes.setCellStatus(id, 'queued', now);
  }
  if (revived.length) d.kick();
  d.reevaluate();
  return revived.length;
}
