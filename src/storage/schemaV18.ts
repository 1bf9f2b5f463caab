/**
 * v18: versions of a turn (docs/using.md, "Edit and regenerate"). Editing a message or
 * regenerating an answer starts a new version of the branch at that position; the branch it
 * replaces (that turn and every turn after it) is kept here, out of `messages`, so nothing that
 * reads turns (recall, search, vectors, the explorer) sees it. Showing a version again swaps the
 * branches back through the ordinary insert and delete paths, which re-index it.
 * - after_id: the turn before the branch ('' at the start of the conversation). Stable across
 *   swaps, because a turn keeps its id when its branch is hidden and shown again.
 * - version: 1-based, in the order the versions were made. Exactly one per position is `shown`
 *   (its turns are live in `messages`, so `turns` is '[]'); the others hold their stored turns
 *   as JSON, each with its metadata (an answer's "what was sent" goes with it).
 */
export const v18 = /* sql */ `
CREATE TABLE turn_versions (
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  after_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  shown INTEGER NOT NULL DEFAULT 0 CHECK (shown IN (0, 1)),
  turns TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (conversation_id, after_id, version)
) WITHOUT ROWID;
`;
