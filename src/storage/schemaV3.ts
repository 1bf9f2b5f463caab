/**
 * v3: the episode lifecycle (MemCells, MemScenes, foresight from dates, encoding scores).
 * - messages.encoding: the turn's encoding score as JSON (novelty, salience, prediction error),
 *   null until the lifecycle has processed the turn.
 * - memcells.closed_by: the boundary that closed the cell (NULL while it is the conversation's
 *   open cell); memcells.salience: the highest encoding score among its turns.
 * - foresights.source_message_id: the turn a date-parser foresight came from (deduplicated).
 */
export const v3 = /* sql */ `
ALTER TABLE messages ADD COLUMN encoding TEXT;
ALTER TABLE memcells ADD COLUMN closed_by TEXT;
ALTER TABLE memcells ADD COLUMN salience REAL NOT NULL DEFAULT 0;
ALTER TABLE foresights ADD COLUMN source_message_id TEXT;
CREATE UNIQUE INDEX foresights_by_source ON foresights(source_message_id, content) WHERE source_message_id IS NOT NULL;
CREATE INDEX memcells_open ON memcells(conversation_id, closed_by);
`;
