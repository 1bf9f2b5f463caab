/**
 * v7: the memory switches of a conversation, a theme's tombstone as its own column, and
 * 'cancelled' as a job status of its own.
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

-- Jobs set aside by a policy change were status 'failed' with last_error 'CANCELLED: <reason>';
-- now they are 'cancelled' with the reason as last_error. A CHECK constraint cannot be altered, so
-- the table is rebuilt. The migration runs in a transaction with foreign keys on, where dropping
-- jobs would null llm_calls.job_id (ON DELETE SET NULL): the links are kept aside and put back.
CREATE TABLE jobs_v7 (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL,
  dedupe_key  TEXT UNIQUE,
  payload     TEXT NOT NULL DEFAULT '{}',
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  run_after   INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  priority    REAL NOT NULL DEFAULT 0
);
INSERT INTO jobs_v7 (id, kind, dedupe_key, payload, status, attempts, last_error, run_after, created_at, updated_at, priority)
  SELECT id, kind, dedupe_key, payload,
         CASE WHEN status = 'failed' AND substr(last_error, 1, 11) = 'CANCELLED: ' THEN 'cancelled' ELSE status END,
         attempts,
         CASE WHEN status = 'failed' AND substr(last_error, 1, 11) = 'CANCELLED: ' THEN substr(last_error, 12) ELSE last_error END,
         run_after, created_at, updated_at, priority
    FROM jobs;
CREATE TABLE llm_call_jobs_v7 (call_id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL);
INSERT INTO llm_call_jobs_v7 SELECT id, job_id FROM llm_calls WHERE job_id IS NOT NULL;
DROP TABLE jobs;
ALTER TABLE jobs_v7 RENAME TO jobs;
UPDATE llm_calls SET job_id = (SELECT l.job_id FROM llm_call_jobs_v7 l WHERE l.call_id = llm_calls.id)
 WHERE id IN (SELECT call_id FROM llm_call_jobs_v7);
DROP TABLE llm_call_jobs_v7;
CREATE INDEX jobs_by_status ON jobs(status, run_after);
CREATE INDEX jobs_by_priority ON jobs(status, priority DESC, run_after);
`;
