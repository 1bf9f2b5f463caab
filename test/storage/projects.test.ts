import { describe, expect, it } from 'vitest';
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { migrate, schemaVersion } from '../../src/storage/migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/storage/schema';

const LONG_TURN = `We agreed the thesis chapter on soil moisture goes first. ${'The sensor logs from the north plot show the irrigation schedule drifting after each storm, and the calibration table below is what we compare against. '.repeat(8)}
| plot | sensor | offset |
|---|---|---|
| north | A3 | 0.12 |

\`\`\`python
def offset(raw, ref):
    return raw - ref
\`\`\``;

describe('projects in the database (schema v13, v14)', () => {
  it('v13 adds the projects table; existing conversations are in no project', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 12);
    await db.exec(
      "INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('old', 'Before projects', 1700000000000, 1700000000000)",
    );
    await migrate(db);
    expect(await schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(await db.query('SELECT id, project_id FROM conversations')).toEqual([{ id: 'old', project_id: null }]);
    await expect(
      db.exec("INSERT INTO projects (id, name, memory, created_at, updated_at) VALUES ('p', 'x', 'secret', 1, 1)"),
    ).rejects.toMatchObject({ code: 'SQL_ERROR' });
  });

  it('v14 adds source ids: projects made before have none, one project per source id, and found by it', async () => {
    const db = await openMemoryDatabase({ migrateSchema: false });
    await migrate(db, MIGRATIONS, 13);
    await db.exec(
      "INSERT INTO projects (id, name, created_at, updated_at) VALUES ('before', 'Made in the app', 1700000000000, 1700000000000)",
    );
    await migrate(db, MIGRATIONS, 14);
    expect(await db.query('SELECT id, source_id FROM projects')).toEqual([{ id: 'before', source_id: null }]);
    await db.exec("INSERT INTO projects (id, name, created_at, updated_at, source_id) VALUES ('a', 'Thesis', 1, 1, 'chatgpt:g-p-1')");
    await expect(
      db.exec("INSERT INTO projects (id, name, created_at, updated_at, source_id) VALUES ('b', 'Again', 1, 1, 'chatgpt:g-p-1')"),
    ).rejects.toMatchObject({ code: 'SQL_ERROR' });
    // Many projects without a source are fine.
    await db.exec("INSERT INTO projects (id, name, created_at, updated_at) VALUES ('c', 'Another', 1, 1)");

    const store = await openNodeStore();
    await store.projects.createProject({
      id: 'p1',
      name: 'Thesis',
      instructions: '',
      memory: 'shared',
      useProfile: true,
      sourceId: 'claude:project:u1',
    });
    await store.projects.createProject({ id: 'p2', name: 'Typed here', instructions: '', memory: 'shared', useProfile: true });
    expect((await store.projects.projectBySource('claude:project:u1'))?.id).toBe('p1');
    expect(await store.projects.projectBySource('claude:project:u2')).toBeNull();
    // A renamed project is still found by where it came from.
    await store.projects.updateProject('p1', { name: 'Thesis 2026' });
    expect((await store.projects.projectBySource('claude:project:u1'))?.name).toBe('Thesis 2026');
  });

  it('the store creates, renames, archives, moves chats and deletes keeping or deleting the chats', async () => {
    const store = await openNodeStore();
    const thesis = await store.projects.createProject({
      id: 'p1',
      name: 'Thesis',
      instructions: 'Answer in British English.',
      memory: 'project-only',
      useProfile: false,
    });
    expect(thesis).toMatchObject({ name: 'Thesis', memory: 'project-only', useProfile: false, archived: false, conversationCount: 0 });
    await store.createConversation({ id: 'c1', title: 'Chapter one' });
    await store.createConversation({ id: 'c2', title: 'Chapter two' });
    await store.appendTurn({ id: 'm1', conversationId: 'c1', role: 'user', content: LONG_TURN });
    await store.projects.moveConversation('c1', 'p1');
    await store.projects.moveConversation('c2', 'p1');
    expect((await store.getConversation('c1'))?.projectId).toBe('p1');
    expect(await store.projects.walledProjects()).toEqual([{ projectId: 'p1', useProfile: false, conversationIds: ['c1', 'c2'] }]);
    expect((await store.projects.updateProject('p1', { name: 'Thesis 2026', archived: true })).archived).toBe(true);
    await store.projects.moveConversation('c2', null);
    expect((await store.projects.projectOf('c1'))?.name).toBe('Thesis 2026');
    expect(await store.projects.projectOf('c2')).toBeNull();
    await expect(store.projects.moveConversation('c2', 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    await store.projects.createProject({ id: 'p2', name: 'House move', instructions: '', memory: 'shared', useProfile: true });
    await store.projects.moveConversation('c2', 'p2');
    expect(await store.projects.deleteProject('p2', 'keep')).toEqual([]);
    expect((await store.getConversation('c2'))?.projectId).toBeNull();
    expect(await store.projects.deleteProject('p1', 'delete')).toEqual(['c1']);
    expect(await store.getConversation('c1')).toBeNull();
    expect(await store.getMessage('m1')).toBeNull();
    expect(await store.projects.listProjects()).toEqual([]);
  });

  it('export and import keep projects and which chats are in them', async () => {
    const source = await openNodeStore();
    await source.projects.createProject({
      id: 'p1',
      name: 'Client: Acme',
      instructions: 'Use metric units.',
      memory: 'project-only',
      useProfile: true,
    });
    await source.projects.createProject({
      id: 'p2',
      name: 'Imported',
      instructions: '',
      memory: 'shared',
      useProfile: true,
      sourceId: 'chatgpt:g-p-685bb57d',
    });
    await source.createConversation({ id: 'c1', title: 'Kick-off' });
    await source.appendTurn({ id: 'm1', conversationId: 'c1', role: 'user', content: LONG_TURN });
    await source.projects.moveConversation('c1', 'p1');
    const bytes = await source.exportDatabase();

    const target = await openNodeStore();
    await target.importDatabase(bytes);
    expect(await target.projects.listProjects()).toEqual(await source.projects.listProjects());
    expect((await target.getConversation('c1'))?.projectId).toBe('p1');
    // An imported project is still found by its source after a restore (a later history import reuses it).
    expect((await target.projects.projectBySource('chatgpt:g-p-685bb57d'))?.id).toBe('p2');
  });

  it('an imported file with a bad project row is refused and the memory is unchanged', async () => {
    const source = await openNodeStore();
    await source.projects.createProject({ id: 'p1', name: 'Ok', instructions: '', memory: 'shared', useProfile: true });
    await source.createConversation({ id: 'c1', title: 'Kick-off' });
    await source.projects.moveConversation('c1', 'p1');
    // A conversation pointing at a project the file does not hold.
    await source.db.exec('PRAGMA foreign_keys = OFF');
    await source.db.exec("UPDATE conversations SET project_id = 'missing' WHERE id = 'c1'");
    const bytes = await source.exportDatabase();

    const target = await openNodeStore();
    await target.createConversation({ id: 'mine', title: 'Mine' });
    await expect(target.importDatabase(bytes)).rejects.toMatchObject({ code: 'IMPORT_CORRUPT' });
    expect((await target.listConversations()).map((c) => c.id)).toEqual(['mine']);
  });

  it('synthesis is shown related facts only from its own side of a project-only wall', async () => {
    const store = await openNodeStore();
    await store.projects.createProject({ id: 'p1', name: 'Thesis', instructions: '', memory: 'project-only', useProfile: true });
    await store.createConversation({ id: 'in', title: 'In', projectId: 'p1' });
    await store.createConversation({ id: 'out', title: 'Out' });
    const now = 1_700_000_000_000;
    await store.db.exec(`INSERT INTO memscenes (id, created_at, updated_at) VALUES ('s', ${now}, ${now})`);
    for (const [cell, conversation] of [
      ['cin', 'in'],
      ['cin2', 'in'],
      ['cout', 'out'],
      ['cout2', 'out'],
    ] as const) {
      await store.db.exec(
        `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, scene_id, created_at, updated_at) VALUES (?, ?, 0, 0, ${now}, ${now}, 's', ${now}, ${now})`,
        [cell, conversation],
      );
    }
    await store.db.exec(`INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES
      ('fin', 'cin', 'You', 'The quokka colony logger reads humidity.', ${now}, ${now}),
      ('fout', 'cout2', 'You', 'The quokka poster hangs in the hall.', ${now}, ${now})`);
    const cell = (id: string, conversationId: string) => ({
      id,
      conversationId,
      sceneId: 's',
      startAt: now,
      endAt: now,
      title: null,
      narrative: null,
      editedByUser: false,
      turns: [],
    });
    const ids = async (id: string, conversationId: string) =>
      (await store.knowledge.relatedFacts(cell(id, conversationId), 'quokka humidity', 10)).map((f) => f.id).sort();
    expect(await ids('cout', 'out')).toEqual(['fout']);
    expect(await ids('cin2', 'in')).toEqual(['fin']);
    await store.projects.moveConversation('in', null);
    expect(await ids('cout', 'out')).toEqual(['fin', 'fout']);
  });
});
