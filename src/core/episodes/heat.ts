/**
 * Heat of a MemScene (after MemoryOS): how alive a theme is, from how often answers used it
 * (visits), how much was said in it (turns) and how recently it was active. Heat orders the
 * background work: a hot scene's episodes are synthesised first.
 */
export interface HeatInput {
  readonly visits: number;
  readonly turns: number;
  readonly lastActivityAt: number;
}

/** Recency half-life: a week-old theme has half the recency of one active now. */
export const HEAT_HALF_LIFE_MS = 7 * 86_400_000;

export function sceneHeat(h: HeatInput, now: number): number {
  const age = Math.max(0, now - h.lastActivityAt);
  const recency = Math.pow(0.5, age / HEAT_HALF_LIFE_MS);
  return Math.log1p(Math.max(0, h.visits)) + 0.5 * Math.log1p(Math.max(0, h.turns)) + recency;
}
