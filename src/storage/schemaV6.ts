/**
 * v6: the turn index is brought up to date once per appended batch instead of once per turn.
 *
 * Under v2 every inserted turn re-indexed the turn before it (its "after" context changed), so a
 * session appended in one transaction indexed almost every turn twice, and the turn index was
 * two thirds of the write path's time (measured in Node on the LoCoMo dev split: capture 1.17 s
 * with the v2 trigger, 0.34 s without the turn index). Now inserting a turn only queues its pk;
 * `TURN_INDEX_FLUSH` (schema.ts), run by appendTurns at the end of the same transaction, indexes
 * the queued turns once with their final context and re-indexes the neighbours outside the batch
 * whose context they changed. The queue is empty outside a write transaction, and a crash
 * part-way rolls back the turns and the queue together. Edits and deletions keep re-indexing at
 * once (v2's update and delete triggers).
 */
export const v6 = /* sql */ `
CREATE TABLE turn_index_queue (pk INTEGER PRIMARY KEY);

DROP TRIGGER turns_fts_insert;
CREATE TRIGGER turns_fts_insert AFTER INSERT ON messages BEGIN
  INSERT OR IGNORE INTO turn_index_queue (pk) VALUES (new.pk);
END;
CREATE TRIGGER turn_index_queue_delete AFTER DELETE ON messages BEGIN
  DELETE FROM turn_index_queue WHERE pk = old.pk;
END;
`;
