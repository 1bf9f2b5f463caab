/**
 * v14: where an imported project came from. A project made by a history import keeps the source
 * service's project id (`chatgpt:g-p-…`, `claude:project:<uuid>`) so a second import of the same
 * export puts its chats in the same project instead of creating it again. Projects made in the app
 * have none (NULL); at most one project per source id.
 */
export const v14 = /* sql */ `
ALTER TABLE projects ADD COLUMN source_id TEXT;
CREATE UNIQUE INDEX projects_by_source ON projects(source_id) WHERE source_id IS NOT NULL;
`;
