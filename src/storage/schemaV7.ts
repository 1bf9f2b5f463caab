/**
 * v7: the memory switches of a conversation (issue 17), and a theme's tombstone as its own column.
 *
 * `use_memory` = 0: answers in the conversation get no retrieved memory, only its own recent turns.
 * `remember` = 0: its turns are stored verbatim (the chat can be read and searched) but are not
 * memory: the lifecycle does not segment them (episodeRepo.unplacedTurns skips the conversation)
 * and answers never retrieve them. Turning `remember` back on lets the lifecycle place every turn
 * not yet in an episode, so the whole conversation becomes memory. Episodes and facts made before
 * it was turned off stay until the user deletes them. Existing conversations keep both on.
 */
export const v7 = /* sql */ `
ALTER TABLE conversations ADD COLUMN use_memory INTEGER NOT NULL DEFAULT 1 CHECK (use_memory IN (0, 1));
ALTER TABLE conversations ADD COLUMN remember INTEGER NOT NULL DEFAULT 1 CHECK (remember IN (0, 1));
CREATE INDEX conversations_not_remembered ON conversations(remember) WHERE remember = 0;

-- A forgotten theme summary (the user's "Forget" on a theme: no summary is written for it again)
-- was bit 2 of memscenes.edited_by_user; it is its own flag now, and edited_by_user is 0/1 again
-- (the user named the theme).
ALTER TABLE memscenes ADD COLUMN summary_forgotten INTEGER NOT NULL DEFAULT 0 CHECK (summary_forgotten IN (0, 1));
UPDATE memscenes SET summary_forgotten = 1 WHERE edited_by_user & 2 = 2;
UPDATE memscenes SET edited_by_user = edited_by_user & 1;
`;
