/**
 * v5: tombstones, so a user deletion sticks (docs/architecture.md, Data model).
 *
 * A tombstone records WHAT was forgotten without keeping the forgotten text: `text_hash` is a
 * hash of the normalised text (core/explorerText.ts `tombstoneHash`), so the pipeline can refuse
 * to write the same statement again while the database holds no copy of it.
 *
 * - kind 'fact':      a deleted (or user-corrected) fact; saveSynthesis skips new facts with the
 *                     same hash, whichever episode proposes them.
 * - kind 'foresight': a dismissed, deleted or re-timed foresight item; skipped by saveSynthesis.
 * - kind 'profile':   a deleted profile item; `text_hash` hashes the normalised key, and the
 *                     profile update never re-adds an item under that key.
 * - kind 'memcell':   a deleted episode whose turns were kept: conversation_id + first_seq..last_seq
 *                     mark the range as placed, so the lifecycle does not segment it again.
 */
export const v5 = /* sql */ `
CREATE TABLE tombstones (
  id              INTEGER PRIMARY KEY,
  kind            TEXT NOT NULL CHECK (kind IN ('fact', 'foresight', 'profile', 'memcell')),
  item_id         TEXT NOT NULL,
  text_hash       TEXT,
  memcell_id      TEXT,
  conversation_id TEXT REFERENCES conversations(id) ON DELETE CASCADE,
  first_seq       INTEGER,
  last_seq        INTEGER,
  reason          TEXT NOT NULL DEFAULT 'deleted' CHECK (reason IN ('deleted', 'edited', 'dismissed')),
  created_at      INTEGER NOT NULL
);
CREATE INDEX tombstones_by_hash ON tombstones(kind, text_hash);
CREATE INDEX tombstones_by_range ON tombstones(conversation_id, last_seq) WHERE kind = 'memcell';
`;
