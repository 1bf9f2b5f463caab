/**
 * v10: deleted means gone.
 *
 * - FTS5 `secure-delete` on every full-text index, meant to remove a deleted row's terms from the
 *   index b-tree at once (SQLite ≥ 3.44). Correction, measured on this build (3.53): it does not
 *   apply to these indexes, which are contentless with contentless_delete since v9 — a deletion
 *   there records the row as deleted in its segment, and its terms (single words, not the text)
 *   stay in the database file until that segment is merged. The export merges every index
 *   (databaseTransfer.compactedCopy), and so does every deletion before it commits (deletedTerms.ts).
 *   `PRAGMA secure_delete` (set on every connection, WaSqliteDatabase.open) zeroes freed bytes.
 * - A date foresight is a verbatim sentence of the turn it came from (source_message_id): it goes
 *   with that turn.
 * - memcells.lost_turns: how many of the episode's messages were deleted (or replaced by an edit)
 *   since it was last synthesised. What was derived from them went with them (deletedTurns.ts)
 *   and is re-derived from the remaining messages; the explorer says so until then.
 */
export const v10 = /* sql */ `
INSERT INTO messages_fts(messages_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO turns_fts(turns_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO facts_fts(facts_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO memcells_fts(memcells_fts, rank) VALUES ('secure-delete', 1);

ALTER TABLE memcells ADD COLUMN lost_turns INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER messages_date_foresight_delete AFTER DELETE ON messages BEGIN
  DELETE FROM foresights WHERE source_message_id = old.id AND source = 'date-parser';
END;
`;
