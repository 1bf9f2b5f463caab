/**
 * v12: synthesis that failed for the endpoint's sake comes back, a bounded number of times.
 *
 * jobs.revivals counts how often a failed job was put back in the queue automatically after the
 * endpoint proved healthy again (core/synthesis/synthesisRecovery.ts). The bound lives in the
 * database, not in memory, so a model that always garbles one episode cannot be paid again on
 * every reload. The person's Retry sets it back to 0.
 */
export const v12 = /* sql */ `
ALTER TABLE jobs ADD COLUMN revivals INTEGER NOT NULL DEFAULT 0;
`;
