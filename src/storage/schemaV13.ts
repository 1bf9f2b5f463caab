/**
 * v13: projects. A project groups conversations with a name, instructions sent with every answer
 * in it, and a memory mode chosen once at creation:
 * - 'shared': its chats use and feed all of memory, as chats outside any project do;
 * - 'project-only': its chats recall only the project's own turns, episodes, facts and plans
 *   (plus the profile when `use_profile` is on), and nothing of it is recalled outside it
 *   (core/recall/memoryScope.ts applies this to every read an answer makes).
 *
 * conversations.project_id is NULL for a chat in no project. Deleting a project row leaves its
 * chats in no project (ON DELETE SET NULL); the engine deletes the chats first when the person
 * chose to delete them with the project.
 */
export const v13 = /* sql */ `
CREATE TABLE projects (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  instructions TEXT NOT NULL DEFAULT '',
  memory       TEXT NOT NULL DEFAULT 'shared' CHECK (memory IN ('shared', 'project-only')),
  use_profile  INTEGER NOT NULL DEFAULT 1 CHECK (use_profile IN (0, 1)),
  archived     INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
ALTER TABLE conversations ADD COLUMN project_id TEXT REFERENCES projects(id) ON DELETE SET NULL;
CREATE INDEX conversations_by_project ON conversations(project_id);
`;
