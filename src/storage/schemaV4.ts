/**
 * v4: heat orders background work. jobs.priority (higher runs first among due jobs) is set from
 * the heat of the episode's scene; memcells.visits / last_visited_at are bumped when an answer
 * uses the episode, and memscenes.heat is recomputed from visits, size and recency.
 */
export const v4 = /* sql */ `
ALTER TABLE jobs ADD COLUMN priority REAL NOT NULL DEFAULT 0;
CREATE INDEX jobs_by_priority ON jobs(status, priority DESC, run_after);
`;
